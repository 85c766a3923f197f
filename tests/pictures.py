"""Pictures made in the tests with Pillow (no binary fixtures in the repository)."""

import io

from PIL import Image

GPS_LATITUDE = (51, 30, 12)


def picture(width=800, height=600, fmt="JPEG", color=(200, 60, 40), **save) -> bytes:
    out = io.BytesIO()
    mode = "RGBA" if fmt in ("PNG", "WEBP") and save.pop("alpha", False) else "RGB"
    Image.new(mode, (width, height), color).save(out, fmt, **save)
    return out.getvalue()


def phone_photo() -> bytes:
    """A JPEG as a phone writes it: GPS position, camera model, and rotated (EXIF
    orientation 6: the pixels are stored sideways, 800 wide and 600 high)."""
    exif = Image.Exif()
    exif[0x0110] = "PhoneCam 9"  # Model
    exif[0x0112] = 6  # Orientation: rotate 90° clockwise to show
    gps = exif.get_ifd(0x8825)
    gps.update({1: "N", 2: GPS_LATITUDE, 3: "W", 4: (0, 7, 40)})
    return picture(800, 600, exif=exif)


def noisy(width: int, height: int, fmt: str = "PNG") -> bytes:
    """A picture of gradients and noise: it compresses like a photo (and takes its
    time to encode), not like a flat colour."""
    base = Image.linear_gradient("L").resize((width, height))
    noise = Image.effect_noise((width, height), 40)
    out = io.BytesIO()
    Image.merge("RGB", (base, noise, base.transpose(Image.Transpose.FLIP_LEFT_RIGHT))).save(out, fmt)
    return out.getvalue()


def icc_profile(*, note: bytes, red_is_blue: bool = False) -> bytes:
    """An ICC profile (lcms's sRGB) carrying `note` in a private tag; with
    `red_is_blue`, its red and blue primaries swapped, so that converting from it to
    sRGB turns red pixels blue."""
    import struct

    from PIL import ImageCms

    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    count = struct.unpack(">I", profile[128:132])[0]
    tags = [list(struct.unpack(">4sII", profile[132 + 12 * i:144 + 12 * i])) for i in range(count)]
    if red_is_blue:
        red, blue = (next(tag for tag in tags if tag[0] == name) for name in (b"rXYZ", b"bXYZ"))
        red[1:], blue[1:] = blue[1:], red[1:]
    data = profile[132 + 12 * count:]
    data += b"\0" * (-len(data) % 4)
    extra = b"text\0\0\0\0" + note + b"\0"
    tags = [[sig, offset + 12, size] for sig, offset, size in tags]
    tags.append([b"zzzz", 132 + 12 * (count + 1) + len(data), len(extra)])
    body = struct.pack(">I", count + 1) + b"".join(struct.pack(">4sII", *tag) for tag in tags) + data + extra
    header = bytearray(profile[:128])
    header[0:4] = struct.pack(">I", 128 + len(body))
    header[84:100] = bytes(16)  # no profile ID (an MD5 of the old bytes)
    return bytes(header) + body
