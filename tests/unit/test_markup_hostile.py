"""infra/markup.py against hostile text: whatever a stranger sends renders, sanitised, at
a bounded size, without recursion, without leaking memory. Timings live in
bench/markup.py; the CPU guard here only catches a render gone catastrophic."""

from __future__ import annotations

import contextlib
import os
import signal
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import markup as corpus_bench
from comments import conf
from infra.markup import COMMENT_RAW_TAG_LIMIT, GROWTH_LIMIT, NESTING_LIMIT, render_comment, render_post
from tests.unit.test_markup import COMMENT_REL, COMMENT_TAGS, Elements, assert_inert

POST_TAGS = COMMENT_TAGS | {"h1", "h5", "h6", "img", "table", "thead", "tbody", "tr", "th", "td"}
# Far above any render (the slowest corpus text takes tens of ms), far below the
# request timeout; Python-Markdown took longer than this on several corpus texts.
CPU_GUARD_SECONDS = 10
# HTML per character of text: entities and link attributes make a few characters of
# HTML from one of text (`[]()` becomes an <a> with its rel), never more than this.
SIZE_FACTOR = 16


@contextlib.contextmanager
def cpu_guard(seconds: int = CPU_GUARD_SECONDS):
    """Fail the test when the work inside takes more than `seconds` of CPU time."""

    def too_slow(signum, frame):
        raise TimeoutError(f"rendering took more than {seconds} s of CPU")

    previous = signal.signal(signal.SIGPROF, too_slow)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def assert_allowed(html: str, *, tags: set[str], rel: str):
    elements = Elements(html)
    assert set(elements.tags()) <= tags
    assert all(attrs.get("rel") == rel for attrs in elements.of("a"))
    assert_inert(html)


def assert_bounded(html: str, text: str):
    assert len(html) <= SIZE_FACTOR * len(text) + 1_000


def assert_renders_sanitised_and_bounded(text: str):
    """As a comment and as a post: quickly, to allowed inert HTML of bounded size."""
    with cpu_guard():
        comment, post = render_comment(text), render_post(text)
    assert_allowed(comment, tags=COMMENT_TAGS, rel=COMMENT_REL)
    assert_allowed(post, tags=POST_TAGS, rel="noopener")
    assert_bounded(comment, text)
    assert_bounded(post, text)


CORPUS = corpus_bench.corpus(conf.get().max_length)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_every_hostile_comment_of_the_longest_length_renders_sanitised_and_bounded(name):
    """Each corpus text at COMMENTS_MAX_LENGTH renders as a comment and as a post,
    without error, to allowed inert HTML no more than a few times its size."""
    text = CORPUS[name]
    assert len(text) == conf.get().max_length
    assert_renders_sanitised_and_bounded(text)


@settings(max_examples=150, deadline=None)
@given(
    units=st.lists(
        st.tuples(st.sampled_from(sorted(corpus_bench.UNITS.values())), st.integers(1, 60)),
        max_size=20,
    ),
    words=st.text(max_size=20),
)
def test_any_mixture_of_hostile_shapes_renders_sanitised_and_bounded(units, words):
    """Runs of the corpus's shapes in any order, with any text between, render without
    error to allowed inert HTML of bounded size."""
    text = words.join(unit * count for unit, count in units)
    assert_renders_sanitised_and_bounded(text)


def test_a_kilobyte_of_nested_list_markers_renders_its_text():
    """Python-Markdown raised RecursionError on this; now the text is shown."""
    text = "- " * 500 + "the point"
    assert "the point" in render_comment(text)
    assert "the point" in render_post(text)


@pytest.mark.parametrize("unit", ["- ", ">", "> - ", "1. ", "*a ", "[a", "![a", "<ul>", "<b>"])
def test_rendering_never_recurses_in_python(unit):
    """Nesting as deep as a post can hold renders with only a few Python frames to
    spare: no text can raise RecursionError."""
    text = corpus_bench.fill(unit, 100_000)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(_frames()) + 30)
    try:
        render_comment(text), render_post(text)
    finally:
        sys.setrecursionlimit(limit)


def _frames() -> list:
    frame, frames = sys._getframe(), []
    while frame:
        frames.append(frame)
        frame = frame.f_back
    return frames


def test_markdown_nested_within_the_limit_keeps_its_structure():
    """Quotes in quotes and lists in lists, as deep as people write them, stay HTML."""
    elements = Elements(render_comment("> " * 5 + "quoted\n\n" + "- a\n  - b\n    - c\n"))
    assert elements.tags().count("blockquote") == 5
    assert elements.tags().count("ul") == 3


@pytest.mark.parametrize("render", [render_comment, render_post])
@pytest.mark.parametrize("text", ["> " * (NESTING_LIMIT + 1) + "too deep", "- " * NESTING_LIMIT + "too deep"])
def test_markdown_nested_past_the_limit_is_shown_as_text(render, text):
    """Past the nesting limit the whole text is plain: its markers and words, no lists or quotes."""
    html = render(text)
    assert set(Elements(html).tags()) <= {"p", "br"}
    assert "too deep" in html
    assert html.startswith("<p>" + text[:2].replace(">", "&gt;"))


def test_raw_tags_within_the_limit_stay_and_past_it_the_text_is_plain():
    """A comment's raw HTML is kept up to COMMENT_RAW_TAG_LIMIT start tags; past it the
    comment is shown as typed (its tags escaped, nothing lost)."""
    within = "<b>bold</b> " * COMMENT_RAW_TAG_LIMIT
    assert Elements(render_comment(within)).tags().count("b") == COMMENT_RAW_TAG_LIMIT
    past = within + "<b>one more</b>"
    html = render_comment(past)
    assert "b" not in Elements(html).tags()
    assert html.count("&lt;b&gt;") == COMMENT_RAW_TAG_LIMIT + 1


def test_a_table_whose_rows_grow_past_the_limit_is_shown_as_text():
    """A post table with a wide header and one-cell rows (padded to hundreds of times
    its text) is plain text; an ordinary table stays a table."""
    wide = "|a" * 200 + "|\n" + "|-" * 200 + "|\n" + "x\n" * 100
    html = render_post(wide)
    assert "table" not in Elements(html).tags()
    assert len(html) <= GROWTH_LIMIT * len(wide)
    assert "table" in Elements(render_post("| a | b |\n|---|---|\n| 1 |")).tags()


def test_plain_text_keeps_paragraphs_and_line_breaks():
    """The plain rendering of a too-deep comment still reads: paragraphs and line breaks."""
    html = render_comment("> " * (NESTING_LIMIT + 1) + "first\nsecond\n\nthird & <i>fourth</i>")
    assert html.endswith("first<br>\nsecond</p>\n<p>third &amp; &lt;i&gt;fourth&lt;/i&gt;</p>")


def _resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads Linux's /proc")
def test_rendering_frees_what_the_parser_allocates():
    """cmarkgfm's own wrappers leak the HTML and the document tree of every call (over
    100 MB for these renders); infra.markup frees them, so memory stays flat."""
    text = corpus_bench.ordinary(10_000)
    render_comment(text), render_post(text)
    before = _resident_bytes()
    for _ in range(500):
        render_comment(text), render_post(text)
    assert _resident_bytes() - before < 16 * 2**20
