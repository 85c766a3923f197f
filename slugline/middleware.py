import logging
import re
import uuid

import pymongo
from django.conf import settings
from django.http import UnreadablePostError
from django.shortcuts import render
from django.utils.translation import gettext, gettext_noop

from infra import mongo, uploads

logger = logging.getLogger(__name__)

UNAVAILABLE_TITLE = gettext_noop("Temporarily unavailable")
UNAVAILABLE = gettext_noop("The site's database is not answering right now. Please try again in a minute.")
RETRY_AFTER_SECONDS = 30


class MongoBudgetMiddleware:
    """Gives each request's MongoDB work one time budget (pymongo's `timeout()`), and
    answers 503 in the site's layout when the database is unreachable or too slow.

    The budget is for the database: a request's body is received first
    (`receive_body`), at the sender's pace, so a slow upload is not timed as if the
    database were slow. Views that can still show something useful without MongoDB
    (an article without its comments) catch outages themselves; this is the answer
    for the rest.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        receive_body(request)
        with pymongo.timeout(settings.MONGODB_REQUEST_BUDGET_MS / 1000):
            return self.get_response(request)

    def process_exception(self, request, exception):
        if not mongo.is_outage(exception):
            return None
        logger.warning("MongoDB unavailable on %s: %s", request.path, exception.__class__.__name__)
        return unavailable_page(request)


FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")


def receive_body(request) -> None:
    """Read the request's body now: a form POST is parsed as Django parses it for the
    view (files spooled by its upload handlers, and bounded when the view says how:
    infra/uploads.py), any other body is read whole when
    Django would keep it in memory (DATA_UPLOAD_MAX_MEMORY_SIZE). A body that
    cannot be parsed raises as it would in the view (400); one whose sender left is
    taken as empty, as CsrfViewMiddleware takes it."""
    try:
        if request.method == "POST" and request.content_type in FORM_TYPES:
            if request.content_type == "multipart/form-data":
                uploads.install(request)  # a file past its view's limit stops as it arrives
            request.POST  # noqa: B018 - parsed once; the view and CSRF get this copy
        elif 0 < _content_length(request) <= (settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0):
            request.body  # noqa: B018 - read once; the view gets this copy
    except UnreadablePostError:
        pass


def _content_length(request) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def unavailable_page(request, template="error.html", context=None):
    context = {"error_title": gettext(UNAVAILABLE_TITLE), "error_text": gettext(UNAVAILABLE), **(context or {})}
    response = render(request, template, context, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class RequestIdMiddleware:
    """Gives each request an id (the caller's X-Request-Id when it is sane, else a new
    one), available as `request.request_id` and sent back as X-Request-Id, so the
    access log line and any error can be matched up."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        given = request.headers.get("X-Request-Id", "")
        request.request_id = given if _SANE_ID.fullmatch(given) else uuid.uuid4().hex
        response = self.get_response(request)
        response["X-Request-Id"] = request.request_id
        return response


_SANE_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")
