"""The API's limits, before any endpoint runs: bounded request bodies (413), a rate
limit per IP address counted in MongoDB so every worker and machine shares it (429
with Retry-After), and CORS for the origins API_CORS_ORIGINS allows, on the read
endpoints only (GET and HEAD; no credentials: a page elsewhere reads what any reader
sees). Only paths under /api/ are touched."""

from __future__ import annotations

import logging
import time

from django.http import HttpResponse
from django.utils.translation import gettext, gettext_noop
from pymongo.errors import PyMongoError

from api import conf, problems
from comments import limits
from infra import clients, mongo

PREFIX = "/api/"
TOO_LARGE = gettext_noop("The request body is larger than {limit} bytes.")
TOO_MANY = gettext_noop("Too many requests from your address. Please wait {seconds} seconds, then try again.")
READS = ("GET", "HEAD")
# Tests replace this to move from one rate window to the next without waiting.
clock = time.time
# A window's counts are kept this long past its end (app servers' clocks may differ).
EXPIRY_MARGIN = 300

log = logging.getLogger(__name__)


def _too_large(request, limit: int) -> bool:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0) > limit
    except ValueError:
        return True


def admitted(*, ip: str, now: float | None = None) -> int | None:
    """Count one API request from `ip`: None if admitted, else the seconds until its
    window ends. With MongoDB unreachable the request is let through (logged)."""
    current = conf.get()
    if current.rate_per_ip <= 0 or not ip:
        return None
    now = clock() if now is None else now
    window = int(now // current.rate_window)
    ends = (window + 1) * current.rate_window
    try:
        ok = limits.take_slot(key=f"api:ip:{ip}", window=window, limit=current.rate_per_ip,
                              expires=ends + EXPIRY_MARGIN)
    except PyMongoError as exc:
        if not mongo.is_outage(exc):
            raise
        log.warning("API rate limit not counted, MongoDB unreachable: %s", ip)
        return None
    return None if ok else int(ends - now) + 1


class ApiLimitsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith(PREFIX):
            return self.get_response(request)
        current = conf.get()
        origin = request.headers.get("Origin", "")
        allowed = bool(origin) and origin in current.cors_origins
        if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
            return self._preflight(request, origin if allowed else None)
        if _too_large(request, current.max_body_bytes):
            return problems.problem(413, gettext(TOO_LARGE).format(limit=current.max_body_bytes), code="too_large")
        wait = admitted(ip=clients.client_ip(request))
        if wait is not None:
            response = problems.problem(429, gettext(TOO_MANY).format(seconds=wait), code="rate_limited",
                                        retry_after=wait)
        else:
            response = self.get_response(request)
        if allowed and request.method in READS:
            response["Access-Control-Allow-Origin"] = origin
            response["Access-Control-Expose-Headers"] = "ETag, Retry-After"
        if current.cors_origins:
            response["Vary"] = ", ".join(filter(None, [response.get("Vary", ""), "Origin"]))
        return response

    def _preflight(self, request, origin: str | None):
        """A browser asking before a cross-origin read: allowed origins may GET and HEAD
        with the caching and language headers; nothing else is allowed."""
        response = HttpResponse(status=204)
        wanted = request.headers.get("Access-Control-Request-Method", "")
        if origin is not None and wanted in READS:
            response["Access-Control-Allow-Origin"] = origin
            response["Access-Control-Allow-Methods"] = "GET, HEAD"
            response["Access-Control-Allow-Headers"] = "If-None-Match, Accept-Language"
            response["Access-Control-Max-Age"] = "600"
        response["Vary"] = "Origin"
        return response
