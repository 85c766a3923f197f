"""Shared pieces of the benchmark scripts: a scratch site under gunicorn on a loopback
port, a reader that browses and posts through the HTML forms (the load and fault
scripts), and two ways of getting one answer timed side by side.

Everything here talks to 127.0.0.1 only, and every loop is bounded.
"""

from __future__ import annotations

import http.cookiejar
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))


# Every simulated reader of the load and fault scripts comes from 127.0.0.1, so the
# per-address posting limits would measure the limiter, not the site.
NO_RATE_LIMITS = {"COMMENTS_RATE_PER_IP": "1000000", "COMMENTS_RATE_PER_USER": "1000000",
                  "COMMENTS_VOTES_PER_IP": "1000000", "COMMENTS_VOTES_PER_IP_PER_COMMENT": "1000000"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(argv: list[str], *, env: dict, log_path: Path, ready_url: str,
                 seconds: float = 30) -> subprocess.Popen:
    """Start a server process from the repository (its output appended to `log_path`)
    and wait until `ready_url` answers; RuntimeError if it does not within `seconds`
    (the process is stopped) or exits first."""
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=log, stderr=log, start_new_session=True)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            urllib.request.urlopen(ready_url, timeout=1)
            return proc
        except OSError:
            time.sleep(0.2)
    stop_server(proc)
    raise RuntimeError(f"{Path(argv[0]).name} did not start; see {log_path}")


def stop_server(proc: subprocess.Popen | None) -> None:
    """Stop a process start_server() started (SIGTERM, then SIGKILL after 30 s)."""
    if proc and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def server_description(client) -> str:
    """What the MongoDB client talks to, as the scripts print it: "MongoDB 7.0.77
    (FerretDB v2.7.0)" (the version FerretDB reports, and its own when it is one)."""
    server = client.server_info()
    ferretdb = (server.get("ferretdb") or {}).get("version")
    return f"MongoDB {server.get('version')}" + (f" (FerretDB {ferretdb})" if ferretdb else "")


def load_average() -> str:
    """The machine's load average over 1, 5 and 15 minutes, as the scripts print it."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def timed(call: Callable[[], object], repeat: int) -> list[float]:
    """`call` run `repeat` times: each run's time, in seconds."""
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        call()
        times.append(time.perf_counter() - began)
    return times


@dataclass(frozen=True)
class Comparison:
    """Two ways of getting one answer, timed side by side (milliseconds: the median and
    the fastest of each), and whether they gave the same answer (`found` items now)."""

    before_ms: float
    before_fastest_ms: float
    now_ms: float
    now_fastest_ms: float
    same: bool
    found: int


def compare(before: Callable[[], list], now: Callable[[], list], repeat: int) -> Comparison:
    """Each of two calls `repeat` times, in turn (which goes first alternating too), so
    that the machine's load falls on both alike; their answers compared once."""
    answers = (before(), now())
    times: tuple[list[float], list[float]] = ([], [])
    for n in range(repeat):
        for call, into in ((before, times[0]), (now, times[1]))[:: 1 if n % 2 else -1]:
            into += timed(call, 1)
    (a, b) = times
    return Comparison(before_ms=statistics.median(a) * 1000, before_fastest_ms=min(a) * 1000,
                      now_ms=statistics.median(b) * 1000, now_fastest_ms=min(b) * 1000,
                      same=answers[0] == answers[1], found=len(answers[1]))


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


@dataclass
class Site:
    """A scratch Slugline: its own MongoDB database and Django database, served by
    gunicorn on a free loopback port."""

    mongodb_uri: str
    workers: int = 2
    port: int = field(default_factory=free_port)
    name: str = field(default_factory=lambda: f"slugline_bench_{uuid.uuid4().hex[:8]}")
    proc: subprocess.Popen | None = None
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="slugline-bench-")))
    extra_env: dict[str, str] = field(default_factory=dict)  # for every process it starts
    collected: bool = False  # its STATIC_ROOT (extra_env's) holds the collected files already

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.workdir / "gunicorn.log"

    def env(self, **extra) -> dict:
        env = dict(os.environ)
        env.update(
            MONGODB_URI=self.mongodb_uri,
            MONGODB_NAME=self.name,
            DATABASE_URL=f"sqlite:///{self.workdir / 'db.sqlite3'}",
            GUNICORN_BIND=f"127.0.0.1:{self.port}",
            WEB_CONCURRENCY=str(self.workers),
            DJANGO_SETTINGS_MODULE="slugline.settings",
            STATIC_ROOT=str(self.workdir / "static"),
        )
        env.update(self.extra_env)
        env.update(extra)
        return env

    def manage(self, *args: str) -> str:
        done = subprocess.run([PYTHON, "manage.py", *args], cwd=REPO, env=self.env(),
                              capture_output=True, text=True, timeout=600)
        if done.returncode:
            said = f"{done.stdout.strip()[-1500:]}\n{done.stderr.strip()[-500:]}".strip()
            raise RuntimeError(f"manage.py {' '.join(args)} failed: {said}")
        return done.stdout

    def prepare(self, *, posts: int = 3, comments: int = 20) -> None:
        self.manage("migrate", "--noinput", "-v0")
        self.manage("ensure_indexes")
        self.manage("seed_demo", "--posts", str(posts), "--comments", str(comments))

    def start(self, **extra_env) -> None:
        if not self.collected:
            self.manage("collectstatic", "--noinput", "-v0")  # as the release step does
        self.proc = start_server([GUNICORN, "--config", "gunicorn.conf.py", "slugline.wsgi"],
                                 env=self.env(**extra_env), log_path=self.log_path,
                                 ready_url=self.url + "/healthz/live")

    def stop(self) -> None:
        stop_server(self.proc)

    def drop(self) -> None:
        from pymongo import MongoClient

        client = MongoClient(self.mongodb_uri, serverSelectionTimeoutMS=3000)
        try:
            client.drop_database(self.name)
        finally:
            client.close()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def failures(self, size: int = 4000) -> str:
        """The log from its last traceback on (what a failed request raised), else its end."""
        log = self.log()
        start = log.rfind("Traceback (most recent call last)")
        return log[start:start + size] if start >= 0 else log[-size:]


class _FormParser(HTMLParser):
    """The hidden inputs of the comment form (CSRF token, form token, parent)."""

    def __init__(self):
        super().__init__()
        self.inside = False
        self.hidden: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and "comment-form" in (attrs.get("class") or ""):
            self.inside = True
        elif tag == "input" and self.inside and attrs.get("type") == "hidden" and attrs.get("name"):
            self.hidden[attrs["name"]] = attrs.get("value") or ""

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False


@dataclass
class Answer:
    status: int
    seconds: float
    body: str = ""
    location: str = ""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Reader:
    """One browser: a cookie jar, GETs, and comment posting through the form."""

    def __init__(self, base_url: str, timeout: float = 15):
        self.base_url, self.timeout = base_url, timeout
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect()
        )

    def get(self, path: str) -> Answer:
        return self._send(urllib.request.Request(self.base_url + path))

    def post(self, path: str, data: dict) -> Answer:
        body = urllib.parse.urlencode(data).encode()
        request = urllib.request.Request(self.base_url + path, data=body, method="POST",
                                         headers={"Referer": self.base_url + path})
        return self._send(request)

    def _send(self, request) -> Answer:
        started = time.perf_counter()
        try:
            with self.opener.open(request, timeout=self.timeout) as response:
                return Answer(response.status, time.perf_counter() - started, response.read().decode(errors="replace"))
        except urllib.error.HTTPError as error:
            body = error.read().decode(errors="replace")
            return Answer(error.code, time.perf_counter() - started, body, error.headers.get("Location", ""))
        except OSError:
            return Answer(0, time.perf_counter() - started)

    def comment_form(self, post_path: str) -> tuple[Answer, dict]:
        """GET a post page and return its comment form's hidden fields."""
        answer = self.get(post_path)
        return answer, comment_form_fields(answer.body)


def comment_form_fields(page: str) -> dict[str, str]:
    """The hidden fields of a page's comment form ({} if it has none)."""
    parser = _FormParser()
    parser.feed(page)
    return parser.hidden


def post_slugs(reader: Reader) -> list[str]:
    home = reader.get("/")
    return sorted(set(re.findall(r'href="/posts/([^/"]+)/"', home.body)))
