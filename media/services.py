"""Uploading an image: check and process it (media/images.py), then store it
(media/library.py) on a time budget of its own. Plain functions; no request."""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext_noop

from infra.mongo import outside_request_budget
from media import images, library

ALREADY_IN_LIBRARY = gettext_noop("This picture is in the library already, as “%(name)s”.")


def limits() -> images.Limits:
    """The upload limits in force (settings, read now)."""
    return images.Limits(
        max_bytes=settings.MEDIA_UPLOAD_MAX_BYTES, max_pixels=settings.MEDIA_MAX_PIXELS,
        max_side=settings.MEDIA_MAX_SIDE, min_side=settings.MEDIA_MIN_SIDE,
    )


def upload_image(*, data: bytes, name: str, alt: str, decorative: bool, caption: str = "",
                 uploaded_by: str) -> library.Image:
    """A new library image from an upload's bytes; ImageRefused says why not (a
    refused upload stores nothing)."""
    existing = library.get_by_key(images.content_key(data))
    if existing is not None:
        raise images.ImageRefused(ALREADY_IN_LIBRARY, "duplicate", {"name": existing.name})
    processed = images.process(data, limits=limits())
    try:
        return outside_request_budget(
            lambda: library.add_image(processed=processed, name=name, alt=alt, decorative=decorative,
                                      caption=caption, uploaded_by=uploaded_by),
            seconds=settings.MEDIA_STORE_SECONDS,
        )
    except library.AlreadyStored as exc:
        raise images.ImageRefused(ALREADY_IN_LIBRARY, "duplicate", {"name": exc.image.name}) from None
