"""Files received no larger than their view takes. A view that takes an uploaded file
declares its limit in bytes (`@bounded(limit)`, `limit` read at each request); the
site's middleware, which receives every form's body before any view runs
(slugline/middleware.py, `receive_body`), then puts a `Bounded` handler first
(`install`), which stops receiving a file once it is past the limit: the rest of the
body is read and dropped, never spooled to memory or disk, and the file is missing
from `request.FILES`. The view asks `too_large(request)` to say why."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import HttpRequest
from django.urls import Resolver404, resolve

ATTRIBUTE = "upload_max_bytes"
KEPT = "_bounded_upload"
View = TypeVar("View", bound=Callable[..., Any])


class Bounded(FileUploadHandler):
    """Stops receiving an upload once it is larger than `limit` bytes; `too_large` then."""

    def __init__(self, request: HttpRequest, limit: int):
        super().__init__(request)
        self.limit, self.too_large = limit, False

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        if start + len(raw_data) > self.limit:
            self.too_large = True
            raise StopUpload(connection_reset=False)
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None


def bounded(limit: Callable[[], int]) -> Callable[[View], View]:
    """Declare the largest file the view takes (`limit()` bytes, read at each request);
    the decorators above it carry the mark (functools.wraps copies it)."""

    def mark(view: View) -> View:
        setattr(view, ATTRIBUTE, limit)
        return view

    return mark


def install(request: HttpRequest) -> None:
    """Before a form's body is parsed: bound its files if its view says how."""
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return
    limit = getattr(match.func, ATTRIBUTE, None)
    if limit is not None:
        handler = Bounded(request, int(limit()))
        request.upload_handlers.insert(0, handler)
        setattr(request, KEPT, handler)


def too_large(request: HttpRequest) -> bool:
    """Whether a file of the request was dropped for being over its view's limit."""
    handler = getattr(request, KEPT, None)
    return bool(handler is not None and handler.too_large)
