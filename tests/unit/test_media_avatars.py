"""Members' pictures through the media pipeline (media/images.py's squares,
media/avatars.py): pure, no database."""

import io

from PIL import Image

from comments.reading.avatars import avatar_for
from comments.host import MemberPicture
from media import avatars, images
from tests.pictures import phone_photo

LIMITS = images.Limits(max_bytes=10 * 1024 * 1024, max_pixels=50_000_000, max_side=12_000, min_side=16,
                       max_decode_bytes=128_000_000)


def banded(width: int, height: int) -> bytes:
    """A PNG whose middle square is green and whose edges are red."""
    pixels = Image.new("RGB", (width, height), (220, 0, 0))
    side = min(width, height)
    pixels.paste((0, 200, 0), ((width - side) // 2, (height - side) // 2,
                               (width - side) // 2 + side, (height - side) // 2 + side))
    out = io.BytesIO()
    pixels.save(out, "PNG")
    return out.getvalue()


def test_squares_are_cut_from_the_middle_in_both_formats():
    processed = images.process(banded(600, 200), limits=LIMITS, squares=avatars.SIDES)
    assert [(r.width, r.height, r.ext) for r in processed.renditions] == [
        (48, 48, "png"), (48, 48, "webp"), (96, 96, "png"), (96, 96, "webp")]
    for rendition in processed.renditions:
        opened = Image.open(io.BytesIO(rendition.data)).convert("RGB")
        for spot in [(0, 0), (rendition.width - 1, rendition.height - 1), (rendition.width // 2, 0)]:
            red, green, _ = opened.getpixel(spot)
            assert green > 150 and red < 60, (rendition, spot)


def test_a_photo_is_made_upright_and_its_squares_carry_no_metadata():
    processed = images.process(phone_photo(), limits=LIMITS, squares=avatars.SIDES)
    assert (processed.width, processed.height) == (96, 96)
    for rendition in processed.renditions:
        assert not Image.open(io.BytesIO(rendition.data)).getexif() and b"PhoneCam" not in rendition.data


def test_a_picture_smaller_than_a_square_is_never_upscaled():
    processed = images.process(banded(70, 90), limits=LIMITS, squares=avatars.SIDES)
    assert {(r.width, r.height) for r in processed.renditions} == {(48, 48)}
    processed = images.process(banded(30, 40), limits=LIMITS, squares=avatars.SIDES)
    assert {(r.width, r.height) for r in processed.renditions} == {(30, 30)}


def test_each_member_has_their_own_key_for_the_same_bytes():
    data = banded(100, 100)
    assert avatars.picture_key(1, data) == avatars.picture_key(1, data)
    assert len({avatars.picture_key(1, data), avatars.picture_key(2, data), images.content_key(data)}) == 3


def test_the_addresses_of_both_squares_in_both_formats():
    key = "0" * 32
    urls = avatars.urls(key, "jpg")
    assert urls.src == f"/media/{key}/48.jpg"
    assert urls.srcset == f"/media/{key}/48.jpg 1x, /media/{key}/96.jpg 2x"
    assert urls.webp_srcset == f"/media/{key}/48.webp 1x, /media/{key}/96.webp 2x"


def test_an_avatar_keeps_its_initials_beside_its_picture():
    picture = MemberPicture(src="/media/x/48.jpg")
    assert avatar_for(user_id=9, name="Ada Lovelace", picture=picture).picture == picture
    assert avatar_for(user_id=9, name="Ada Lovelace").picture is None
    assert avatar_for(user_id=None, name="Ada", picture=picture) is None
