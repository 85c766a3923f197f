"""Renditions carry no metadata of the upload, of any kind an encoder can carry over
(media/images.py), and their colours are sRGB, converted through the upload's ICC
profile rather than carrying it. Pure: no database."""

import io
import struct

import pytest
from PIL import Image, PngImagePlugin

from media import images
from tests.pictures import icc_profile

LIMITS = images.Limits(max_bytes=10 * 1024 * 1024, max_pixels=50_000_000, max_side=12_000, min_side=16,
                       max_decode_bytes=128_000_000)
RED = (200, 30, 30)


def plant(kind: str) -> bytes:
    return f"PLANTED-{kind}-7f3a".encode()


def exif_saying(text: bytes) -> Image.Exif:
    exif = Image.Exif()
    exif[0x010E] = text.decode()  # ImageDescription
    exif[0x013B] = text.decode()  # Artist
    return exif


def jpeg_with_everything() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (700, 500), RED).save(
        out, "JPEG", comment=plant("COM"), icc_profile=icc_profile(note=plant("ICC")),
        exif=exif_saying(plant("EXIF")), xmp=b"<x:xmpmeta>" + plant("XMP") + b"</x:xmpmeta>",
    )
    data = out.getvalue()
    photoshop = b"Photoshop 3.0\0" + plant("APP13")  # an IPTC block, spliced in after SOI
    return data[:2] + b"\xff\xed" + struct.pack(">H", len(photoshop) + 2) + photoshop + data[2:]


def png_with_everything(mode: str = "RGB") -> bytes:
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", plant("tEXt").decode())
    info.add_text("Description", plant("zTXt").decode(), zip=True)
    info.add_itxt("Title", plant("iTXt").decode(), lang="en", tkey="Title", zip=True)
    info.add_itxt("XML:com.adobe.xmp", plant("XMP").decode())
    info.add(b"prVt", plant("private"))
    out = io.BytesIO()
    Image.new(mode, (700, 500), RED + (180,) if mode == "RGBA" else RED).save(
        out, "PNG", pnginfo=info, icc_profile=icc_profile(note=plant("iCCP")),
        exif=exif_saying(plant("eXIf")),
    )
    return out.getvalue()


def webp_with_everything() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (700, 500), RED).save(
        out, "WEBP", icc_profile=icc_profile(note=plant("ICCP")), exif=exif_saying(plant("EXIF")),
        xmp=b"<x:xmpmeta>" + plant("XMP") + b"</x:xmpmeta>",
    )
    return out.getvalue()


def gif_with_a_comment() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (700, 500), RED).save(out, "GIF", comment=plant("GIF-comment"))
    return out.getvalue()


UPLOADS = {
    "jpeg": jpeg_with_everything,
    "png": png_with_everything,
    "png with alpha": lambda: png_with_everything("RGBA"),
    "webp": webp_with_everything,
    "gif": gif_with_a_comment,
}


def png_chunks(data: bytes) -> list[bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = [], 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        chunks.append(kind)
        at += 12 + length
    return chunks


def jpeg_markers(data: bytes) -> list[int]:
    """Every marker of a JPEG, read segment by segment (entropy-coded data skipped)."""
    assert data[:2] == b"\xff\xd8"
    markers, at = [0xD8], 2
    while at < len(data):
        assert data[at] == 0xFF, at
        marker = data[at + 1]
        markers.append(marker)
        if marker == 0xD9:
            break
        at += 2 + struct.unpack(">H", data[at + 2:at + 4])[0]
        if marker == 0xDA:  # a scan: its data runs to the next marker (not a stuffed 00 or a restart)
            while not (data[at] == 0xFF and data[at + 1] not in (0x00, *range(0xD0, 0xD8))):
                at += 1
    return markers


def webp_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    chunks, at = [], 12
    while at < len(data):
        kind, length = struct.unpack("<4sI", data[at:at + 8])
        chunks.append((kind, data[at + 8:at + 8 + length]))
        at += 8 + length + length % 2
    return chunks


def assert_pixels_only(rendition: images.Rendition) -> None:
    data = rendition.data
    if rendition.ext == "png":
        assert set(png_chunks(data)) == {b"IHDR", b"IDAT", b"IEND"}
    elif rendition.ext == "jpg":
        # SOI, JFIF's APP0, tables, frame, scans, EOI: no comment (FE), no APP1-APP15.
        assert set(jpeg_markers(data)) <= {0xD8, 0xE0, 0xDB, 0xC4, 0xC0, 0xC2, 0xDD, 0xDA, 0xD9}
    else:
        chunks = webp_chunks(data)
        assert {kind for kind, _ in chunks} <= {b"VP8 ", b"VP8L", b"VP8X", b"ALPH"}
        flags = [body[0] for kind, body in chunks if kind == b"VP8X"]
        assert all(flag & 0x2C == 0 for flag in flags)  # no ICC (0x20), EXIF (0x08), XMP (0x04)


@pytest.mark.parametrize("kind", list(UPLOADS))
def test_no_text_planted_in_any_metadata_kind_reaches_a_rendition(kind):
    upload = UPLOADS[kind]()
    assert b"PLANTED-" in upload or kind.startswith("png")  # (a PNG's ICC and zTXt are compressed)
    processed = images.process(upload, limits=LIMITS)
    assert len(processed.renditions) == 6
    for rendition in processed.renditions:
        assert b"PLANTED-" not in rendition.data, (rendition.width, rendition.ext)
        assert_pixels_only(rendition)
        opened = Image.open(io.BytesIO(rendition.data))
        assert not {"icc_profile", "comment", "exif", "xmp", "photoshop"} & set(opened.info), opened.info


def picture_with_profile(fmt: str, icc: bytes) -> bytes:
    out = io.BytesIO()
    quality = {"quality": 95} if fmt == "JPEG" else {}
    Image.new("RGB", (400, 300), (255, 0, 0)).save(out, fmt, icc_profile=icc, **quality)
    return out.getvalue()


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_colours_are_converted_to_srgb_through_the_uploads_profile(fmt):
    """Red pixels under a profile whose red primary is sRGB's blue are blue in sRGB."""
    upload = picture_with_profile(fmt, icc_profile(note=b"", red_is_blue=True))
    processed = images.process(upload, limits=LIMITS)
    for rendition in processed.renditions:
        red, green, blue = Image.open(io.BytesIO(rendition.data)).convert("RGB").getpixel((10, 10))
        assert blue > 200 and red < 40 and green < 40, (rendition.ext, (red, green, blue))


def test_a_profile_lcms_cannot_read_is_dropped_and_the_pixels_kept():
    garbage = b"\0\0\1\0" + plant("bad-ICC") * 20
    processed = images.process(picture_with_profile("PNG", garbage), limits=LIMITS)
    for rendition in processed.renditions:
        assert_pixels_only(rendition)
        assert Image.open(io.BytesIO(rendition.data)).convert("RGB").getpixel((10, 10))[0] > 230
