"""Blocked words hidden by markup (comments/posting/antispam.py): the check reads the comment's
source and what readers see of it, the HTML the site renders it to (infra/markup.py)
as text (infra/html_text.py)."""

from __future__ import annotations

import pytest

from comments.posting import antispam
from infra.markup import render_comment


def held(text: str) -> str | None:
    return antispam.blocked_word(text, ["spam", "cheap pills"], html=render_comment(text))


@pytest.mark.parametrize("text", [
    "buy sp**a**m now",  # strong emphasis inside the word
    "buy sp*a*m now",
    "buy sp***a***m now",
    "buy sp<b>a</b>m now",  # raw tags inside the word
    "buy sp<i>a</i>m now",
    "buy sp<span>a</span>m now",
    "buy sp&#97;m now",  # character references
    "buy sp&#x61;m now",
    "buy s&shy;pam now",
    "buy sp&ZeroWidthSpace;am now",
    "buy sp`a`m now",  # code
    "buy sp[a](https://example.test/)m now",  # a link inside the word
    "buy sp<!-- nothing -->am now",  # a comment, which readers never see
    "buy SP<b>А</b>M now",  # markup and a Cyrillic capital А
])
def test_a_blocked_word_hidden_by_markup_is_found_in_what_readers_see(text):
    assert antispam.blocked_word(text, ["spam"]) is None  # the source alone hides it
    assert held(text) == "spam"


def test_a_blocked_phrase_split_by_markup_is_found():
    assert held("get cheap **pills** here") == "cheap pills"
    assert held("get ch<em>eap</em> pi&#108;ls") == "cheap pills"


@pytest.mark.parametrize("text", [
    "sp_a_m",  # no emphasis inside a word with underscores: readers see "sp_a_m"
    "sp<br>am",  # a line break between: two words
    "sp\n\nam",  # two paragraphs
    "sp&lt;b&gt;a&lt;/b&gt;m",  # escaped tags are shown as tags
    "spamming",
])
def test_markup_that_readers_see_as_other_words_is_not_a_blocked_word(text):
    assert held(text) is None


def test_what_only_the_source_holds_is_still_checked():
    """An HTML comment is not shown, but the source check still holds it."""
    assert held("hello <!-- spam -->") == "spam"
