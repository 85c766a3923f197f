"""A site deployed by the Procfile speaks every language: its release step and its
web process, run as a platform runs them (`sh -c` in a clean checkout, no compiled
catalogs, `python` and `gunicorn` from the PATH), compile the catalogs, and a
Vietnamese, Hindi or Indonesian reader gets the page in their language. Its other
processes send the mail to the mail server of EMAIL_URL and publish scheduled posts."""

from __future__ import annotations

import gettext
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from django.conf import settings

from bench.harness import free_port
from cms import posts
from comments.notifications import notify
from tests.smtp import SMTPServer

REPO = Path(__file__).resolve().parents[3]
LANGUAGES = ["vi", "hi", "id"]
needs_msgfmt = pytest.mark.skipif(shutil.which("msgfmt") is None,
                                  reason="msgfmt missing: install Debian's gettext package")


def procfile() -> dict[str, str]:
    return dict(line.split(": ", 1) for line in (REPO / "Procfile").read_text().splitlines() if ": " in line)


@pytest.fixture
def checkout(tmp_path) -> Path:
    """The tree as a fresh clone has it: tracked files and new ones git would add,
    nothing it ignores (no .mo, no var/, no virtualenv)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, check=True).stdout.decode().split("\0")
    tree = tmp_path / "checkout"
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file() and not source.is_symlink():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tree / name)
    assert not list(tree.rglob("*.mo"))
    return tree


def platform_env(tree: Path, **extra) -> dict:
    """What a platform gives the processes: its config vars, the app's virtualenv first
    on the PATH, nothing of this test run's own settings."""
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("MONGODB_", "DJANGO_", "SLUGLINE_", "GUNICORN_"))
           and name not in {"DATABASE_URL", "STATIC_ROOT", "SITE_URL", "PORT", "CACHE_URL", "DEBUG"}}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        SECRET_KEY=secrets.token_urlsafe(50), DATABASE_URL=f"sqlite:///{tree.parent / 'db.sqlite3'}",
        STATIC_ROOT=str(tree.parent / "static"), MONGODB_URI=settings.MONGODB_URI,
        MONGODB_NAME=settings.MONGODB_NAME, WEB_CONCURRENCY="1",
    )
    env.update(extra)
    return env


def _get(url: str, language: str) -> tuple[int, str]:
    from urllib.error import URLError
    from urllib.request import Request, urlopen

    try:
        with urlopen(Request(url, headers={"Accept-Language": language}), timeout=10) as response:
            return response.status, response.read().decode()
    except URLError:
        return 0, ""


@needs_msgfmt
def test_the_procfile_release_and_web_steps_serve_every_language(checkout):
    """The release step compiles the catalogs (before migrating), the web process
    starts with them, and the home page reads in Vietnamese, Hindi and Indonesian."""
    commands = procfile()
    env = platform_env(checkout)
    release = subprocess.run(["/bin/sh", "-c", commands["release"]], cwd=checkout, env=env, capture_output=True,
                             text=True, timeout=600)
    assert release.returncode == 0, release.stderr[-3000:]
    # The site's catalogs and the comments app's own (comments/locale/).
    assert "Compiled 6 of 6 translation catalogs." in release.stdout
    for code in LANGUAGES:
        assert (checkout / "locale" / code / "LC_MESSAGES" / "django.mo").exists()
        assert (checkout / "comments" / "locale" / code / "LC_MESSAGES" / "django.mo").exists()

    port = free_port()
    log = open(checkout.parent / "web.txt", "wb")
    web = subprocess.Popen(["/bin/sh", "-c", commands["web"]], cwd=checkout, env={**env, "PORT": str(port)},
                           stdout=log, stderr=subprocess.STDOUT, process_group=0)
    try:
        deadline = time.monotonic() + 90
        while _get(f"http://127.0.0.1:{port}/healthz/live", "en")[0] != 200:
            assert web.poll() is None, (checkout.parent / "web.txt").read_text()
            assert time.monotonic() < deadline, "the web process did not answer"
            time.sleep(0.2)
        for code in LANGUAGES:
            with open(checkout / "locale" / code / "LC_MESSAGES" / "django.mo", "rb") as mo:
                translated = gettext.GNUTranslations(mo).gettext("Latest posts")
            assert translated != "Latest posts"
            status, body = _get(f"http://127.0.0.1:{port}/", code)
            assert status == 200
            assert f'<html lang="{code}"' in body
            assert translated in body and "Latest posts" not in body
    finally:
        os.killpg(web.pid, signal.SIGTERM)
        try:
            web.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(web.pid, signal.SIGKILL)
            web.wait()
        log.close()
    assert "up to date" in (checkout.parent / "web.txt").read_text()


def test_a_release_without_msgfmt_stops_before_deploying_english_only(checkout):
    """Without msgfmt the release step fails at once, saying what to install, and
    goes no further (no migration ran)."""
    env = platform_env(checkout, PATH=str(Path(sys.executable).parent))
    release = subprocess.run(["/bin/sh", "-c", procfile()["release"]], cwd=checkout, env=env, capture_output=True,
                             text=True, timeout=300)
    assert release.returncode != 0
    assert "install GNU gettext" in release.stderr
    assert not (checkout.parent / "db.sqlite3").exists()


def _stop(process: subprocess.Popen) -> int:
    """SIGTERM to the process's group, as a platform stops a process; its exit status."""
    os.killpg(process.pid, signal.SIGTERM)
    try:
        return process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise


@needs_msgfmt
def test_the_procfile_sends_the_mail_and_publishes_scheduled_posts(checkout, make_post, make_comment):
    """Its `mail:` and `publish:` processes, run as a platform runs them: a confirmation
    mail that falls due reaches the mail server of EMAIL_URL, from DEFAULT_FROM_EMAIL,
    a scheduled post whose time has come goes live, and SIGTERM stops both cleanly."""
    commands = procfile()
    assert {"web", "release", "mail", "publish"} <= commands.keys()
    server = SMTPServer()
    server.start()
    sender = "Slugline <noreply@blog.example.com>"
    env = platform_env(checkout, EMAIL_URL=server.url, DEFAULT_FROM_EMAIL=sender,
                       SITE_URL="https://blog.example.com")
    post = make_post()
    notify.subscribe_after_posting(comment=make_comment(post), replies=False, follow=True,
                                   email="rosa@example.org", user_id=None, ip="192.0.2.1")
    due = make_post(status=posts.SCHEDULED, published=datetime.now(timezone.utc) - timedelta(seconds=1))
    logs = {name: open(checkout.parent / f"{name}.txt", "wb") for name in ("mail", "publish")}
    running = {name: subprocess.Popen(["/bin/sh", "-c", commands[name]], cwd=checkout, env=env, stdout=log,
                                      stderr=subprocess.STDOUT, process_group=0) for name, log in logs.items()}
    try:
        deadline = time.monotonic() + 90
        while not (server.inbox.to("rosa@example.org") and posts.get_published(due.slug)):
            for name, process in running.items():
                assert process.poll() is None, (checkout.parent / f"{name}.txt").read_text()
            assert time.monotonic() < deadline, "no mail sent or no post published"
            time.sleep(0.2)
        [mail] = server.inbox.to("rosa@example.org")
        assert mail["From"] == sender and "https://blog.example.com/" in mail.get_body().get_content()
    finally:
        stopped = {name: _stop(process) for name, process in running.items()}
        for log in logs.values():
            log.close()
        server.stop()
    assert stopped == {"mail": 0, "publish": 0}
