"""Uploading an image: check and process it (media/images.py), then store it
(media/library.py) on a time budget of its own. Plain functions; no request.

A worker process decodes one picture at a time (`DECODING`): a second upload that
arrives while one is decoded is refused at once (`Busy`, which the dashboard answers
with 503 and Retry-After) instead of doubling the process's memory."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from django.conf import settings
from django.utils.translation import gettext_noop

from infra.mongo import outside_request_budget
from media import images, library

ALREADY_IN_LIBRARY = gettext_noop("This picture is in the library already, as “%(name)s”.")
BUSY = gettext_noop(
    "Another picture is being processed on this server right now. Send this one again in a few seconds."
)
RETRY_AFTER_SECONDS = 5
DECODING = threading.Lock()


class Busy(images.ImageRefused):
    """This process is decoding another upload; try again in RETRY_AFTER_SECONDS."""

    def __init__(self):
        super().__init__(BUSY, "busy")


def limits() -> images.Limits:
    """The upload limits in force (settings, read now)."""
    return images.Limits(
        max_bytes=settings.MEDIA_UPLOAD_MAX_BYTES, max_pixels=settings.MEDIA_MAX_PIXELS,
        max_side=settings.MEDIA_MAX_SIDE, min_side=settings.MEDIA_MIN_SIDE,
        max_decode_bytes=settings.MEDIA_DECODE_MAX_BYTES,
    )


@contextlib.contextmanager
def one_decode_at_a_time() -> Iterator[None]:
    """Hold this process's decoding turn, or raise Busy when another upload has it."""
    if not DECODING.acquire(blocking=False):
        raise Busy()
    try:
        yield
    finally:
        DECODING.release()


def upload_image(*, data: bytes, name: str, alt: str, decorative: bool, caption: str = "",
                 uploaded_by: str) -> library.Image:
    """A new library image from an upload's bytes; ImageRefused says why not (a
    refused upload stores nothing)."""
    existing = library.get_by_key(images.content_key(data))
    if existing is not None:
        raise images.ImageRefused(ALREADY_IN_LIBRARY, "duplicate", {"name": existing.name})
    processed = images.process(data, limits=limits(), decoding=one_decode_at_a_time)
    try:
        return outside_request_budget(
            lambda: library.add_image(processed=processed, name=name, alt=alt, decorative=decorative,
                                      caption=caption, uploaded_by=uploaded_by),
            seconds=settings.MEDIA_STORE_SECONDS,
        )
    except library.AlreadyStored as exc:
        raise images.ImageRefused(ALREADY_IN_LIBRARY, "duplicate", {"name": exc.image.name}) from None
