"""Benchmark against a peer: Slugline's post page beside django-comments-xtd's.

For each size (one post with 100, 1,000 and 10,000 threaded comments by default) it
builds the post once with cms/demo.py's seed_comments in a scratch MongoDB database,
exports the very same tree (parents, authors, texts, times) to the peer, and serves
the post page /posts/<slug>/ with four servers, each under gunicorn with Slugline's
gunicorn.conf.py (same workers, worker class and timeouts), loaded one at a time:

  slugline-cold  Slugline, COMMENTS_CACHE_SECONDS=0
  slugline-warm  Slugline, COMMENTS_CACHE_SECONDS=300 (the rendered-comments cache)
  peer-xtd       django-comments-xtd 2.10.13 in a tiny Django project of ours
                 (bench/peer/xtd_site/, its own virtualenv var/peer-venv/, SQLite)
  limit          Slugline's templates rendered from comments held in memory
                 (bench/peer/limit_app.py): what the page costs without a database
  base-cold      with --base DIR only: slugline-cold served from another work tree
                 (a change's base, e.g. `git worktree add DIR main`) on the same data,
                 so that a change is measured before and after in one run

After a warm-up, a closed loop of client threads sends GETs for a bounded time or
number of requests, in interleaved rounds; an answer counts only if it is a 200
showing the expected comments: for Slugline and the limit, exactly the comments
the first threaded page is meant to show, in order (comments.reading.listers.list_comments,
asked once: COMMENTS_PER_PAGE entries, the replies below the indent limit behind
"Continue this thread"); for the peer, the whole tree. Prints req/s, p50 and p95 latency, errors, where the
CPU went, the ratios, and the targets this benchmark exists to check, each met or not.

    .venv/bin/python bench/peer.py --sizes 100,1000 --seconds 10 --threads 4
    .venv/bin/python bench/peer.py --servers slugline-cold,limit --base /tmp/base

Without MONGODB_URI it uses (or starts) the dev database (FerretDB v2 on PostgreSQL
with DocumentDB; its CPU is FerretDB's and PostgreSQL's processes'). Loopback only;
every loop is bounded; servers are stopped and the scratch databases dropped at the end.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from bench.django_setup import setup  # noqa: E402

setup()

from django.conf import settings  # noqa: E402

from bench.harness import GUNICORN, PYTHON, free_port, percentile  # noqa: E402
from cms import demo, posts  # noqa: E402
from comments import conf, records  # noqa: E402
from comments.reading import listers, listings  # noqa: E402
from comments.stores import get_store  # noqa: E402
from infra import mongo
from devdb.server import DevDB  # noqa: E402

XTD_VERSION = "2.10.13"
PEER_VENV = REPO / "var" / "peer-venv"
PEER_VAR = REPO / "var" / "peer"
LOGS = PEER_VAR / "logs"
XTD_SITE = REPO / "bench" / "peer" / "xtd_site"
GUNICORN_CONF = REPO / "gunicorn.conf.py"
# The comments app's setting slugline-cold and slugline-warm differ by.
CACHE_SETTING = "COMMENTS_CACHE_SECONDS"
SLUG = "benchmark-post"
# One rendered comment: Slugline's <article class="comment" ... data-slug="..."> (its slug
# captured; a "[deleted]" placeholder's class is "comment placeholder"), xtd's
# <div id="c12" class="comment ...">.
SLUGLINE_COMMENT = re.compile(rb'<article class="comment" id="[^"]*" data-slug="([^"]+)"')
XTD_COMMENT = re.compile(rb'<div id="c\d+" class="comment[ "]')
# What Slugline's page says instead of the comments when MongoDB is down or over budget.
DEGRADED = b"Comments are unavailable right now"
SERVERS = ("slugline-cold", "slugline-warm", "peer-xtd", "limit")
# slugline-cold from the work tree given with --base.
BASE = "base-cold"
# The targets (figures, not tests): (label, server, against, at which sizes (None:
# every size), at least this ratio of req/s).
TARGETS = (
    ("warm Slugline >= 2x peer req/s", "slugline-warm", "peer-xtd", (1000,), 2.0),
    ("cold >= peer", "slugline-cold", "peer-xtd", None, 1.0),
    ("cold >= 0.8x limit", "slugline-cold", "limit", None, 0.8),
    ("warm >= 2x limit", "slugline-warm", "limit", None, 2.0),
)
POST_TEXT = (
    "Threaded comments, served two ways.\n\n## Why this post\n\n"
    "It carries the discussion both sites render: the same comments, the same tree."
)


# --- Servers ----------------------------------------------------------------------


def gunicorn_env() -> dict[str, str]:
    """The gunicorn.conf.py values every server gets, resolved once (WEB_CONCURRENCY as
    gunicorn.conf.py computes it when unset), so all four run alike."""
    return {
        "WEB_CONCURRENCY": os.environ.get("WEB_CONCURRENCY") or str(min(4, (os.cpu_count() or 1) * 2)),
        "GUNICORN_WORKER_CLASS": os.environ.get("GUNICORN_WORKER_CLASS", "sync"),
        "GUNICORN_THREADS": os.environ.get("GUNICORN_THREADS", "1"),
        "GUNICORN_TIMEOUT": os.environ.get("GUNICORN_TIMEOUT", "30"),
        "GUNICORN_GRACEFUL_TIMEOUT": os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "30"),
        "GUNICORN_MAX_REQUESTS": os.environ.get("GUNICORN_MAX_REQUESTS", "1000"),
        "GUNICORN_MAX_REQUESTS_JITTER": os.environ.get("GUNICORN_MAX_REQUESTS_JITTER", "100"),
    }


@dataclass
class Server:
    """One gunicorn on a free loopback port, in its own process group."""

    name: str
    size: int
    argv: list[str]
    env: dict[str, str]
    cwd: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None

    @property
    def log_path(self) -> Path:
        return LOGS / f"{self.size}-{self.name}.log"

    def start(self, timeout: float = 60) -> None:
        env = {**self.env, "GUNICORN_BIND": f"127.0.0.1:{self.port}"}
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                self.argv, cwd=self.cwd, env=env, stdout=log, stderr=log, start_new_session=True
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            if fetch(self.port, "/healthz/live", timeout=2)[0]:  # any answer: it listens
                return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"{self.name} did not start; see {self.log_path}:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)

    def log_tail(self, lines: int = 15) -> str:
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


def fetch(port: int, path: str, *, timeout: float) -> tuple[int, bytes]:
    """GET over a new loopback connection (gunicorn's sync workers close each one)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    except (OSError, http.client.HTTPException):
        return 0, b""
    finally:
        conn.close()


# --- Load -------------------------------------------------------------------------


@dataclass
class Result:
    responses: int
    seconds: float
    latencies: list[float]
    # What went wrong, and how often.
    problems: dict[str, int]

    @property
    def errors(self) -> int:
        return sum(self.problems.values())

    @property
    def rps(self) -> float:
        return (self.responses - self.errors) / self.seconds if self.seconds else 0.0

    def ms(self, share: float) -> float:
        return percentile(self.latencies, share) * 1000

    def describe_errors(self) -> str:
        return "; ".join(f"{problem} × {count}" for problem, count in sorted(self.problems.items()))

    def __add__(self, other: Result) -> Result:
        problems = dict(self.problems)
        for problem, count in other.problems.items():
            problems[problem] = problems.get(problem, 0) + count
        return Result(
            self.responses + other.responses,
            self.seconds + other.seconds,
            self.latencies + other.latencies,
            problems,
        )


def run_load(
    port: int,
    path: str,
    *,
    threads: int,
    seconds: float,
    requests: int,
    expected: Expected,
    pattern: re.Pattern,
    timeout: float,
) -> Result:
    """A closed loop: each thread sends its next GET when the last one is answered,
    until `seconds` have passed or `requests` were sent in all. A response is an error
    unless it is a 200 showing exactly the `expected` comments."""
    lock = threading.Lock()
    deadline = time.monotonic() + seconds
    sent, errors, latencies = [0], {}, []

    def client():
        while True:
            with lock:
                if sent[0] >= requests or time.monotonic() >= deadline:
                    return
                sent[0] += 1
            started = time.perf_counter()
            status, body = fetch(port, path, timeout=timeout)
            took = time.perf_counter() - started
            error = _error(status, body, pattern, expected)
            with lock:
                latencies.append(took)
                if error:
                    errors[error] = errors.get(error, 0) + 1

    started = time.perf_counter()
    workers = [threading.Thread(target=client) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return Result(len(latencies), time.perf_counter() - started, latencies, errors)


@dataclass(frozen=True)
class Expected:
    """What a page must show: these comments (slugs, in page order), or, for the peer,
    whose markup carries no slug, this many."""

    count: int
    slugs: tuple[str, ...] | None = None

    @classmethod
    def first_page(cls, listing: listings.Listing) -> Expected:
        """The comments drawn on a page as the site places them (placeholders aside)."""
        slugs = tuple(item.comment.slug for item in listing.shown if not item.placeholder)
        return cls(len(slugs), slugs)


def _error(status: int, body: bytes, pattern: re.Pattern, expected: Expected) -> str:
    """What is wrong with an answer ("" when it is a 200 showing the expected comments)."""
    if status != 200:
        return f"status {status}" if status else "no answer"
    if DEGRADED in body:
        return "comments unavailable (MongoDB budget spent)"
    found = pattern.findall(body)
    if len(found) != expected.count:
        return f"{len(found)} comments shown, not {expected.count}"
    if expected.slugs is not None and tuple(slug.decode() for slug in found) != expected.slugs:
        return "other comments (or another order) than the page's"
    return ""


# --- Data -------------------------------------------------------------------------


@dataclass
class Dataset:
    size: int
    mongodb_name: str
    post: posts.Post
    comments: int
    export: Path
    # What the first threaded page shows, as the site's own listing places it.
    first_page: Expected


def build_slugline(size: int, *, seed: int) -> Dataset:
    """One post with `size` demo comments (cms/demo.py) in a new scratch database."""
    settings.MONGODB_NAME = f"slugline_peer_{size}_{uuid.uuid4().hex[:8]}"
    mongo.reset_client()
    mongo.ensure_all_indexes()
    created = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
    post = posts.create_post(
        title=f"A discussion of {size:,} comments",
        slug=SLUG,
        content=POST_TEXT,
        author=posts.AuthorSummary(id=1, username="bench", name="Bench"),
        status=posts.PUBLISHED,
        published=created,
        created=created,
    )
    print(
        f"  seeding {size:,} comments into {settings.MONGODB_NAME} through the comment service…", flush=True
    )
    started = time.perf_counter()
    stop = threading.Event()
    progress = threading.Thread(target=_report_seeding, args=(post, size, started, stop), daemon=True)
    progress.start()
    try:
        demo.seed_comments(post=post, count=size, rng=random.Random(seed), start=created)
    finally:
        stop.set()
        progress.join()
    comments = get_store().find_page(discussion_id=post.id, order="threaded", limit=None)
    print(f"  seeded {len(comments):,} comments in {time.perf_counter() - started:.1f} s", flush=True)
    export = export_tree(posts.get_published(SLUG), comments, size)
    first_page = Expected.first_page(listers.list_comments(discussion_id=post.id, view="threaded"))
    print(f"  the first threaded page shows {first_page.count} of them (listers.list_comments)", flush=True)
    return Dataset(size, settings.MONGODB_NAME, post, len(comments), export, first_page)


def _report_seeding(post: posts.Post, size: int, started: float, stop: threading.Event) -> None:
    while not stop.wait(15):
        done = get_store().tally_listing(discussion_id=post.id).total
        print(f"    {done:,}/{size:,} comments after {time.perf_counter() - started:.0f} s", flush=True)


def export_tree(post: posts.Post, comments: list[records.Comment], size: int) -> Path:
    """The post and its comments, threaded, as bench/peer/xtd_site's import_comments reads them."""
    PEER_VAR.mkdir(parents=True, exist_ok=True)
    path = PEER_VAR / f"export-{size}.json"
    data = {
        "post": {
            "title": post.title,
            "slug": post.slug,
            "body_html": post.content_html,
            "published": post.published.isoformat(),
        },
        "comments": [
            {
                "slug": c.slug,
                "parent": c.parent_slug,
                "key": c.full_slug.rsplit("/", 1)[-1],
                "name": c.author.name,
                "email": c.author.email,
                "text": c.text,
                "posted": c.posted.isoformat(),
            }
            for c in comments
        ],
    }
    path.write_text(json.dumps(data))
    return path


def drop_scratch(name: str) -> None:
    if name.startswith("slugline_peer_"):
        mongo.get_client().drop_database(name)


# --- The peer's virtualenv and database -----------------------------------------------


def peer_python() -> Path:
    return PEER_VENV / "bin" / "python"


def peer_versions() -> dict[str, str]:
    code = (
        "import json, importlib.metadata as m\n"
        "names = ['django-comments-xtd', 'django-contrib-comments', 'Django', 'gunicorn']\n"
        "def v(n):\n    try:\n        return m.version(n)\n    except m.PackageNotFoundError:\n        return ''\n"
        "print(json.dumps({n: v(n) for n in names}))"
    )
    done = subprocess.run([peer_python(), "-c", code], capture_output=True, text=True, timeout=60)
    return json.loads(done.stdout) if done.returncode == 0 else {}


def ensure_peer_venv() -> dict[str, str]:
    """var/peer-venv/ with django-comments-xtd and the same Django and gunicorn as
    Slugline's; created or completed with pip when it is not so already."""
    want = {"django-comments-xtd": XTD_VERSION, "Django": django.__version__, "gunicorn": version("gunicorn")}
    if not peer_python().exists():
        print(f"creating {PEER_VENV.relative_to(REPO)}/ (python3 -m venv)", flush=True)
        subprocess.run([PYTHON, "-m", "venv", str(PEER_VENV)], check=True, timeout=300)
    have = peer_versions()
    if any(have.get(name) != wanted for name, wanted in want.items()) or not have.get(
        "django-contrib-comments"
    ):
        print(
            f"installing {', '.join(f'{n}=={v}' for n, v in want.items())} into the peer's virtualenv…",
            flush=True,
        )
        subprocess.run(
            [
                peer_python(),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                *[f"{name}=={wanted}" for name, wanted in want.items()],
                "django-contrib-comments",
            ],
            check=True,
            timeout=900,
        )
        have = peer_versions()
    return have


def peer_env(database: Path, secret: str) -> dict[str, str]:
    """A clean environment for the peer: nothing of Slugline's settings leaks in."""
    keep = {name: os.environ[name] for name in ("PATH", "HOME", "LANG", "TMPDIR") if name in os.environ}
    return {
        **keep,
        **gunicorn_env(),
        "DJANGO_SETTINGS_MODULE": "xtd_site.settings",
        "XTD_DATABASE": str(database),
        "XTD_SECRET_KEY": secret,
    }


def build_peer(data: Dataset, env: dict[str, str]) -> None:
    database = Path(env["XTD_DATABASE"])
    database.unlink(missing_ok=True)
    for args in (["migrate", "--noinput", "-v0"], ["import_comments", str(data.export)]):
        started = time.perf_counter()
        done = subprocess.run(
            [peer_python(), "manage.py", *args],
            cwd=XTD_SITE,
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if done.returncode:
            raise RuntimeError(f"peer manage.py {args[0]} failed: {done.stderr.strip()[-1500:]}")
        if args[0] == "import_comments":
            print(
                f"  peer: {done.stdout.strip()} ({time.perf_counter() - started:.1f} s, "
                f"through xtd's own XtdComment.save, order checked)",
                flush=True,
            )


# --- One run ----------------------------------------------------------------------


@dataclass
class Plan:
    threads: int
    seconds: float
    requests: int
    warmup: float
    timeout: float
    rounds: int
    servers: tuple[str, ...]
    db_pids: frozenset[int]


@dataclass
class Contender:
    """A server under test, what its page must show, and what it measured."""

    server: Server
    expected: Expected
    pattern: re.Pattern
    note: str = ""
    shown: int = 0
    result: Result | None = None
    cpu: Cpu = field(default_factory=lambda: Cpu(0, 0, 0))
    # req/s of each round: the best is the one least disturbed by other work.
    round_rps: list[float] = field(default_factory=list)


@dataclass
class Cpu:
    """CPU seconds spent during measured loads: by the server's processes, by the
    MongoDB server (when it is the dev database, whose pid we know), and by every
    other process on the machine but this client (other people's work)."""

    app: float
    db: float
    others: float

    def __add__(self, other: Cpu) -> Cpu:
        return Cpu(self.app + other.app, self.db + other.db, self.others + other.others)


def _proc_cpu(pgid: int, db_pids: frozenset[int]) -> tuple[float, float]:
    """CPU seconds of the processes in group `pgid` (with reaped children) and of the
    database: the processes `db_pids` (FerretDB and PostgreSQL's postmaster) and their
    children (PostgreSQL's backends and workers)."""
    tick = os.sysconf("SC_CLK_TCK")
    app = db = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        seconds = sum(int(value) for value in fields[11:15]) / tick  # utime stime cutime cstime
        if int(fields[2]) == pgid:
            app += seconds
        elif int(entry.name) in db_pids or int(fields[1]) in db_pids:
            db += seconds
    return app, db


def database_pids(uri: str) -> frozenset[int]:
    """The FerretDB listening where `uri` points and the PostgreSQL postmaster it talks
    to (found from their command lines and the cluster's postmaster.pid), for a database
    this script did not start; none found: empty (its CPU is then not measured)."""
    where = uri.split("://", 1)[-1].split("/", 1)[0].split("@")[-1]
    found: set[int] = set()
    pg_port = None
    commands = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                commands[int(entry.name)] = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
    for pid, argv in commands.items():
        text = [part.decode(errors="replace") for part in argv]
        if any(part == f"--listen-addr={where}" for part in text):
            found.add(pid)
            url = next((part for part in text if part.startswith("--postgresql-url=")), "")
            pg_port = re.search(r"@[^:/]+:(\d+)", url)
    for pid, argv in commands.items():
        text = [part.decode(errors="replace") for part in argv]
        if pg_port and "-D" in text and text[0].endswith("postgres"):
            try:
                lines = (Path(text[text.index("-D") + 1]) / "postmaster.pid").read_text().splitlines()
            except (OSError, IndexError):
                continue
            if len(lines) > 3 and lines[0].strip() == str(pid) and lines[3].strip() == pg_port.group(1):
                found.add(pid)
    return frozenset(found)


def _busy_seconds() -> float:
    """CPU seconds the whole machine has been busy since boot (/proc/stat)."""
    values = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(values) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")  # less idle and iowait


def _own_seconds() -> float:
    times = os.times()
    return times.user + times.system


def measure_once(contender: Contender, *, plan: Plan, seconds: float, requests: int) -> tuple[Result, Cpu]:
    server = contender.server
    before = (_proc_cpu(server.proc.pid, plan.db_pids), _busy_seconds(), _own_seconds())
    result = run_load(
        server.port,
        f"/posts/{SLUG}/",
        threads=plan.threads,
        seconds=seconds,
        requests=requests,
        expected=contender.expected,
        pattern=contender.pattern,
        timeout=plan.timeout,
    )
    (app, db), busy, own = _proc_cpu(server.proc.pid, plan.db_pids), _busy_seconds(), _own_seconds()
    app, db = app - before[0][0], db - before[0][1]
    others = (busy - before[1]) - (own - before[2]) - app - db
    return result, Cpu(app, db, max(0.0, others))


def start(contender: Contender, *, plan: Plan) -> None:
    server = contender.server
    server.start()
    started = time.perf_counter()
    status, body = fetch(server.port, f"/posts/{SLUG}/", timeout=plan.timeout)
    took = time.perf_counter() - started
    contender.shown = len(contender.pattern.findall(body))
    problem = _error(status, body, contender.pattern, contender.expected)
    print(
        f"  {server.name}: gunicorn on 127.0.0.1:{server.port}; first answer {status}, {len(body):,} bytes, "
        f"{contender.shown:,} comments shown (expected {contender.expected.count:,}) in {took * 1000:.0f} ms"
        f"{'; WRONG: ' + problem if problem else ''}",
        flush=True,
    )


def run_rounds(contenders: list[Contender], *, plan: Plan) -> None:
    """Warm each server up, then load them in turn, `plan.rounds` times (interleaved,
    so that a change in the machine's other work falls on all of them)."""
    for contender in contenders:
        measure_once(contender, plan=plan, seconds=plan.warmup, requests=10**9)
    for round_number in range(plan.rounds):
        for contender in contenders:
            result, cpu = measure_once(
                contender,
                plan=plan,
                seconds=plan.seconds / plan.rounds,
                requests=-(-plan.requests // plan.rounds),
            )
            contender.result = result if contender.result is None else contender.result + result
            contender.cpu = contender.cpu + cpu
            contender.round_rps.append(result.rps)
            print(
                f"  {contender.server.name} (round {round_number + 1}/{plan.rounds}): {result.responses} "
                f"responses in {result.seconds:.1f} s, {result.rps:.1f} req/s, p50 {result.ms(0.5):.1f} ms, "
                f"p95 {result.ms(0.95):.1f} ms, errors {result.errors}"
                f"{' (' + result.describe_errors() + ')' if result.errors else ''}; other work on the "
                f"machine: {cpu.others / result.seconds:.2f} cores",
                flush=True,
            )


def contenders_for(
    size: int, data: Dataset, *, plan: Plan, uri: str, workdir: Path, has_cache: bool, base: Path | None = None
) -> list[Contender]:
    page = data.first_page
    slugline_env = {
        **os.environ,
        **gunicorn_env(),
        "MONGODB_URI": uri,
        "MONGODB_NAME": data.mongodb_name,
        "DJANGO_SETTINGS_MODULE": "slugline.settings",
        "DATABASE_URL": f"sqlite:///{workdir / 'db.sqlite3'}",
        "STATIC_ROOT": str(workdir / "static"),
    }
    slugline = [GUNICORN, "--config", str(GUNICORN_CONF), "slugline.wsgi"]
    contenders = []
    for name, seconds in (("slugline-cold", "0"), ("slugline-warm", "300")):
        if name in plan.servers:
            env = {**slugline_env, CACHE_SETTING: seconds}
            note = "" if has_cache or name == "slugline-cold" else "warm = cold (no cache yet)"
            contenders.append(
                Contender(Server(name, size, slugline, env, REPO), page, SLUGLINE_COMMENT, note)
            )
    if base is not None:
        env = {**slugline_env, CACHE_SETTING: "0", "STATIC_ROOT": str(workdir / "static-base")}
        argv = [GUNICORN, "--config", str(base / "gunicorn.conf.py"), "slugline.wsgi"]
        contenders.append(Contender(Server(BASE, size, argv, env, base), page, SLUGLINE_COMMENT, f"cold, {base}"))
    if "peer-xtd" in plan.servers:
        env = peer_env(PEER_VAR / f"xtd-{size}.sqlite3", secrets.token_urlsafe(50))
        build_peer(data, env)
        peer = [str(PEER_VENV / "bin" / "gunicorn"), "--config", str(GUNICORN_CONF), "xtd_site.wsgi"]
        contenders.append(
            Contender(
                Server("peer-xtd", size, peer, env, XTD_SITE),
                Expected(data.comments),
                XTD_COMMENT,
                "whole tree (xtd has no comment pages)",
            )
        )
    if "limit" in plan.servers:
        limit = [
            GUNICORN,
            "--config",
            str(GUNICORN_CONF),
            "--pythonpath",
            str(REPO / "bench" / "peer"),
            "limit_app:application",
        ]
        env = {**slugline_env, "LIMIT_POST_SLUG": SLUG}
        contenders.append(Contender(Server("limit", size, limit, env, REPO), page, SLUGLINE_COMMENT))
    return contenders


def run_size(
    size: int, *, plan: Plan, seed: int, uri: str, workdir: Path, has_cache: bool, base: Path | None = None
) -> list[Row]:
    """Build the data, start the servers (idle ones cost nothing), measure, clean up."""
    print(f"\n== {size:,} comments ==", flush=True)
    data = build_slugline(size, seed=seed)
    contenders: list[Contender] = []
    try:
        contenders = contenders_for(size, data, plan=plan, uri=uri, workdir=workdir, has_cache=has_cache,
                                    base=base)
        # Now, not once per run: others may add static files to the working tree meanwhile.
        prepare_slugline(workdir, uri)
        if base is not None:
            prepare_slugline(workdir, uri, tree=base, static=workdir / "static-base")
        for contender in contenders:
            start(contender, plan=plan)
        run_rounds(contenders, plan=plan)
    finally:
        for contender in contenders:
            contender.server.stop()
        drop_scratch(data.mongodb_name)
    return [Row(size, c.server.name, c.result, c.shown, c.cpu, max(c.round_rps), c.note) for c in contenders]


def prepare_slugline(workdir: Path, uri: str, *, tree: Path = REPO, static: Path | None = None) -> None:
    """Django's database and the collected static files for the Slugline servers (of
    the work tree `tree`)."""
    env = {
        **os.environ,
        "MONGODB_URI": uri,
        "DATABASE_URL": f"sqlite:///{workdir / 'db.sqlite3'}",
        "STATIC_ROOT": str(static or workdir / "static"),
        "DJANGO_SETTINGS_MODULE": "slugline.settings",
    }
    for args in (["migrate", "--noinput", "-v0"], ["collectstatic", "--noinput", "-v0"]):
        done = subprocess.run(
            [PYTHON, "manage.py", *args], cwd=tree, env=env, capture_output=True, text=True, timeout=600
        )
        if done.returncode:
            raise RuntimeError(f"manage.py {args[0]} failed: {done.stderr.strip()[-1000:]}")


# --- Report -----------------------------------------------------------------------


@dataclass
class Row:
    size: int
    server: str
    result: Result
    shown: int
    cpu: Cpu
    best_rps: float
    note: str = ""


def ratio(a: Row | None, b: Row | None) -> str:
    """a/b in req/s over all rounds, and (in brackets) in the best round of each."""
    if not a or not b:
        return "-"
    if not b.result.rps or not b.best_rps:
        return "inf (0 good)" if a.result.rps else "0/0 (no good)"
    return f"{a.result.rps / b.result.rps:.2f}x ({a.best_rps / b.best_rps:.2f}x)"


def print_report(rows: list[Row], *, has_cache: bool) -> None:
    print(f"\n{'size':>7}  {'server':<14}{'req/s':>7}{'best':>7}{'p50 ms':>9}{'p95 ms':>9}{'errors':>7}"
          f"{'answers':>8}{'shown':>7}{'app ms':>8}{'db cores':>9}{'others':>7}  note")
    for row in rows:
        r = row.result
        print(f"{row.size:>7,}  {row.server:<14}{r.rps:>7.1f}{row.best_rps:>7.1f}{r.ms(0.5):>9.1f}{r.ms(0.95):>9.1f}"
              f"{r.errors:>7}{r.responses:>8}{row.shown:>7,}{row.cpu.app / max(1, r.responses) * 1000:>8.1f}"
              f"{row.cpu.db / r.seconds:>9.2f}{row.cpu.others / r.seconds:>7.2f}  {row.note}")
    for row in rows:
        if row.result.errors:
            print(f"errors at {row.size:,} on {row.server}: {row.result.describe_errors()}")
    print("req/s: good answers (200 with the expected comments: the first threaded page's, comment by\n"
          "comment, or xtd's whole tree) per second over all rounds; best: in the\n"
          "round least disturbed. app ms: CPU per answer of the server's own processes. db cores: CPU of\n"
          "the MongoDB server meanwhile, when it is a FerretDB we know (it also serves anything else using\n"
          "it: the peer's and the limit's rows, which send it nothing, show that background). others: cores\n"
          "busy with every other process but this client meanwhile.")
    print(f"\n{'size':>7}  {'cold/peer':>16}{'warm/peer':>16}{'cold/limit':>16}{'warm/limit':>16}"
          f"{'base/limit':>16}{'cold/base':>16}   req/s ratios (best rounds)")
    by = {(row.size, row.server): row for row in rows}
    for size in sorted({row.size for row in rows}):
        cold, warm = by.get((size, "slugline-cold")), by.get((size, "slugline-warm"))
        peer, limit = by.get((size, "peer-xtd")), by.get((size, "limit"))
        base = by.get((size, BASE))
        print(f"{size:>7,}  {ratio(cold, peer):>16}{ratio(warm, peer):>16}{ratio(cold, limit):>16}"
              f"{ratio(warm, limit):>16}{ratio(base, limit):>16}{ratio(cold, base):>16}")
    if not has_cache:
        print(f"warm = cold (no cache yet): the comments app's settings have no {CACHE_SETTING}, "
              "so both Slugline runs serve the page the same way.")
    print_targets(by)


def print_targets(by: dict) -> None:
    """The figures this benchmark exists to check (figures, not tests): each target at
    each size measured, met or not."""

    def figure(label: str, a: str, b: str, size: int, goal: float) -> str:
        a, b = by.get((size, a)), by.get((size, b))
        if not (a and b):
            return f"  {label} at {size:,}: not measured"
        if not (b.result.rps and b.best_rps):
            return f"  {label} at {size:,}: {b.server} gave no good answer ({a.server}: {a.result.rps:.1f} req/s)"
        value = a.result.rps / b.result.rps
        return (f"  {label} at {size:,}: {value:.2f}x, {'met' if value >= goal else 'NOT met'} "
                f"(best rounds: {a.best_rps / b.best_rps:.2f}x)")

    sizes = sorted({size for size, _ in by})
    print("\ntargets (figures, not tests):")
    for label, server, against, at, goal in TARGETS:
        for size in at or sizes:
            print(figure(label, server, against, size, goal))


def cpu_model() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    lines = cpuinfo.read_text().splitlines() if cpuinfo.exists() else []
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), "")


def comments_cache_default() -> int | None:
    """The default of CACHE_SETTING, None if the comments app has no such setting. Its
    settings and their defaults live in comments/conf.py: Django's settings hold one
    only when the environment sets it."""
    return next((spec.default for spec in fields(conf.CommentsSettings)
                 if spec.metadata["name"] == CACHE_SETTING), None)  # fmt: skip


def cache_fact() -> str:
    default = comments_cache_default()
    if default is None:
        return f"cache: {CACHE_SETTING} does not exist yet in the comments app's settings"
    return (f"cache: {CACHE_SETTING} exists in the comments app's settings (comments/conf.py, "
            f"default {default} s); slugline-cold sets it to 0, slugline-warm to 300")


def print_facts(uri: str, plan: Plan, peer: dict[str, str], *, own: bool) -> None:
    info = mongo.get_client().server_info()
    ferret = (info.get("ferretdb") or {}).get("version") or ("?" if "ferretdb" in str(info).lower() else "")
    g = gunicorn_env()
    print(f"machine: {os.cpu_count()} cores ({cpu_model()}), Python {platform.python_version()}; "
          f"the client, the servers and the database share these cores, with whatever else runs")
    print(f"gunicorn {version('gunicorn')}, Slugline's gunicorn.conf.py for all four: {g['WEB_CONCURRENCY']} "
          f"{g['GUNICORN_WORKER_CLASS']} workers x {g['GUNICORN_THREADS']} thread, timeout "
          f"{g['GUNICORN_TIMEOUT']} s, max requests {g['GUNICORN_MAX_REQUESTS']}")
    where = "a database of its own (--own-db)" if own else "the dev database"
    if ferret:
        print(f"Slugline's MongoDB: {where} at {uri}, FerretDB {ferret} on PostgreSQL with DocumentDB "
              f"(reports MongoDB {info.get('version')})")
    else:
        print(f"Slugline's MongoDB: {uri}, MongoDB {info.get('version')}")
    print(f"peer: django-comments-xtd {peer.get('django-comments-xtd')} with django-contrib-comments "
          f"{peer.get('django-contrib-comments')}, Django {peer.get('Django')}; its database is SQLite "
          f"(Django's sqlite3 backend, a file under var/peer/)")
    print(f"page: /posts/<slug>/; Slugline and the limit show the first threaded page ({conf.get().per_page} "
          f"entries, COMMENTS_PER_PAGE; replies below the indent limit behind \"Continue this thread\"), "
          f"checked comment by comment against comments.reading.listers.list_comments; xtd renders the whole "
          f"tree on every request (it has no comment pages)")
    print(f"load: {plan.threads} client threads, closed loop, {plan.seconds:g} s or {plan.requests} requests "
          f"per server and size in {plan.rounds} interleaved round(s), after {plan.warmup:g} s of warm-up; "
          f"loopback only")
    print(cache_fact())


# --- Main -------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,10000", help="comments on the post, comma-separated")
    parser.add_argument("--threads", type=int, default=4, help="client threads")
    parser.add_argument("--seconds", type=float, default=10, help="load per server and size, at most")
    parser.add_argument("--requests", type=int, default=5000, help="requests per server and size, at most")
    parser.add_argument("--warmup", type=float, default=3, help="seconds of warm-up of each server")
    parser.add_argument(
        "--rounds", type=int, default=2, help="interleaved rounds the seconds and requests are split into"
    )
    parser.add_argument("--timeout", type=float, default=60, help="seconds one request may take")
    parser.add_argument("--servers", default=",".join(SERVERS), help=f"a subset of {','.join(SERVERS)}")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--base", type=Path, default=None,
        help=f"another work tree of Slugline (a change's base) to serve as {BASE} beside the others, "
        "on the same data: its before and after in one run",
    )  # fmt: skip
    parser.add_argument(
        "--own-db", action="store_true",
        help="start a FerretDB of its own (in a temporary folder) instead of using the dev database, "
        "so that nobody else's queries share it",
    )  # fmt: skip
    return parser.parse_args()


def main() -> int:
    args = parse_args()
    sizes = [int(size.replace("_", "")) for size in args.sizes.split(",") if size.strip()]
    servers = tuple(name.strip() for name in args.servers.split(",") if name.strip())
    unknown = set(servers) - set(SERVERS)
    if unknown:
        sys.exit(f"unknown servers: {', '.join(sorted(unknown))}")
    base = args.base.resolve() if args.base else None
    if base is not None and not (base / "slugline" / "wsgi.py").is_file():
        sys.exit(f"--base {base}: no Slugline work tree there (slugline/wsgi.py)")
    # SIGTERM unwinds like Ctrl-C, so servers stop and scratch databases are dropped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    database = DevDB(root=Path(tempfile.mkdtemp(prefix="slugline-peer-db-"))) if args.own_db else DevDB()
    if args.own_db or not os.environ.get("MONGODB_URI"):
        devdb = database.start()[0]
    else:
        devdb = database.running()
    uri = devdb.uri if args.own_db else os.environ.get("MONGODB_URI") or devdb.uri
    known = devdb is not None and devdb.uri == uri
    db_pids = frozenset({devdb.pid, database.postmaster_pid()} - {None}) if known else database_pids(uri)
    plan = Plan(args.threads, args.seconds, args.requests, args.warmup, args.timeout, max(1, args.rounds),
                servers, db_pids)  # fmt: skip
    own = database if args.own_db else None
    settings.MONGODB_URI = uri
    has_cache = comments_cache_default() is not None
    peer = ensure_peer_venv() if "peer-xtd" in servers else {}
    print_facts(uri, plan, peer, own=bool(own))
    workdir = Path(tempfile.mkdtemp(prefix="slugline-peer-"))
    LOGS.mkdir(parents=True, exist_ok=True)
    for old in LOGS.glob("*.log"):
        old.unlink()
    rows: list[Row] = []
    try:
        for size in sizes:
            rows += run_size(size, plan=plan, seed=args.seed, uri=uri, workdir=workdir, has_cache=has_cache,
                             base=base)
    finally:
        if rows:
            print_report(rows, has_cache=has_cache)
        shutil.rmtree(workdir, ignore_errors=True)
        if own:
            own.stop()
            shutil.rmtree(own.root, ignore_errors=True)
    return 1 if any(row.result.errors for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
