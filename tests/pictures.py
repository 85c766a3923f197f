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
