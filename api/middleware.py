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
from comments import api as comments_api
from infra import clients, mongo

PREFIX = "/api/"
TOO_LARGE = gettext_noop("The request body is larger than {limit} bytes.")
WRONG_METHOD = gettext_noop("This address does not take {method} requests.")
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


def count(*, key: str, limit: int) -> int | None:
    """Count one API request against `key` (limit per API_RATE_WINDOW; 0: no limit):
    None if admitted, else the seconds until its window ends. Counted in MongoDB
    (comments.api.take_rate_slot), so every worker shares it; with MongoDB unreachable the
    request is let through (logged)."""
    if limit <= 0:
        return None
    seconds = conf.get().rate_window
    now = clock()
    window = int(now // seconds)
    ends = (window + 1) * seconds
    try:
        ok = comments_api.take_rate_slot(key=key, window=window, limit=limit, expires=ends + EXPIRY_MARGIN)
    except PyMongoError as exc:
        if not mongo.is_outage(exc):
            raise
        log.warning("API rate limit not counted, MongoDB unreachable: %s", key)
        return None
    return None if ok else int(ends - now) + 1


def admitted(*, ip: str) -> int | None:
    """Count one API request from `ip` (`count`)."""
    if not ip:
        return None
    return count(key=f"api:ip:{ip}", limit=conf.get().rate_per_ip)


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
            response = self._answer(request)
        if allowed and request.method in READS:
            response["Access-Control-Allow-Origin"] = origin
            response["Access-Control-Expose-Headers"] = "ETag, Retry-After"
        if current.cors_origins:
            response["Vary"] = ", ".join(filter(None, [response.get("Vary", ""), "Origin"]))
        return response

    def _answer(self, request):
        """The endpoint's answer. HEAD is answered as GET without the body (django-ninja
        routes GET only), and a 405 is a problem that keeps its `Allow`."""
        head = request.method == "HEAD"
        if head:
            request.method = "GET"
        try:
            response = self.get_response(request)
        finally:
            request.method = "HEAD" if head else request.method
        if head and response.status_code != 304 and not response.streaming:
            response.content = b""
        if response.status_code == 405 and response.get("Content-Type") != problems.CONTENT_TYPE:
            allow = response.get("Allow", "")
            response = problems.problem(405, gettext(WRONG_METHOD).format(method=request.method),
                                        code="method_not_allowed")
            if allow:
                response["Allow"] = allow
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
