"""gunicorn.conf.py, plus cProfile around each request when PROFILE_OUT names a file.

bench/profile_cold.py serves the cold page and the limit with it: the worker skips
PROFILE_SKIP page requests (the warm-up), profiles every later one (CPU time) from `pre_request` to
`post_request` (the view, the templates and writing the answer; not accepting the
connection) and writes the stats to PROFILE_OUT when it exits. Meant for one worker
(WEB_CONCURRENCY=1): each worker would write the same file.
"""

import cProfile
import os
import time
from pathlib import Path

_SITE_CONF = Path(__file__).resolve().parents[2] / "gunicorn.conf.py"
exec(compile(_SITE_CONF.read_text(), str(_SITE_CONF), "exec"))

_OUT = os.environ.get("PROFILE_OUT")
_SKIP = int(os.environ.get("PROFILE_SKIP", "0"))
# CPU time, not wall time: waiting for MongoDB is not work.
_PROFILE = cProfile.Profile(time.process_time) if _OUT else None
_SEEN = [0]


def _profiled(req) -> bool:
    """Pages only: the starting script's polls of /healthz/ are neither counted nor profiled."""
    return _PROFILE is not None and not req.path.startswith("/healthz/")


def pre_request(worker, req):
    if _profiled(req):
        _SEEN[0] += 1
        if _SEEN[0] > _SKIP:
            _PROFILE.enable()


def post_request(worker, req, environ, resp):
    if _profiled(req):
        _PROFILE.disable()


def worker_exit(server, worker):
    if _PROFILE is not None:
        _PROFILE.dump_stats(_OUT)
