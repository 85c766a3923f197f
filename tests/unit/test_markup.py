"""infra/markup.py: Markdown to sanitised HTML for comments (anyone) and posts (authors)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infra.markup import render_comment, render_post

COMMENT_REL = "nofollow ugc noopener"
COMMENT_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "del", "em", "h2", "h3", "h4",
    "hr", "i", "li", "ol", "p", "pre", "strong", "sub", "sup", "ul",
}


class Elements(HTMLParser):
    """The start tags of an HTML fragment, each as (tag, {attribute: value})."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def tags(self) -> list[str]:
        return [tag for tag, _ in self.found]

    def of(self, tag: str) -> list[dict]:
        return [attrs for t, attrs in self.found if t == tag]


def assert_inert(html: str):
    """No script or style element, no event handler, no javascript: or data: link."""
    elements = Elements(html)
    assert not {"script", "style", "iframe", "object", "embed", "svg"} & set(elements.tags())
    for tag, attrs in elements.found:
        assert not [name for name in attrs if name.startswith("on")], f"event handler on <{tag}>"
        for name in ("href", "src"):
            value = (attrs.get(name) or "").strip().lower()
            assert not value.startswith(("javascript:", "data:", "vbscript:")), f"{name}={value!r} on <{tag}>"


# --- comments -------------------------------------------------------------------------


@pytest.mark.parametrize("render", [render_comment, render_post])
@pytest.mark.parametrize(
    "text",
    [
        "<script>alert(1)</script>hello",
        "hello <script src='https://evil.example/x.js'></script>",
        "<SCRIPT>alert(1)</SCRIPT>hello",
        "hello\n\n<script>\nalert(1)\n</script>",
    ],
)
def test_script_elements_and_their_content_are_removed(render, text):
    """<script> is removed with its content, from comments and posts alike."""
    html = render(text)
    assert "script" not in html.lower()
    assert "alert" not in html and "evil" not in html
    assert "hello" in html


@pytest.mark.parametrize(
    "text",
    [
        '<p onclick="steal()">hi</p>',
        '<a href="https://example.com" onmouseover="steal()">hi</a>',
        '<em onfocus="steal()" tabindex="1">hi</em>',
        '<img src="x" onerror="steal()">',
        '<b ONCLICK="steal()">hi</b>',
    ],
)
def test_comment_loses_event_handler_attributes(text):
    """on* attributes are stripped from every element of a comment."""
    html = render_comment(text)
    assert "steal" not in html
    assert_inert(html)


@pytest.mark.parametrize(
    "text",
    [
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x]( javascript:alert(1))",
        '<a href="javascript:alert(1)">x</a>',
        '<a href="  javascript:alert(1)">x</a>',
        '<a href="jav&#x09;ascript:alert(1)">x</a>',
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "[x](vbscript:msgbox(1))",
    ],
)
def test_comment_links_with_script_urls_lose_their_href(text):
    """A javascript:, data: or vbscript: link keeps its text but loses its href."""
    html = render_comment(text)
    links = Elements(html).of("a")
    assert links and all("href" not in attrs for attrs in links)
    assert "alert" not in html and "msgbox" not in html
    assert_inert(html)


@pytest.mark.parametrize(
    "text",
    ["![a cat](https://example.com/cat.png)", '<img src="https://example.com/cat.png" alt="a cat">'],
)
def test_comment_drops_images(text):
    """Comments show no images, whether written in Markdown or HTML."""
    html = render_comment(text)
    assert "img" not in Elements(html).tags()
    assert "cat.png" not in html


def test_comment_keeps_single_line_breaks():
    """A single newline inside a paragraph becomes <br>."""
    elements = Elements(render_comment("first line\nsecond line"))
    assert elements.tags() == ["p", "br"]
    assert "".join(elements.text).split() == ["first", "line", "second", "line"]


def test_comment_keeps_emphasis_and_strong_emphasis():
    """*text* becomes <em> and **text** becomes <strong>."""
    assert render_comment("*soft* and **loud**") == "<p><em>soft</em> and <strong>loud</strong></p>"


def test_comment_keeps_fenced_code_blocks_with_their_text_escaped():
    """A fenced block becomes <pre><code> and its markup characters are shown, not run."""
    html = render_comment("```python\nif a < b:\n    print('<b>')\n```")
    assert html.startswith('<pre tabindex="0"><code') and html.endswith("</code></pre>")
    assert "if a &lt; b:" in html
    assert "&lt;b&gt;" in html
    assert "b" not in Elements(html).tags()


def test_code_blocks_can_be_reached_by_keyboard_to_scroll_them():
    """Every <pre> gets tabindex="0" (they scroll sideways), whatever the text says."""
    assert render_comment("    code\n") == '<pre tabindex="0"><code>code\n</code></pre>'
    assert render_post("    code\n") == '<pre tabindex="0"><code>code\n</code></pre>'
    assert render_post('<pre tabindex="-1">x</pre>') == '<pre tabindex="0">x</pre>'


def test_comment_keeps_inline_code():
    """`code` becomes <code>, escaped."""
    assert render_comment("use `<div>` here") == "<p>use <code>&lt;div&gt;</code> here</p>"


@pytest.mark.parametrize(
    "text",
    [
        "[a link](https://example.com/page)",
        "<https://example.com/page>",
        '<a href="https://example.com/page">a link</a>',
        '<a href="https://example.com/page" rel="follow">a link</a>',
        '<a href="https://example.com/page" rel="nofollow">a link</a>',
    ],
)
def test_comment_links_are_marked_nofollow_ugc_noopener(text):
    """Every comment link keeps its href and gets rel="nofollow ugc noopener", replacing any rel given."""
    links = Elements(render_comment(text)).of("a")
    assert len(links) == 1
    assert links[0]["href"] == "https://example.com/page"
    assert links[0]["rel"] == COMMENT_REL


def test_comment_links_get_no_target_attribute():
    """A target attribute (tab-nabbing) is not kept on comment links."""
    links = Elements(render_comment('<a href="https://example.com" target="_blank">x</a>')).of("a")
    assert links and all("target" not in attrs for attrs in links)


def test_comment_drops_top_level_headings_but_keeps_their_text():
    """# becomes plain text in a comment (no <h1>), while ## stays a heading."""
    elements = Elements(render_comment("# Big\n\n## Smaller"))
    assert "h1" not in elements.tags()
    assert "h2" in elements.tags()
    assert "Big" in "".join(elements.text)


_FRAGMENTS = [
    "<script>x()</script>", "<img src=x onerror=y()>", "[l](javascript:z())",
    "<a href='javascript:z()'>l</a>",
    "<p onclick='y()'>", "</p>", "<svg onload=y()>", "<iframe src='https://e.example'></iframe>",
    "<style>*{}</style>", "*em*", "**strong**", "`code`", "\n", "\n\n", "```\n", "# ", "> ", "- ",
    "[l](https://example.com)", "![i](https://example.com/i.png)", "<", ">", "&", '"', "'", "text",
    "<a href='https://e.example' rel='me'>", "</a>", "<b>", "<div>", "<table><tr><td>t</td></tr></table>",
]


@settings(max_examples=100, deadline=None)
@given(parts=st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=5)), max_size=12))
def test_any_comment_renders_to_allowed_inert_html(parts):
    """Whatever the text, a rendered comment has only the allowed tags, no images,
    nothing executable, and every link marked nofollow ugc noopener."""
    html = render_comment("".join(parts))
    assert_inert(html)
    elements = Elements(html)
    assert set(elements.tags()) <= COMMENT_TAGS
    assert all(attrs.get("rel") == COMMENT_REL for attrs in elements.of("a"))


# --- posts ----------------------------------------------------------------------------


def test_post_keeps_images_with_their_source_and_alt_text():
    """An author's Markdown image stays an <img> with its src and alt."""
    images = Elements(render_post("![a cat](https://example.com/cat.png)")).of("img")
    assert images == [{"alt": "a cat", "src": "https://example.com/cat.png"}]


def test_post_image_loses_event_handlers():
    """An <img> in a post keeps its src but not onerror."""
    html = render_post('<img src="https://example.com/cat.png" onerror="steal()">')
    assert Elements(html).of("img") == [{"src": "https://example.com/cat.png"}]
    assert_inert(html)


def test_post_keeps_every_heading_level():
    """Headings # to ###### become <h1> to <h6> in a post."""
    text = "\n\n".join("#" * level + f" Level {level}" for level in range(1, 7))
    assert [tag for tag in Elements(render_post(text)).tags()] == ["h1", "h2", "h3", "h4", "h5", "h6"]


def test_post_keeps_tables():
    """A Markdown table becomes an HTML table in a post."""
    tags = set(Elements(render_post("| a | b |\n|---|---|\n| 1 | 2 |")).tags())
    assert {"table", "thead", "tbody", "tr", "th", "td"} <= tags


def test_post_does_not_turn_single_newlines_into_breaks():
    """Posts use plain Markdown line handling: a single newline is not a <br>."""
    assert "br" not in Elements(render_post("first line\nsecond line")).tags()


def test_post_links_get_noopener_without_nofollow():
    """Post links are the author's: rel is noopener only."""
    links = Elements(render_post("[home](https://example.com/)")).of("a")
    assert links == [{"href": "https://example.com/", "rel": "noopener"}]


@pytest.mark.parametrize(
    "text",
    [
        '<img src="javascript:alert(1)">',
        "[x](javascript:alert(1))",
        '<h1 onclick="alert(1)">Title</h1>',
        "<iframe src='https://evil.example'></iframe>",
    ],
)
def test_post_is_still_sanitised(text):
    """Posts lose javascript: URLs, event handlers and iframes too."""
    html = render_post(text)
    assert "alert" not in html and "iframe" not in html
    assert_inert(html)
