"""gunicorn settings, from the environment (see README.md, "Settings").

- Workers: WEB_CONCURRENCY processes of GUNICORN_WORKER_CLASS (sync by default:
  pages are short and CPU-bound; MongoDB calls are bounded by their budgets).
- Timeouts: a worker is killed only after GUNICORN_TIMEOUT (30 s), far beyond the
  MongoDB budget of a request (MONGODB_REQUEST_BUDGET_MS, 1.5 s), so a slow or
  absent database degrades pages instead of getting workers killed.
- `kill -HUP <master>` reloads gracefully: new workers start, old ones finish their
  requests (bench/faults.py hup checks that no request fails).
- Workers are recycled after GUNICORN_MAX_REQUESTS (with jitter, so they do not all
  restart at once).
- Logs go to stdout; each request is one logfmt line with its request id (set by
  cms.middleware.RequestIdMiddleware and sent back as X-Request-Id), status and duration.
"""

import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND") or f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", min(4, multiprocessing.cpu_count() * 2)))
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "sync")
threads = int(os.environ.get("GUNICORN_THREADS", "1"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "30"))
keepalive = 5
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "1000"))
max_requests_jitter = int(os.environ.get("GUNICORN_MAX_REQUESTS_JITTER", "100"))
accesslog = "-"
errorlog = "-"
access_log_format = (
    'at=request request_id=%({x-request-id}o)s method=%(m)s path="%(U)s" query="%(q)s" '
    'status=%(s)s bytes=%(B)s duration_ms=%(M)s remote=%(h)s agent="%(a)s"'
)
