"""Members' pictures (the avatars beside their comments): an upload made into small
squares by the media pipeline (media/images.py: the same checks before any pixel is
decoded, one decoding at a time per process, no metadata kept), stored as a library
image of kind "member" (media/library.py: GridFS, served by media/views.py under
`/media/<key>/<side>.<ext>`, cached for a year and never changed), and never listed or
searched in the editors' library.

Its key is a digest of the member's id and the bytes sent: two members' copies of one
picture are two images (removing one leaves the other), and a member who sends the
same picture again gets the one they have."""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.conf import settings
from django.urls import reverse

from infra.mongo import outside_request_budget
from media import images, library, services

# The squares made (CSS pixels 48, and 96 for screens of two device pixels per CSS pixel).
SIDES = (48, 96)
KIND = "member"


def limits() -> images.Limits:
    """The limits of a member's picture: the library's, with its own size limit
    (AVATAR_UPLOAD_MAX_BYTES), and both sides at least the largest square."""
    return replace(services.limits(), max_bytes=settings.AVATAR_UPLOAD_MAX_BYTES, min_side=SIDES[-1])


def picture_key(user_id: int, data: bytes) -> str:
    """The library key of member `user_id`'s picture made from `data`."""
    return images.content_key(f"member:{int(user_id)}:".encode() + data)


def upload(*, data: bytes, user_id: int) -> library.Image:
    """Member `user_id`'s picture from an upload's bytes (the one they have when they
    sent these bytes before); ImageRefused says why not, and then nothing is stored."""
    key = picture_key(user_id, data)
    existing = library.get_by_key(key)
    if existing is not None:
        return existing
    processed = images.process(data, limits=limits(), decoding=services.one_decode_at_a_time, squares=SIDES)
    processed = replace(processed, key=key)
    try:
        return outside_request_budget(
            lambda: library.add_image(processed=processed, name=f"member {int(user_id)}", alt="", decorative=True,
                                      caption="", uploaded_by=f"member:{int(user_id)}", kind=KIND),
            seconds=settings.MEDIA_STORE_SECONDS,
        )
    except library.AlreadyStored as exc:
        return exc.image


def delete(key: str) -> bool:
    """Delete a member's picture, its files and this process's cached copies; whether
    there was one."""
    return outside_request_budget(lambda: library.delete_image(key=key), seconds=settings.MEDIA_STORE_SECONDS)


@dataclass(frozen=True)
class PictureUrls:
    """Where browsers load a member's picture: `src`, the smaller square in its JPEG or
    PNG; `srcset`, both squares in that format (1x, 2x); `webp_srcset`, both in WebP."""

    src: str
    srcset: str
    webp_srcset: str


def _url(key: str, side: int, ext: str) -> str:
    return reverse("media_rendition", args=[key, side, ext])


def urls(key: str, fallback: str) -> PictureUrls:
    """The addresses of picture `key`'s squares (`fallback`: its JPEG or PNG format),
    made without reading the database."""
    def srcset(ext: str) -> str:
        return ", ".join(f"{_url(key, side, ext)} {n}x" for n, side in enumerate(SIDES, start=1))

    return PictureUrls(src=_url(key, SIDES[0], fallback), srcset=srcset(fallback), webp_srcset=srcset("webp"))
