"""Post slugs in any script: made from titles, checked, and matched in URLs. Pure.

Latin titles become ASCII slugs ("Đường về Hà Nội" is "duong-ve-ha-noi"), as
readers type them. Titles in other scripts keep their letters ("हिन्दी में लेख" is
"हिन्दी-में-लेख"): transliteration is lossy and ambiguous (several spellings for one
word, and no way back), and browsers show Unicode paths as they are (`reverse`
percent-encodes them on the wire).

Django's `slugify(allow_unicode=True)` is not used for them: its `\\w` drops the
Devanagari vowel signs and virama ("नमस्ते" would be "नमसत"), and its `<slug:>` URL
converter matches ASCII only. Hence `is_slug` and `SlugConverter` here.
"""

from __future__ import annotations

import unicodedata

from infra.folding import unaccent

FALLBACK = "post"
SEPARATORS = "-_"


def _is_slug_char(ch: str) -> bool:
    return ch in SEPARATORS or unicodedata.category(ch)[0] in "LNM"


def is_slug(text: str) -> bool:
    """Whether `text` is a slug: letters, digits (any script, with their combining
    marks), hyphens and underscores, in NFC, not starting with a mark. No "/",
    whitespace or punctuation."""
    return (
        bool(text)
        and all(_is_slug_char(ch) for ch in text)
        and unicodedata.category(text[0])[0] != "M"
        and unicodedata.is_normalized("NFC", text)
    )


def _cut(slug: str, limit: int) -> str:
    """At most `limit` characters of `slug`, never splitting a letter from its
    marks (a Devanagari consonant from its vowel sign)."""
    if len(slug) <= limit:
        return slug
    end = limit
    while end > 0 and unicodedata.category(slug[end])[0] == "M":
        end -= 1
    return slug[:end]


def slug_from_title(title: str, *, limit: int) -> str:
    """The title as a lower-case slug of at most `limit` characters: Latin letters
    without diacritics, other scripts as written; punctuation dropped, spaces and
    hyphens made single hyphens; FALLBACK when nothing is left."""
    words = "".join(
        ch if _is_slug_char(ch) else " " if ch.isspace() else ""
        for ch in unicodedata.normalize("NFC", unaccent(title).lower())
    )
    slug = "-".join(words.replace("-", " ").split())
    slug = _cut(slug, limit).strip(SEPARATORS)
    return slug if slug and is_slug(slug) else FALLBACK


class SlugConverter:
    """`<post_slug:…>` in URL patterns: a slug of any script (`is_slug`). A path in
    another Unicode normal form finds the same post; anything else does not match."""

    # No longer than a slug may be (cms.posts.SLUG_MAX_LENGTH): a longer path matches
    # no post, and is refused before anything is looked up.
    regex = "[^/]{1,80}"

    def to_python(self, value: str) -> str:
        value = unicodedata.normalize("NFC", value)
        if not is_slug(value):
            raise ValueError(value)
        return value

    def to_url(self, value: str) -> str:
        if not is_slug(str(value)):
            raise ValueError(value)
        return str(value)
