"""Turning an uploaded file into safe, metadata-free renditions. Pure: bytes in,
bytes out, no database and no request.

Only JPEG, PNG, WebP and GIF (its first frame) are opened: Pillow is told so, so an
SVG, a PDF or a file that only claims to be a picture is refused before any decoder
runs. The header's size is checked against our limits before a pixel is decoded
(Pillow's own bomb guard is a higher, last line), and so is the memory decoding it
would take (`memory_needed`): a small file of huge dimensions is refused before it
costs anything. What is decoded is reduced at once: a JPEG by its decoder (`draft`),
any other picture band by band (`Image.reduce`), so a worker holds the decoded frame
and a copy a few times smaller, never several full-size copies.

Nothing of the upload is stored as sent: every rendition is encoded anew from pixels
in a new image that carries no metadata, after the EXIF orientation is applied and
the colours are converted to sRGB through the upload's ICC profile (lcms, Pillow's
ImageCms), so no EXIF (GPS position, camera serial), XMP, ICC profile, JPEG comment,
PNG text chunk (tEXt, zTXt, iTXt) or bytes appended to the file (a polyglot's
payload) reach readers.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import ContextManager

from django.utils.translation import gettext_noop
from PIL import ExifTags, Image, ImageCms, UnidentifiedImageError

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
TOO_MUCH_MEMORY = gettext_noop(
    "This picture is %(width)d × %(height)d pixels: opening it would take %(needed)s MB of memory, "
    "more than the %(limit)s MB a picture may take. Upload a version with fewer pixels."
)

# What Pillow keeps per pixel of a decoded frame (its Storage.c): one byte in modes 1,
# L and P, two in I;16, four in every other mode (RGB included).
PIXEL_BYTES = {"1": 1, "L": 1, "P": 1, "I;16": 2, "I;16B": 2, "I;16L": 2}
# What libwebp holds beside the frame, in bytes per pixel: canvases of its own (RGBA)
# and the copy Pillow reads the frame from.
WEBP_DECODER_BYTES = 12
# A progressive JPEG keeps every DCT coefficient (two bytes each) of the whole picture,
# whatever the scale it is decoded at, until its last scan.
COEFFICIENT_BYTES = 2
# Rows of the decoded frame made sRGB and reduced at a time (times the reduction).
BAND_ROWS = 32
# The work at the largest rendition's size (a resized copy, the encoders' buffers), in
# bytes per pixel of that rendition.
RENDITION_BYTES = 8


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
    max_decode_bytes: int


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


def process(data: bytes, *, limits: Limits,
            decoding: Callable[[], ContextManager[object]] = contextlib.nullcontext,
            squares: tuple[int, ...] = ()) -> Processed:
    """Check an upload against `limits` and make its renditions; ImageRefused
    says why when it cannot be. The pixels are decoded and encoded inside
    `decoding()` (the caller's one-at-a-time rule), entered once the header passed.
    `squares`: instead of the standard widths, squares of these sides cut from the
    picture's middle (a member's picture), none wider than its shorter side."""
    check_size(len(data), limits=limits)
    picture = _open(data, limits=limits)
    fallback = "png" if picture.format in ("PNG", "GIF") or _has_alpha(picture) else "jpg"
    plan = _plan(picture)
    needed = memory_needed(picture, plan)
    if needed > limits.max_decode_bytes:
        raise ImageRefused(TOO_MUCH_MEMORY, "too_much_memory", {
            "width": plan.header[0], "height": plan.header[1],
            "needed": _megabytes(needed), "limit": _megabytes(limits.max_decode_bytes),
        })
    with decoding():
        pixels = _decoded(picture, plan)
        if squares:
            pixels = _middle_square(pixels)
        width, height = pixels.size
        targets = ([side for side in squares if side <= width] or [width]) if squares else rendition_widths(width)
        renditions = []
        for target in sorted(targets, reverse=True):
            size = (target, scaled_height(width=width, height=height, to_width=target))
            pixels = pixels if pixels.size == size else pixels.resize(size, Image.Resampling.LANCZOS)
            renditions += [_encode(pixels, "webp"), _encode(pixels, fallback)]
    top = renditions[0]
    return Processed(
        key=content_key(data), width=top.width, height=top.height, fallback=fallback,
        renditions=tuple(sorted(renditions, key=lambda r: (r.width, r.ext))),
    )


def _middle_square(pixels: Image.Image) -> Image.Image:
    """The largest square in the middle of `pixels`."""
    side = min(pixels.size)
    left, top = (pixels.width - side) // 2, (pixels.height - side) // 2
    return pixels.crop((left, top, left + side, top + side))


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


# EXIF orientations and how each is made upright (as ImageOps.exif_transpose does).
UPRIGHT = {
    2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
TURNED = (5, 6, 7, 8)  # the orientations that swap width and height


@dataclass(frozen=True)
class _Plan:
    """How a picture is decoded: its size in the header, its size once reduced and
    upright (as far as the header tells its orientation), the integer factor its
    frame is reduced by as it is made sRGB, and the mode it is reduced in (RGB, RGBA,
    or RGBa: RGBA premultiplied, which Pillow's reduce and resize would otherwise
    make a full-size copy for)."""

    header: tuple[int, int]
    size: tuple[int, int]
    factor: int
    mode: str


def _orientation(picture: Image.Image) -> int:
    """Its EXIF orientation (1 when it has none we know), from what has been read of
    the file so far: a PNG's getexif() would decode every pixel to look past them."""
    raw = picture.info.get("exif")
    if not raw:
        return 1
    exif = Image.Exif()
    try:
        exif.load(raw)
    except (OSError, ValueError, SyntaxError, EOFError, KeyError, TypeError):
        raise ImageRefused(DAMAGED, "damaged") from None
    orientation = exif.get(ExifTags.Base.Orientation, 1)
    return orientation if orientation in UPRIGHT else 1


def _upright_size(size: tuple[int, int], orientation: int) -> tuple[int, int]:
    """A stored size once upright and no wider than the largest rendition."""
    width, height = size[::-1] if orientation in TURNED else size
    if width <= WIDTHS[-1]:
        return width, height
    return WIDTHS[-1], scaled_height(width=width, height=height, to_width=WIDTHS[-1])


def _plan(picture: Image.Image) -> _Plan:
    """The plan for `picture`, its header read; a JPEG larger than the largest
    rendition is set to decode at a reduced scale (`draft`: a 40-megapixel photo
    never needs its full pixels), so that `picture.size` is then the reduced one."""
    header, orientation = picture.size, _orientation(picture)
    size = _upright_size(header, orientation)
    scale = size[0] / (header[1] if orientation in TURNED else header[0])
    if picture.format == "JPEG" and scale < 1:
        picture.draft("RGB", (math.ceil(header[0] * scale), math.ceil(header[1] * scale)))
    stored = size[::-1] if orientation in TURNED else size
    factor = max(1, int(picture.size[0] / stored[0] / 2))  # as Pillow's resize(reducing_gap=2)
    mode = "RGB"
    if _has_alpha(picture):  # premultiplied while it shrinks, as Pillow's reduce and resize want it
        mode = "RGBa" if stored != picture.size else "RGBA"
    return _Plan(header=header, size=size, factor=factor, mode=mode)


def memory_needed(picture: Image.Image, plan: _Plan) -> int:
    """The bytes that decoding `picture` as planned takes at most: its frame as Pillow
    holds it, what the decoder holds beside it, the reduced copy, a band on its way,
    and the work at the largest rendition's size."""
    width, height = picture.size
    pixel = PIXEL_BYTES.get(picture.mode, 4)
    frame = width * height * pixel
    if picture.format == "WEBP":
        frame += width * height * WEBP_DECODER_BYTES
    if picture.format == "JPEG" and picture.info.get("progressive"):
        sampling = [h * v for _, h, v, _ in picture.layer]  # type: ignore[attr-defined]
        coefficients = plan.header[0] * plan.header[1] * sum(sampling) / max(sampling)
        frame += math.ceil(coefficients) * COEFFICIENT_BYTES
    reduced = math.ceil(width / plan.factor) * math.ceil(height / plan.factor) * 4
    band = width * BAND_ROWS * plan.factor * (pixel + 8)
    return frame + reduced + band + plan.size[0] * plan.size[1] * RENDITION_BYTES


def _decoded(picture: Image.Image, plan: _Plan) -> Image.Image:
    """The first frame's pixels as planned: sRGB, upright, in RGB or RGBA, in a new
    image that carries none of the upload's metadata."""
    try:
        picture.seek(0)
        picture.load()
        orientation = _orientation(picture)  # a PNG's EXIF may follow its pixels
        to_srgb = _to_srgb(picture, "RGBA" if plan.mode == "RGBa" else plan.mode)
        width, height = picture.size
        factor, rows = plan.factor, BAND_ROWS * plan.factor
        reduced = Image.new(plan.mode, (math.ceil(width / factor), math.ceil(height / factor)))
        for top in range(0, height, rows):
            band = to_srgb(picture.crop((0, top, width, min(height, top + rows)))).convert(plan.mode)
            reduced.paste(band.reduce(factor) if factor > 1 else band, (0, top // factor))
    except (OSError, ValueError, SyntaxError, EOFError):
        raise ImageRefused(DAMAGED, "damaged") from None
    finally:
        picture.close()  # the decoded frame's memory goes now, not when the caller lets go
    upright = _upright_size(picture.size, orientation)
    stored = upright[::-1] if orientation in TURNED else upright
    pixels = reduced if reduced.size == stored else reduced.resize(stored, Image.Resampling.LANCZOS)
    pixels = pixels.convert("RGBA") if pixels.mode == "RGBa" else pixels
    return pixels.transpose(UPRIGHT[orientation]) if orientation != 1 else pixels


@functools.cache
def _srgb() -> ImageCms.ImageCmsProfile:
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


def _to_srgb(picture: Image.Image, mode: str) -> Callable[[Image.Image], Image.Image]:
    """What makes a piece of `picture` sRGB pixels in `mode`: a transform from its
    embedded ICC profile, else (no profile, or one lcms cannot use: unreadable, or for
    another colour space than the pixels') Pillow's conversion."""
    icc = picture.info.get("icc_profile")
    source = picture.mode if picture.mode in ("RGB", "CMYK", "L") and mode == "RGB" else mode
    transform = None
    if icc:
        try:
            profile = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            transform = ImageCms.buildTransform(profile, _srgb(), source, mode)
        except (ImageCms.PyCMSError, OSError, ValueError, TypeError):
            pass
    if transform is None:
        return lambda piece: piece.convert(mode)
    return lambda piece: ImageCms.applyTransform(piece.convert(source), transform)


def _encode(pixels: Image.Image, ext: str) -> Rendition:
    """One rendition, with no metadata at all: `pixels` carry none and nothing is
    passed to the encoder (no profile: sRGB is what browsers assume)."""
    out = io.BytesIO()
    if ext == "webp":
        pixels.save(out, "WEBP", quality=WEBP_QUALITY, method=4)
    elif ext == "png":
        pixels.save(out, "PNG", optimize=True)
    else:
        pixels.convert("RGB").save(out, "JPEG", quality=JPEG_QUALITY, optimize=True, progressive=True)
    return Rendition(width=pixels.width, height=pixels.height, ext=ext, data=out.getvalue())
