"""cms.slugs: post slugs from titles in any script, checked and matched in URLs.
Pure: the URL round trip uses this module's own patterns with the site's converter."""

import unicodedata
from urllib.parse import unquote

import pytest
from django.urls import path, register_converter, resolve, reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from cms import slugs
from dashboard import services

register_converter(slugs.SlugConverter, "unicode_slug")
urlpatterns = [
    path("posts/<unicode_slug:slug>/", lambda request, slug: None, name="post"),
    path("posts/<unicode_slug:post_slug>/comments/<path:rest>/", lambda request, **kw: None, name="comment"),
]
LIMIT = services.GENERATED_SLUG_LENGTH


@pytest.mark.parametrize(
    "title, slug",
    [
        ("Đường về Hà Nội", "duong-ve-ha-noi"),
        ("ĐÀ NẴNG mùa mưa", "da-nang-mua-mua"),
        ("Thiết kế lược đồ cho bình luận lồng nhau", "thiet-ke-luoc-do-cho-binh-luan-long-nhau"),
        ("Crème brûlée à la française", "creme-brulee-a-la-francaise"),
        ("Straße und Øl", "strasse-und-ol"),
        ("Menulis komentar yang baik", "menulis-komentar-yang-baik"),
        ("Hello, Slugline!", "hello-slugline"),
        ("a -- b __ c", "a-b-__-c"),
    ],
)
def test_latin_titles_become_ascii_slugs(title, slug):
    """Vietnamese and other Latin diacritics are dropped, đ is d; as Django's slugify
    for plain ASCII titles."""
    assert slugs.slug_from_title(title, limit=LIMIT) == slug


@pytest.mark.parametrize(
    "title, slug",
    [
        ("नमस्ते दुनिया", "नमस्ते-दुनिया"),
        ("हिन्दी में लेख: टिप्पणियाँ!", "हिन्दी-में-लेख-टिप्पणियाँ"),
        ("MongoDB में शार्डिंग", "mongodb-में-शार्डिंग"),
    ],
)
def test_devanagari_titles_keep_their_letters_and_marks(title, slug):
    """Vowel signs and virama stay (Django's slugify would drop them)."""
    assert slugs.slug_from_title(title, limit=LIMIT) == slug


def test_a_decomposed_title_gives_the_nfc_slug():
    title = unicodedata.normalize("NFD", "हिन्दी में लेख")
    assert slugs.slug_from_title(title, limit=LIMIT) == unicodedata.normalize("NFC", "हिन्दी-में-लेख")


@pytest.mark.parametrize("title", ["", "   ", "!!! ??? …", "\u200d\u200c", "\u0301\u093f"])
def test_a_title_with_nothing_to_keep_gives_the_fallback(title):
    assert slugs.slug_from_title(title, limit=LIMIT) == slugs.FALLBACK == services.FALLBACK_SLUG


def test_the_length_is_counted_in_characters_and_never_splits_a_letter_from_its_marks():
    """A cut that would fall between क and its vowel sign ि moves before the letter."""
    assert slugs.slug_from_title("x" * 100, limit=LIMIT) == "x" * LIMIT
    title = "क" * 9 + "कि"  # the 11th character is the vowel sign of the 10th
    assert slugs.slug_from_title(title, limit=10) == "क" * 9
    assert slugs.slug_from_title("ab cd", limit=3) == "ab"


@pytest.mark.parametrize("slug", ["post-1", "Hello_World", "नमस्ते-दुनिया", "đường", "привет", "中文", "a"])
def test_slugs_of_any_script_are_slugs(slug):
    assert slugs.is_slug(slug)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "a/b",
        "a b",
        "a\tb",
        "what?",
        "a.b",
        "a%2Fb",
        "#x",
        "\u093fक",
        "a\u200db",
        unicodedata.normalize("NFD", "đường"),
    ],
)
def test_slashes_whitespace_punctuation_leading_marks_and_other_forms_are_not(text):
    assert not slugs.is_slug(text)


@pytest.mark.urls(__name__)
def test_unicode_slugs_reverse_percent_encoded_and_resolve_back():
    url = reverse("post", args=["नमस्ते-दुनिया"])
    assert (
        url
        == "/posts/%E0%A4%A8%E0%A4%AE%E0%A4%B8%E0%A5%8D%E0%A4%A4%E0%A5%87-%E0%A4%A6%E0%A5%81%E0%A4%A8%E0%A4%BF%E0%A4%AF%E0%A4%BE/"
    )
    assert resolve(unquote(url)).kwargs == {"slug": "नमस्ते-दुनिया"}
    assert reverse("post", args=["old-ascii-slug"]) == "/posts/old-ascii-slug/"


@pytest.mark.urls(__name__)
@pytest.mark.parametrize("path", ["/posts/a b/", "/posts/what%3F/", "/posts/a.b/", "/posts/%E0%A4%BF/"])
def test_paths_that_are_not_slugs_do_not_match(path):
    from django.urls import Resolver404

    with pytest.raises(Resolver404):
        resolve(unquote(path))


@pytest.mark.urls(__name__)
def test_a_decomposed_path_finds_the_nfc_slug():
    assert resolve(unicodedata.normalize("NFD", "/posts/đường/")).kwargs == {"slug": "đường"}


@pytest.mark.urls(__name__)
@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_title_gives_a_slug_that_round_trips_through_reverse_and_resolve(title):
    """Non-empty, within the limit, a slug, and what `resolve` gives back."""
    slug = slugs.slug_from_title(title, limit=LIMIT)
    assert slug and len(slug) <= LIMIT and slugs.is_slug(slug)
    url = reverse("post", args=[slug])
    assert url.isascii() and " " not in url
    assert resolve(unquote(url)).kwargs == {"slug": slug}
    comment = reverse("comment", args=[slug, "abc/def"])
    assert resolve(unquote(comment)).kwargs == {"post_slug": slug, "rest": "abc/def"}
