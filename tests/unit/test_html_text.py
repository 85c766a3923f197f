"""infra/html_text.py: the text of HTML, as search and imported excerpts read it. Pure."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infra.html_text import html_text


@pytest.mark.parametrize("html,text", [
    ("<p>One</p><p>Two</p>", "One Two"),
    ("<p>T<em>w</em>o words</p>", "Two words"),
    ("<ul><li>first</li><li>second</li></ul>", "first second"),
    ("line<br>break", "line break"),
    ("<p>caf&eacute; &amp; &lt;tea&gt;</p>", "café & <tea>"),
    ("  <p>\n spaced \t out\n</p>  ", "spaced out"),
    ("<h2>Title</h2>Body", "Title Body"),
    ("<a href='/x'>link</a>ed", "linked"),
    ("", ""),
    ("plain text", "plain text"),
])
def test_the_text_is_what_a_reader_reads_with_blocks_apart(html, text):
    assert html_text(html) == text


def test_an_unclosed_tag_keeps_the_text_before_it():
    assert html_text("<p>kept<p>also kept") == "kept also kept"


@given(st.text())
def test_the_text_has_single_spaces_and_no_edges(html):
    text = html_text(html)
    assert text == " ".join(text.split())
