"""gunicorn settings, from the environment (see docs/reference.md).

- Workers: WEB_CONCURRENCY processes of GUNICORN_WORKER_CLASS (sync by default:
  pages are short and CPU-bound; MongoDB calls are bounded by their budgets).
- Timeouts: a worker is killed only after GUNICORN_TIMEOUT (30 s), far beyond the
  MongoDB budget of a request (MONGODB_REQUEST_BUDGET_MS, 1.5 s), so a slow or
  absent database degrades pages instead of getting workers killed.
- `kill -HUP <master>` reloads gracefully: new workers start, old ones finish their
  requests (bench/faults.py hup checks that no request fails).
- Workers are recycled after GUNICORN_MAX_REQUESTS (with jitter, so they do not all
  restart at once).
- Logs: each request is one logfmt line with its request id (set by
  slugline.middleware.RequestIdMiddleware and sent back as X-Request-Id), status and
  duration, written to GUNICORN_ACCESS_LOG: `-` (the default) is stdout, anything
  else a file (its folder is created); `make run` uses var/log/access.log. Every
  value taken from the request is escaped (backslash, quote and control characters
  as `\\\\`, `\\"`, `\\n`, `\\xNN`...), so no path, query or header can end its field or
  forge a line. Errors and gunicorn's own messages go to stderr, at
  GUNICORN_LOG_LEVEL (info; `make run`: warning).
- SLUGLINE_PUBLISH_EVERY=<seconds>: the master also runs
  `manage.py publish_scheduled --loop --every <seconds>` once it listens, and stops
  it when it stops (`make run` sets 15; unset, publish from cron instead).
- SLUGLINE_NOTIFY_EVERY=<seconds>: likewise `manage.py send_notifications --loop
  --every <seconds>`, notification mail from the outbox (`make run` sets 5; unset,
  run it from cron or as a process of its own: the Procfile's `mail:`).
- A graceful reload (SIGHUP) restarts the loops too (on the new code and settings);
  the loops are kept on the master's arbiter, not in this module, which gunicorn
  reads again on reload, so a stop after any number of reloads stops every loop.
"""

import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

from gunicorn.glogging import Logger, SafeAtoms

bind = os.environ.get("GUNICORN_BIND") or f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", min(4, multiprocessing.cpu_count() * 2)))
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "sync")
threads = int(os.environ.get("GUNICORN_THREADS", "1"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "30"))
keepalive = 5
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "1000"))
max_requests_jitter = int(os.environ.get("GUNICORN_MAX_REQUESTS_JITTER", "100"))
accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or "-"
if accesslog != "-":
    Path(accesslog).parent.mkdir(parents=True, exist_ok=True)
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
access_log_format = (
    'at=request request_id=%({x-request-id}o)s method=%(m)s path="%(U)s" query="%(q)s" '
    'status=%(s)s bytes=%(B)s duration_ms=%(M)s remote=%(h)s agent="%(a)s"'
)

_NAMED_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escaped(value: str) -> str:
    """`value` with backslash, quote and every unprintable character (CR, LF, NEL,
    U+2028...) written as an escape, so that it stays inside its quotes on one line."""
    return "".join(
        _NAMED_ESCAPES.get(char) or (char if char.isprintable() else char.encode("unicode_escape").decode())
        for char in value
    )


class EscapedAtoms(SafeAtoms):
    """gunicorn's atoms (missing ones read `-`), every string escaped; gunicorn's own
    SafeAtoms escapes quotes only, so `%0A` in a path (decoded) began a new line."""

    def __init__(self, atoms):
        dict.__init__(self, {key: escaped(value) if isinstance(value, str) else value
                             for key, value in atoms.items()})


class EscapingLogger(Logger):
    atoms_wrapper_class = EscapedAtoms


logger_class = EscapingLogger

# The loops the master runs beside its workers: each command, while its setting
# gives the seconds between rounds.
_LOOPS = {"SLUGLINE_PUBLISH_EVERY": "publish_scheduled", "SLUGLINE_NOTIFY_EVERY": "send_notifications"}
# Where the master keeps them: on its arbiter, which outlives a reload (this module is
# run again on SIGHUP, and a list here would start empty, forgetting the running loops).
_LOOPS_KEPT = "slugline_loops"


def _loops_of(server) -> list:
    if not hasattr(server, _LOOPS_KEPT):
        setattr(server, _LOOPS_KEPT, [])
    return getattr(server, _LOOPS_KEPT)


def _start_loops(server) -> None:
    manage = Path(__file__).resolve().with_name("manage.py")
    for setting, command in _LOOPS.items():
        every = os.environ.get(setting)
        if every:
            # Its own process, not a worker: gunicorn reaps it like one but ignores it.
            _loops_of(server).append(subprocess.Popen(
                [sys.executable, str(manage), command, "--loop", "--every", every], stdin=subprocess.DEVNULL))


def _stop_loops(server, *, wait: bool) -> None:
    """Ask every running loop to stop (each ends after its round in progress); with
    `wait`, until it has (killed after 10 s). The ones that ended are forgotten."""
    loops = _loops_of(server)
    for loop in loops:
        if loop.poll() is None:
            loop.terminate()
    for loop in loops if wait else []:
        try:
            loop.wait(timeout=10)
        except subprocess.TimeoutExpired:
            loop.kill()
            loop.wait()
    loops[:] = [loop for loop in loops if loop.poll() is None]


def when_ready(server):
    """Start the publishing and mail loops asked for; print `make run`'s banner."""
    _start_loops(server)
    if os.environ.get("SLUGLINE_BANNER"):
        print(os.environ["SLUGLINE_BANNER"], flush=True)


def on_reload(server):
    """A graceful reload: the loops start again beside the new workers. The old ones
    are not waited for (the master keeps reloading); running one beside its
    successor for a round is harmless: publishing and sending claim their work."""
    _stop_loops(server, wait=False)
    _start_loops(server)


def on_exit(server):
    """Stop the publishing and mail loops, those of earlier reloads too (Ctrl-C reached
    them too; SIGTERM to the master did not)."""
    _stop_loops(server, wait=True)
