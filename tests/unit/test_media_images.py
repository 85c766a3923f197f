"""Processing uploads (media/images.py) and the Markdown that names library
pictures (media/references.py): pure, no database."""

import io
import re
from html import unescape

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from cms.sharing import json_for_script
from infra.markup import sanitised_post_html
from media import images, references
from tests.pictures import phone_photo, picture

LIMITS = images.Limits(max_bytes=10 * 1024 * 1024, max_pixels=50_000_000, max_side=12_000, min_side=16,
                       max_decode_bytes=128_000_000)


def test_widths_are_never_upscaled_and_capped_at_the_largest():
    assert images.rendition_widths(100) == [100]
    assert images.rendition_widths(320) == [320]
    assert images.rendition_widths(700) == [320, 640, 700]
    assert images.rendition_widths(1600) == [320, 640, 1024, 1600]
    assert images.rendition_widths(6000) == [320, 640, 1024, 1600]


def test_a_photo_is_made_upright_and_every_rendition_is_free_of_metadata():
    processed = images.process(phone_photo(), limits=LIMITS)
    assert (processed.width, processed.height) == (600, 800)
    for rendition in processed.renditions:
        opened = Image.open(io.BytesIO(rendition.data))
        assert not opened.getexif() and opened.size == (rendition.width, rendition.height)
        assert b"PhoneCam" not in rendition.data


def test_a_large_jpeg_is_decoded_at_a_reduced_scale_and_keeps_its_proportions():
    processed = images.process(picture(6400, 4000, quality=50), limits=LIMITS)
    assert (processed.width, processed.height) == (1600, 1000)


def test_transparency_keeps_a_png_fallback_and_an_opaque_jpeg_a_jpeg_one():
    see_through = (200, 60, 40, 128)
    assert images.process(picture(100, 100, "PNG", see_through, alpha=True), limits=LIMITS).fallback == "png"
    assert images.process(picture(100, 100, "WEBP", see_through, alpha=True), limits=LIMITS).fallback == "png"
    assert images.process(picture(100, 100, "WEBP"), limits=LIMITS).fallback == "jpg"
    assert images.process(picture(100, 100), limits=LIMITS).fallback == "jpg"


@pytest.mark.parametrize("data, code", [
    (b"", "empty"),
    (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "not_an_image"),
    (b"GIF89a", "not_an_image"),
    (picture(100, 100, "TIFF"), "not_an_image"),
    (picture(100, 100, "BMP"), "not_an_image"),
    (picture(200, 200)[:400], "damaged"),
    (picture(15, 400, "PNG"), "too_small"),
    (picture(12_001, 16, "PNG"), "too_wide"),
])
def test_refused_uploads_say_why(data, code):
    with pytest.raises(images.ImageRefused) as refused:
        images.process(data, limits=LIMITS)
    assert refused.value.code == code


def test_the_content_key_is_a_digest_of_the_bytes_sent():
    assert images.content_key(b"a") == images.content_key(b"a") != images.content_key(b"b")
    assert len(images.content_key(b"a")) == 32


KEY = "0123456789abcdef" * 2


def test_markdown_names_a_library_picture_and_is_found_again():
    text = references.image_markdown(key=KEY, alt="A [bracketed] \\ alt", caption='Said "hi"')
    assert text == f'![A \\[bracketed\\] \\\\ alt](/media/{KEY}/ "Said \\"hi\\"")'
    assert references.referenced(text) == [(KEY, "A [bracketed] \\ alt")]


# Any text the library's forms accept (Django's fields refuse NUL).
FORM_TEXT = st.text(max_size=80).filter(lambda text: "\x00" not in text)


@given(FORM_TEXT, FORM_TEXT)
def test_any_alt_text_and_caption_round_trip_through_the_renderer(alt, caption):
    """What the post renders carries the alt text and caption as the library holds them
    (Markdown in them, character references, a leading caret stay as typed)."""
    text = references.image_markdown(key=KEY, alt=alt, caption=caption)
    assert references.referenced(text) == [(KEY, " ".join(alt.split()))]
    title = re.search(r'<img [^>]*title="([^"]*)"', sanitised_post_html(text))
    assert (unescape(title.group(1)) if title else "") == " ".join(caption.split())


def test_keys_are_found_once_in_order_and_other_images_are_not_library_ones():
    other = "f" * 32
    text = f"![a](/media/{other}/) ![b](https://example.com/x.png) ![c](/media/{KEY}/) ![d](/media/{other}/)"
    assert references.keys_in(text) == [other, KEY]


@given(st.text())
def test_json_for_script_never_ends_the_script_and_parses_back(text):
    import json

    out = json_for_script({"headline": text})
    assert "<" not in out and ">" not in out and "&" not in out
    assert json.loads(out) == {"headline": text}


def test_an_alt_text_that_reads_as_an_autolink_or_html_keeps_its_brackets():
    for alt in ("<A0:>", "<b>bold</b>"):
        assert references.referenced(references.image_markdown(key=KEY, alt=alt)) == [(KEY, alt)]
