"""The quick HTML -> Markdown path (infra/html_markdown_fast.py) gives, byte for byte, the
Markdown of the markdownify path (infra/html_markdown.by_markdownify) for every fragment
it reads, and reads every fragment made of its tags as nh3 writes them; anything else
it leaves to markdownify."""

from __future__ import annotations

import html as html_module

import nh3
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from comments.transfer import import_text
from infra import markup
from infra.html_markdown import by_markdownify, to_markdown
from infra.html_markdown_fast import convert

# Every character Markdown or the escaping reads, whitespace of each kind (ASCII,
# form feed, no-break, other Unicode spaces), digits for list items, letters.
CHARACTERS = "\\`*_{}[]()#+-.!|<>&~=:;'\"/ 1209ab\t\n\r\x0c\xa0\u2003\u2028"
ENTITIES = ["&amp;", "&lt;", "&gt;", "&nbsp;", "&quot;", "&#42;", "&#x5F;", "&#10;", "&#32;", "&copy;",
            "&amp;amp;", "&#96;", "&#35;"]
INLINE = ["b", "strong", "i", "em", "code", "sup", "sub", "del", "abbr", "a"]
BLOCK = ["p", "blockquote"]
ADDRESSES = ["https://example.org/x", "  /p  ", "/a b", "x(y)", "<x>", 'q"r', "a\\b", "&", "", " ", "mailto:a@b"]
TITLES = [None, "", "t", 'say "hi"', "back\\slash", "&lt;", " spaced "]

# Runs of whitespace alone, often at a text's edges, where markdownify trims.
SPACES = [" ", "  ", "\n", " \n\t", "\t", "\xa0", "&nbsp;", "\x0c", "\u2003", "\r\n"]

texts = st.lists(st.one_of(
    st.text(alphabet=CHARACTERS, min_size=1, max_size=12).map(lambda text: html_module.escape(text, quote=False)),
    st.sampled_from(ENTITIES), st.sampled_from(SPACES)), min_size=1, max_size=4).map("".join)


def _attribute(name: str, value: str | None) -> str:
    return "" if value is None else f' {name}="{html_module.escape(value)}"'


def _fragment(steps: list[tuple[str, str]]) -> str:
    """Well-formed HTML from generated steps: ("text", its HTML), ("void", a tag),
    ("open", a start tag), ("close", ""): each open tag closed in order, at the latest
    at the end."""
    out, open_names = [], []
    for kind, value in steps:
        if kind == "open":
            open_names.append(value[1:].split(" ", 1)[0].rstrip(">"))
        elif kind == "close":
            value = f"</{open_names.pop()}>" if open_names else ""
        out.append(value)
    return "".join(out) + "".join(f"</{name}>" for name in reversed(open_names))


links = st.builds(lambda href, title: "<a" + _attribute("href", href) + _attribute("title", title) + ">",
                  st.sampled_from([None, *ADDRESSES]), st.sampled_from(TITLES))
steps = st.one_of(
    texts.map(lambda text: ("text", text)),
    st.sampled_from(["<br>", "<hr>"]).map(lambda tag: ("void", tag)),
    st.sampled_from(INLINE[:-1] + BLOCK).map(lambda name: ("open", f"<{name}>")),
    links.map(lambda tag: ("open", tag)),
    st.just(("close", "")),
)
fragments = st.lists(steps, max_size=24).map(_fragment)
CHECKS = settings(max_examples=120, deadline=None)


@CHECKS
@given(fragments)
def test_every_fragment_of_its_tags_gives_markdownifys_markdown(html):
    """As generated, and as nh3 writes it again with the comments' allow-lists."""
    clean = nh3.clean(html, tags=markup.COMMENT_TAGS, attributes=markup.ALLOWED_ATTRIBUTES, link_rel=None)
    for fragment in (html, clean):
        quick = convert(fragment)
        assert quick is not None
        assert quick.strip() == by_markdownify(fragment)


@CHECKS
@given(st.text(alphabet='<>/="& \nabpri', max_size=40) | st.lists(
    st.sampled_from(["<p>", "</p>", "<b>", "</b>", "<br/>", "<P>", "<ul>", "<!-- c -->", "<a href=x>", "x", " ",
                     "&amp", "<", "</br>", '<a  href="y">', "</a>"]), max_size=8).map("".join))
def test_anything_else_is_left_to_markdownify_or_read_alike(html):
    quick = convert(html)
    assert quick is None or quick.strip() == by_markdownify(html)


# Edges generated fragments seldom reach: Unicode whitespace at a block's edge (trimmed
# on one side only), whitespace alone between tags (a form feed becomes a space), list
# and heading look-alikes, empty and blank tags, code with backticks, breaks at edges.
EDGES = [
    "<p>x&nbsp;</p><p>y</p>", "y<p>&nbsp;x</p>", "<p>a&#8195;<br>b</p>", "<b>a</b>\x0c<b>b</b>", "<i>a</i> \n <i>b</i>",
    "<p>1) x</p><p>12. y</p>", "<p>a -- b # c ## d</p>", "- x\n# y", "<sup> </sup><del>\xa0</del><abbr></abbr>",
    "<b> </b><em>\t</em><code> </code>", "<code>`x``</code><code> a </code>", "<code><b>*</b><a href='x'>_</a></code>",
    "<blockquote><p>a</p>\n<blockquote>b<br>c</blockquote></blockquote>", "<blockquote> </blockquote>x",
    "<p><br><br>a<br> <br></p>", "a<br><hr><br>b", '<a href=" ">x</a><a href="x" title="">y </a>',
    '<a href="/a b" title="q &quot;\\&quot;"> t </a>', "<p></p>\n\n<p>\r\n</p>", "&amp;#42; &lt;p&gt;",
]


@pytest.mark.parametrize("html", EDGES)
def test_edges_give_markdownifys_markdown(html):
    html = html.replace("'", '"')
    quick = convert(html)
    assert quick is not None
    assert quick.strip() == by_markdownify(html)


def test_what_it_does_not_read_goes_to_markdownify():
    for html in ["<ul><li>x</li></ul>", "<p>a<br/>b</p>", "<p>a", "<b><i>x</b></i>", "<!-- c --><p>x</p>",
                 "a < b", "<P>x</P>", "<a href=x>y</a>", "<em>" * 40 + "deep" + "</em>" * 40]:
        assert convert(html) is None
        assert to_markdown(html) == by_markdownify(html)


def test_a_comment_body_takes_it():
    body = '<p>Yes &amp; no: <a href="https://example.org/1">see</a> <b>this</b> 1. * x</p><p>two<br>\nlines</p>'
    clean = nh3.clean(body, tags=markup.COMMENT_TAGS, attributes=markup.ALLOWED_ATTRIBUTES, link_rel=None)
    assert convert(clean) is not None
    assert import_text.comment_text(body) == (
        "Yes \\& no: [see](https://example.org/1) **this** 1\\. \\* x\n\ntwo\\\nlines")
