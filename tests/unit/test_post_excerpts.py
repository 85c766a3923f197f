"""A post's summary on list pages: its first paragraph as plain text, bounded, cut at a word (cms/posts/summaries.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cms.posts import ELLIPSIS, first_paragraph, shorten, summarise
from cms.posts import summaries
from infra.markup import render_post

words = st.lists(st.text(alphabet="abcdefghij,.", min_size=1, max_size=12), max_size=40)


def test_the_first_paragraph_comes_without_markdown_or_html():
    """Headings and images before it are passed over; emphasis, links and code lose
    their syntax; entities are decoded; line breaks become spaces."""
    html = render_post(
        "# A heading\n\n![a chart](/c.png)\n\nThe **first** paragraph, with a [link](https://x.test)\n"
        "and `code` & <b>tags</b>.\n\nThe second paragraph."
    )
    assert first_paragraph(html) == "The first paragraph, with a link and code & tags."


def test_without_a_paragraph_the_whole_text_is_used():
    """A post that is only a list still has a summary."""
    assert first_paragraph(render_post("- one\n- two")) == "one two"


def test_the_html_is_read_in_pieces_wherever_they_fall(monkeypatch):
    """Long posts are parsed only up to their first paragraph, a piece at a time: a
    piece's end inside a tag, an entity or the paragraph changes nothing."""
    html = render_post("# " + "Heading " * 40 + "\n\nA *first* paragraph &amp; more, " * 20 + "\n\nThe second.")
    whole = first_paragraph(html)
    assert whole.startswith("A first paragraph & more,") and "second" not in whole
    for size in (1, 7, 64, 500):
        monkeypatch.setattr(summaries, "_CHUNK", size)
        assert first_paragraph(html) == whole
    monkeypatch.setattr(summaries, "_CHUNK", 16)
    assert first_paragraph(render_post("- one &amp; two\n- three")) == "one & two three"


def test_a_short_text_is_kept_whole():
    assert shorten("Short  and\nsweet.", limit=40) == "Short and sweet."


def test_a_long_text_is_cut_at_a_word_boundary_with_an_ellipsis():
    """The cut falls between words, and trailing punctuation goes before the ellipsis."""
    assert shorten("Alpha beta, gamma delta", limit=13) == "Alpha beta" + ELLIPSIS
    assert shorten("Alpha beta gamma", limit=11) == "Alpha beta" + ELLIPSIS
    assert shorten("Supercalifragilistic", limit=6) == "Super" + ELLIPSIS


@given(words=words, limit=st.integers(min_value=2, max_value=120))
def test_a_summary_is_bounded_and_a_prefix_of_whole_words(words, limit):
    """Never longer than the limit; unchanged when it fits; else whole words from the
    start (unless a single first word is too long) and an ellipsis."""
    text = " ".join(words)
    short = shorten(text, limit=limit)
    assert len(short) <= limit
    if len(text) <= limit:
        assert short == text
    else:
        head = short.removesuffix(ELLIPSIS)
        assert short.endswith(ELLIPSIS) and text.startswith(head)
        if " " in text[:limit]:
            assert text[len(head):][:1] in (" ", ",", ".")


def test_the_posts_own_excerpt_wins_over_its_first_paragraph():
    html = render_post("The opening paragraph.")
    assert summarise(excerpt="Written for lists.", content_html=html) == "Written for lists."
    assert summarise(excerpt="  ", content_html=html) == "The opening paragraph."
