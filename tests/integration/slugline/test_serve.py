"""`make run` (slugline/serve.py with gunicorn.conf.py): the port check, and the whole
start as a newcomer meets it: a banner, a quiet terminal with requests in a log
file, a login command that works as printed from a second terminal, scheduled
posts going live, and Ctrl-C leaving nothing running; and gunicorn's loops stopped
with it after a graceful reload."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from django.conf import settings

from bench.harness import Reader, free_port, post_slugs
from cms import posts
from cms.demo import EDITOR
from slugline import serve

REPO = Path(__file__).resolve().parents[3]


# --- The port check ----------------------------------------------------------------------


def test_a_port_something_listens_on_is_not_free():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        assert not serve.port_is_free("127.0.0.1", listener.getsockname()[1])


def _time_wait_port() -> int:
    """A port nothing listens on whose server side just closed a connection first,
    so that connection waits in TIME_WAIT (as after Ctrl-C on a busy server). The
    listener sets SO_REUSEADDR as gunicorn's does; its connections inherit it."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    accepted, _ = listener.accept()
    listener.close()
    accepted.close()  # the server closes first: its side goes to TIME_WAIT
    client.recv(1)  # the FIN has arrived
    client.close()
    return port


def test_a_port_left_in_time_wait_after_a_stop_is_free():
    """A restart right after Ctrl-C is not refused (gunicorn binds with SO_REUSEADDR)."""
    port = _time_wait_port()
    with socket.socket() as plain, pytest.raises(OSError):
        plain.bind(("127.0.0.1", port))  # the TIME_WAIT the check must see past
    assert serve.port_is_free("127.0.0.1", port)


# --- make run, whole ------------------------------------------------------------------------


@pytest.fixture
def started(tmp_path, mongo_database):
    """`python -m slugline.serve` as `make run` starts it (MONGODB_URI given, an empty
    database), in its own process group like a terminal's foreground job."""
    port = free_port()
    env = dict(
        os.environ, PORT=str(port), MONGODB_URI=settings.MONGODB_URI, MONGODB_NAME=settings.MONGODB_NAME,
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", STATIC_ROOT=str(tmp_path / "static"),
        GUNICORN_ACCESS_LOG=str(tmp_path / "log" / "access.log"), WEB_CONCURRENCY="2",
        SLUGLINE_PUBLISH_EVERY="0.5", DJANGO_SETTINGS_MODULE="slugline.settings",
        EMAIL_URL=f"filemail:///{tmp_path / 'mail'}",
    )
    env.pop("SITE_URL", None)
    out = open(tmp_path / "terminal.txt", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "slugline.serve"], cwd=REPO, env=env, stdout=out,
                            stderr=subprocess.STDOUT, process_group=0)
    try:
        _wait_for(lambda: "Ctrl-C stops it." in _read(tmp_path / "terminal.txt"), 90, proc)
        yield proc, port, tmp_path, env
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        out.close()
        shutil.rmtree(tmp_path / "static", ignore_errors=True)


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


def _wait_for(condition, seconds: float, proc=None) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert proc is None or proc.poll() is None, f"exited with {proc.returncode}"
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _log_in(url: str, username: str, password: str) -> int:
    reader = Reader(url)
    form = reader.get("/accounts/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.body).group(1)
    return reader.post("/accounts/login/", {"csrfmiddlewaretoken": token, "login": username,
                                            "password": password}).status


def test_make_run_starts_quiet_with_a_banner_and_ctrl_c_stops_everything(started):
    proc, port, folder, env = started
    url = f"http://127.0.0.1:{port}"
    terminal = _read(folder / "terminal.txt")
    assert f"Slugline is at {url}/" in terminal and serve.SEEDED in terminal
    assert f"Requests are logged to {folder / 'log' / 'access.log'}" in terminal

    assert Reader(url).get("/?from=banner-test").status == 200
    _wait_for(lambda: "from=banner-test" in _read(folder / "log" / "access.log"), 5)
    assert "at=request" not in _read(folder / "terminal.txt")

    # The login command as printed, from a "second terminal": the checkout, no MongoDB settings.
    command = re.search(r"^ {6}(\S.*demo_login.*)$", terminal, re.M).group(1)
    second = {k: v for k, v in os.environ.items() if not k.startswith(("MONGODB_", "DATABASE_URL", "PORT"))}
    done = subprocess.run(command, shell=True, cwd=REPO, env=second, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    password = re.search(r"^Password: (\S+)$", done.stdout, re.M).group(1)
    assert f"{url}/accounts/login/" in done.stdout
    assert _log_in(url, EDITOR, password) == 302

    # Scheduled a second ahead, live without anyone running publish_scheduled.
    post = posts.create_post(
        title="Due soon", slug=f"due-{uuid.uuid4().hex[:6]}", content="Soon.",
        author=posts.AuthorSummary(id=1, username="ada", name="Ada"),
        status=posts.SCHEDULED, published=datetime.now(timezone.utc) + timedelta(seconds=1),
    )
    _wait_for(lambda: posts.get_published(post.slug) is not None, 10, proc)
    _wait_for(lambda: "Published 1 scheduled post." in _read(folder / "terminal.txt"), 5)

    # Quiet: after the banner, only what the publishing loop did (no request, login or INFO lines).
    after = _read(folder / "terminal.txt").split("Ctrl-C stops it.", 1)[1]
    assert [line for line in after.splitlines() if line.strip()] == [
        line for line in after.splitlines() if re.fullmatch(r"\d\d:\d\d:\d\d Published 1 scheduled post\.", line)
    ] != [], after

    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the whole group
    assert proc.wait(timeout=40) == 0
    _wait_for(lambda: not _group_alive(proc.pid), 15)
    assert "Traceback" not in _read(folder / "terminal.txt")


def test_links_in_mail_from_make_run_lead_to_its_own_port(started):
    """`make run PORT=<p>` (a free port, not 8000): the confirmation mail that a
    comment with "follow this discussion" asks for links to http://127.0.0.1:<p>/."""
    proc, port, folder, env = started
    reader = Reader(f"http://127.0.0.1:{port}")
    slug = post_slugs(reader)[0]
    _, hidden = reader.comment_form(f"/posts/{slug}/")
    posted = reader.post(f"/posts/{slug}/comments/", {
        **hidden, "text": "Tell me about new comments", "name": "Rosa",
        "email": f"rosa-{uuid.uuid4().hex[:6]}@example.com", "follow_discussion": "on",
    })
    assert posted.status == 303, posted.body[:500]
    mails = folder / "mail"

    def written() -> str:
        # Django's file backend makes the file before it writes the message into it.
        return "".join(path.read_text(errors="replace") for path in mails.iterdir()) if mails.exists() else ""

    _wait_for(lambda: "/notifications/" in written(), 30, proc)
    text = written()
    links = re.findall(r"https?://[^\s\"'<>]+/notifications/[^\s\"'<>]+", text)
    assert links, text[:2000]
    assert all(link.startswith(f"http://127.0.0.1:{port}/") for link in links), links
    assert ":8000/" not in text


# --- gunicorn's loops across a reload ------------------------------------------------------


def _session(sid: int) -> dict[int, str]:
    """The live processes of session `sid` (pid: command line), zombies left out."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state, _ppid, _pgrp, session = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:4]
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, ValueError):
            continue
        if int(session) == sid and state != "Z":
            found[int(entry.name)] = command
    return found


def _loops(sid: int) -> dict[int, str]:
    return {pid: command for pid, command in _session(sid).items() if " --loop " in command}


def _workers(sid: int) -> set[int]:
    return {pid for pid, command in _session(sid).items() if " --loop " not in command and pid != sid}


def test_stopping_gunicorn_after_a_graceful_reload_stops_its_loops(site_template, tmp_path):
    """A real gunicorn with both loops: SIGHUP (new workers, the loops started again),
    then SIGTERM: nothing of its session remains, no loop polling the database."""
    site = site_template.site(workers=1)
    site.start(SLUGLINE_PUBLISH_EVERY="0.5", SLUGLINE_NOTIFY_EVERY="0.5", EMAIL_URL=f"filemail:///{tmp_path}")
    master = site.proc.pid
    try:
        _wait_for(lambda: len(_loops(master)) == 2, 30, site.proc)
        started, workers = _loops(master), _workers(master)
        assert sorted(command.split()[2] for command in started.values()) == [
            "publish_scheduled", "send_notifications"]
        os.kill(master, signal.SIGHUP)
        _wait_for(lambda: _workers(master) and not _workers(master) & workers, 30, site.proc)
        _wait_for(lambda: len(_loops(master)) == 2, 30, site.proc)  # one of each
        reloaded = _loops(master)
        site.proc.terminate()
        assert site.proc.wait(timeout=30) == 0
        _wait_for(lambda: not _session(master), 15)
        # The loops ran the new code: started again by the reload.
        assert not reloaded.keys() & started.keys()
    finally:
        for pid in _session(master):
            os.kill(pid, signal.SIGKILL)
        site.stop()
        shutil.rmtree(site.workdir, ignore_errors=True)


# --- demo_login -----------------------------------------------------------------------------


def test_demo_login_sets_a_new_password_that_logs_the_editor_in(make_user):
    from io import StringIO

    from django.core.management import call_command

    editor = make_user(EDITOR, role="editor")
    out = StringIO()
    call_command("demo_login", "--port", "8123", stdout=out)
    password = re.search(r"^Password: (\S+)$", out.getvalue(), re.M).group(1)
    assert f"Username: {EDITOR}" in out.getvalue()
    assert "http://127.0.0.1:8123/accounts/login/" in out.getvalue()
    editor.refresh_from_db()
    assert editor.check_password(password)


@pytest.mark.django_db
def test_demo_login_refuses_a_user_that_does_not_exist():
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="There is no user 'bruno' to log in as"):
        call_command("demo_login")


def test_the_login_command_carries_what_a_second_terminal_lacks():
    """The venv's Python, relative to the checkout; DATABASE_URL when this run has
    one; the port when it is not the default."""
    plain = serve.login_command(port=8000, environ={})
    python, rest = plain.split(" ", 1)
    assert rest == "manage.py demo_login"
    assert (REPO / python).resolve() == Path(sys.executable).resolve()
    if Path(sys.executable).is_relative_to(REPO):
        assert not Path(python).is_absolute()  # `.venv/bin/python`, as in the README
    assert serve.login_command(port=8765, environ={"DATABASE_URL": "sqlite:///a b"}) == (
        f"DATABASE_URL='sqlite:///a b' {plain} --port 8765")
