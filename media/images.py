"""Turning an uploaded file into safe, metadata-free renditions. Pure: bytes in,
bytes out, no database and no request.

Only JPEG, PNG, WebP and GIF (its first frame) are opened: Pillow is told so, so an
SVG, a PDF or a file that only claims to be a picture is refused before any decoder
runs. The header's size is checked against our limits before a pixel is decoded
(Pillow's own bomb guard is a higher, last line). Nothing of the upload is stored as
sent: every rendition is encoded anew from the pixels, after the EXIF orientation
is applied, so no EXIF (GPS position, camera serial), XMP, ICC-borne comment or
bytes appended to the file (a polyglot's payload) reach readers.
"""

from __future__ import annotations

import hashlib
import io
import math
import warnings
from dataclasses import dataclass

from django.utils.translation import gettext_noop
from PIL import ExifTags, Image, ImageOps, UnidentifiedImageError

from media.formats import CONTENT_TYPES

# The formats Pillow may open (its names) and their Content-Types.
ACCEPTED_FORMATS = ("JPEG", "PNG", "WEBP", "GIF")
# Widths every image is served at (those below its own width, and its own width
# capped at the largest): never upscaled.
WIDTHS = (320, 640, 1024, 1600)
WEBP_QUALITY = 80
JPEG_QUALITY = 82

# Messages for the editor (translated where they are shown; tests compare them).
NOT_AN_IMAGE = gettext_noop(
    "This file is not a picture Slugline accepts: upload a JPEG, PNG, WebP or GIF image "
    "(SVG and other formats are refused)."
)
DAMAGED = gettext_noop("This picture is damaged or incomplete (truncated), so it cannot be shown.")
TOO_LARGE_FILE = gettext_noop("This file is %(size)s MB; pictures can be at most %(limit)s MB.")
TOO_MANY_PIXELS = gettext_noop(
    "This picture has %(pixels)s megapixels; pictures can have at most %(limit)s megapixels."
)
FAR_TOO_MANY_PIXELS = gettext_noop(
    "This picture has far more pixels than the %(limit)s megapixels pictures can have."
)
TOO_WIDE = gettext_noop(
    "This picture is %(width)d × %(height)d pixels; neither side can be more than %(limit)d pixels."
)
TOO_SMALL = gettext_noop(
    "This picture is %(width)d × %(height)d pixels; both sides must be at least %(limit)d pixels."
)
EMPTY_FILE = gettext_noop("This file is empty.")


class ImageRefused(ValueError):
    """An upload that cannot become a library image; `message` % `params` says why."""

    def __init__(self, message: str, code: str, params: dict | None = None):
        super().__init__(message % (params or {}))
        self.message, self.code, self.params = message, code, params or {}


@dataclass(frozen=True)
class Limits:
    max_bytes: int
    max_pixels: int
    max_side: int
    min_side: int


@dataclass(frozen=True)
class Rendition:
    width: int
    height: int
    ext: str  # "webp", "jpg" or "png"
    data: bytes

    @property
    def content_type(self) -> str:
        return CONTENT_TYPES[self.ext]


@dataclass(frozen=True)
class Processed:
    """An accepted upload: its content key (a digest of the bytes sent), its size as
    shown (orientation applied, capped at the largest width) and its renditions."""

    key: str
    width: int
    height: int
    fallback: str  # "jpg" or "png": what browsers without WebP get
    renditions: tuple[Rendition, ...]


def content_key(data: bytes) -> str:
    """The library key of an upload: the first 32 hex digits of its SHA-256."""
    return hashlib.sha256(data).hexdigest()[:32]


def rendition_widths(width: int) -> list[int]:
    """The widths an image `width` pixels wide is served at: the standard widths
    below it, then its own (capped at the largest standard width)."""
    top = min(width, WIDTHS[-1])
    return [w for w in WIDTHS if w < top] + [top]


def scaled_height(*, width: int, height: int, to_width: int) -> int:
    return max(1, round(height * to_width / width))


def process(data: bytes, *, limits: Limits) -> Processed:
    """Check an upload against `limits` and make its renditions; ImageRefused
    says why when it cannot be."""
    check_size(len(data), limits=limits)
    picture = _open(data, limits=limits)
    fallback = "png" if picture.format in ("PNG", "GIF") or _has_alpha(picture) else "jpg"
    pixels = _decoded(picture)
    width, height = pixels.size
    renditions = []
    for target in sorted(rendition_widths(width), reverse=True):
        size = (target, scaled_height(width=width, height=height, to_width=target))
        pixels = pixels if pixels.size == size else pixels.resize(size, Image.Resampling.LANCZOS)
        renditions += [_encode(pixels, "webp"), _encode(pixels, fallback)]
    top = renditions[0]
    return Processed(
        key=content_key(data), width=top.width, height=top.height, fallback=fallback,
        renditions=tuple(sorted(renditions, key=lambda r: (r.width, r.ext))),
    )


def check_size(size: int, *, limits: Limits) -> None:
    if size == 0:
        raise ImageRefused(EMPTY_FILE, "empty")
    if size > limits.max_bytes:
        raise ImageRefused(
            TOO_LARGE_FILE, "file_too_large",
            {"size": _megabytes(size), "limit": _megabytes(limits.max_bytes)},
        )


def check_header(data: bytes, *, limits: Limits) -> None:
    """What `process` refuses before decoding a pixel (format, dimensions): so a form
    refused for another field says so too, and keeps only a picture it can take."""
    _open(data, limits=limits).close()


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f}".removesuffix(".0")


def _open(data: bytes, *, limits: Limits) -> Image.Image:
    """The picture, its header read and its size checked; no pixel decoded yet."""
    try:
        with warnings.catch_warnings():
            # Our limit (below) is lower than the size Pillow warns at.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            picture = Image.open(io.BytesIO(data), formats=ACCEPTED_FORMATS)
    except Image.DecompressionBombError:
        raise ImageRefused(FAR_TOO_MANY_PIXELS, "too_many_pixels",
                           {"limit": f"{limits.max_pixels / 1e6:g}"}) from None
    except UnidentifiedImageError:
        raise ImageRefused(NOT_AN_IMAGE, "not_an_image") from None
    except (OSError, ValueError, SyntaxError):
        raise ImageRefused(DAMAGED, "damaged") from None
    width, height = picture.size
    if width * height > limits.max_pixels:
        raise ImageRefused(TOO_MANY_PIXELS, "too_many_pixels", {
            "pixels": f"{width * height / 1e6:.1f}", "limit": f"{limits.max_pixels / 1e6:g}",
        })
    if max(width, height) > limits.max_side:
        raise ImageRefused(TOO_WIDE, "too_wide", {"width": width, "height": height, "limit": limits.max_side})
    if min(width, height) < limits.min_side:
        raise ImageRefused(TOO_SMALL, "too_small", {"width": width, "height": height, "limit": limits.min_side})
    return picture


def _has_alpha(picture: Image.Image) -> bool:
    return picture.mode in ("RGBA", "LA", "PA") or "transparency" in picture.info


def _decoded(picture: Image.Image) -> Image.Image:
    """The first frame's pixels, upright (EXIF orientation applied), in RGB or RGBA,
    no wider than the largest rendition. A JPEG is decoded at a reduced scale when
    it is much larger (`draft`): a 40-megapixel photo never needs its full pixels."""
    try:
        picture.seek(0)
        transposed = picture.getexif().get(ExifTags.Base.Orientation, 1) in (5, 6, 7, 8)
        width, height = picture.size
        final_width = height if transposed else width
        if picture.format == "JPEG" and final_width > WIDTHS[-1]:
            scale = WIDTHS[-1] / final_width
            picture.draft("RGB", (math.ceil(width * scale), math.ceil(height * scale)))
        picture.load()
        upright = ImageOps.exif_transpose(picture)
        mode = "RGBA" if _has_alpha(picture) else "RGB"
        pixels = upright.convert(mode)
    except (OSError, ValueError, SyntaxError, EOFError):
        raise ImageRefused(DAMAGED, "damaged") from None
    if pixels.width > WIDTHS[-1]:
        size = (WIDTHS[-1], scaled_height(width=pixels.width, height=pixels.height, to_width=WIDTHS[-1]))
        pixels = pixels.resize(size, Image.Resampling.LANCZOS)
    return pixels


def _encode(pixels: Image.Image, ext: str) -> Rendition:
    """One rendition, with no metadata at all (nothing is passed to the encoder)."""
    out = io.BytesIO()
    if ext == "webp":
        pixels.save(out, "WEBP", quality=WEBP_QUALITY, method=4)
    elif ext == "png":
        pixels.save(out, "PNG", optimize=True)
    else:
        pixels.convert("RGB").save(out, "JPEG", quality=JPEG_QUALITY, optimize=True, progressive=True)
    return Rendition(width=pixels.width, height=pixels.height, ext=ext, data=out.getvalue())
