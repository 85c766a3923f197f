"""The one HTML -> Markdown path (infra/html_markdown.py, markdownify configured), and
WordPress's preparation of a post body before it (cms/wxr/content.py): each case that
once needed a hand-written converter, checked by what the Markdown renders to."""

from __future__ import annotations

import pytest

from cms.wxr.content import autop, html_to_markdown
from comments.transfer.import_text import comment_text
from infra.html_markdown import to_markdown
from infra.markup import NESTING_LIMIT, render_post


def shown(html: str) -> str:
    return render_post(to_markdown(html))


@pytest.mark.parametrize(
    ("html", "rendered"),
    [
        # Markdown's own characters in the text stay text.
        (
            "<p>1986. was * a _year_ [x] &amp; &lt;tag&gt; # not</p>",
            "<p>1986. was * a _year_ [x] &amp; &lt;tag&gt; # not</p>",
        ),
        ("<p>Price: $5 | 10% off ~ now = later, a+b</p>", "<p>Price: $5 | 10% off ~ now = later, a+b</p>"),
        # What would start a list or a heading at the start of a line, after a break.
        ("<p>- dash<br>+ plus<br>2) two<br># hash</p>", "<p>- dash<br>\n+ plus<br>\n2) two<br>\n# hash</p>"),
        # Entities are read once: an escaped entity stays the text it spelled.
        ("<p>&lt;b&gt; &amp;amp; &copy; &#8220;q&#8221;</p>", "<p>&lt;b&gt; &amp;amp; © “q”</p>"),
    ],
)
def test_text_that_looks_like_markdown_stays_text(html, rendered):
    assert shown(html) == rendered


def test_a_line_break_is_a_backslash_break_and_none_is_left_at_a_paragraph_edge():
    assert to_markdown("<p>one<br>\ntwo</p>") == "one\\\ntwo"
    assert shown("<p>one<br>\ntwo</p>") == "<p>one<br>\ntwo</p>"
    assert to_markdown("<p><br>lead<br><br></p><p>next</p>") == "lead\n\nnext"


def test_emphasis_keeps_its_spaces_outside_the_markers():
    assert shown("<p>Say <em>hi </em>there and<strong> bold</strong>.</p>") == (
        "<p>Say <em>hi</em> there and <strong>bold</strong>.</p>"
    )
    assert to_markdown("<p><b>b</b> <i>i</i></p>") == "**b** *i*"


def test_code_blocks_are_fenced_longer_than_any_backticks_in_them():
    html = "<pre><code>a &lt; b\n\n```\n</code></pre>"
    assert to_markdown(html) == "````\na < b\n\n```\n````"
    assert shown(html) == '<pre tabindex="0"><code>a &lt; b\n\n```\n</code></pre>'
    assert shown("<pre>plain\n  indented\n</pre>") == '<pre tabindex="0"><code>plain\n  indented\n</code></pre>'


def test_inline_code_with_backticks_keeps_them():
    assert shown("<p><code>x`y</code> and <code>a &lt; b</code></p>") == "<p><code>x`y</code> and <code>a &lt; b</code></p>"


def test_what_markdown_cannot_say_inline_stays_a_tag():
    html = '<p>E = mc<sup>2</sup>, H<sub>2</sub>O, <del>old</del> <s>gone</s> <abbr title="t">HTML</abbr></p>'
    assert shown(html) == "<p>E = mc<sup>2</sup>, H<sub>2</sub>O, <del>old</del> <del>gone</del> <abbr>HTML</abbr></p>"


def test_links_keep_their_titles_and_addresses_with_spaces():
    html = '<p>See <a href="https://x.org/a b" title="The &quot;x&quot;">the x</a>, <a href="">no link</a>.</p>'
    assert to_markdown(html) == 'See [the x](<https://x.org/a b> "The \\"x\\""), no link.'
    assert shown(html) == (
        '<p>See <a href="https://x.org/a%20b" title="The &quot;x&quot;" rel="noopener">the x</a>, no link.</p>'
    )
    assert to_markdown('<p><a href="/y"></a>empty</p>') == "empty"


def test_images_keep_their_alt_text_whole_and_their_titles():
    assert shown('<p><img src="/a b.png" alt="A *b*"></p>') == '<p><img src="/a%20b.png" alt="A *b*"></p>'
    assert shown('<p><img src="/p.png" alt="P" title="Pic"></p>') == '<p><img src="/p.png" alt="P" title="Pic"></p>'


def test_lists_nest_and_numbered_lists_keep_their_first_number():
    assert to_markdown('<ol start="3"><li>three</li><li>four</li></ol>') == "3. three\n4. four"
    html = "<ul><li>one<ul><li>a</li><li>b<ol><li>x</li></ol></li></ul></li><li>two</li></ul>"
    assert to_markdown(html) == "- one\n  - a\n  - b\n    1. x\n- two"
    assert shown(html) == (
        "<ul>\n<li>one\n<ul>\n<li>a</li>\n<li>b\n<ol>\n<li>x</li>\n</ol>\n</li>\n</ul>\n</li>\n<li>two</li>\n</ul>"
    )


def test_headings_rules_and_quotes():
    html = "<h2>Title <em>x</em></h2><hr><blockquote><p>q1</p><p>q2</p></blockquote>"
    assert to_markdown(html) == "## Title *x*\n\n---\n\n> q1\n>\n> q2"
    assert shown(html) == "<h2>Title <em>x</em></h2>\n<hr>\n<blockquote>\n<p>q1</p>\n<p>q2</p>\n</blockquote>"


def test_tables_and_figures_stay_whole_html_blocks_without_blank_lines():
    markdown = to_markdown("<p>Counts:</p><table><tr><td>swifts</td>\n\n<td>12</td></tr></table><p>End</p>")
    assert markdown == "Counts:\n\n<table><tr><td>swifts</td>\n<td>12</td></tr></table>\n\nEnd"
    assert "<td>12</td>" in render_post(markdown) and render_post(markdown).endswith("<p>End</p>")
    figure = to_markdown('<figure><img src="a.png"><figcaption>Cap</figcaption><script>x()</script></figure>')
    assert figure == '<figure><img src="a.png"/><figcaption>Cap</figcaption></figure>'


def test_scripts_frames_and_form_controls_go_with_their_content():
    assert to_markdown("<p>x<script>alert(1)</script><style>p{}</style><iframe src=x>f</iframe></p>") == "x"
    assert to_markdown("<form><input name=a><textarea>t</textarea><button>Go</button></form><p>after</p>") == "after"


def test_html_nested_thousands_deep_keeps_its_text_without_recursing_that_deep():
    markdown = to_markdown("<div><em>" * 5000 + "deep" + "</em></div>" * 5000 + "<p>after</p>")
    assert "deep" in markdown and markdown.endswith("after")
    just_deep_enough = to_markdown("<div>" * NESTING_LIMIT + "<em>kept</em>" + "</div>" * NESTING_LIMIT)
    assert just_deep_enough == "kept"


# --- WordPress's bodies, before the shared path -----------------------------------------


def test_block_editor_comments_are_dropped_and_its_paragraphs_kept():
    html = "<!-- wp:paragraph -->\n<p>Owls, <em>later</em>.</p>\n<!-- /wp:paragraph -->"
    assert html_to_markdown(html) == "Owls, *later*.\n"


def test_a_classic_body_gets_wordpress_paragraphs_and_its_pre_is_left_alone():
    html = "First line\nsecond line\n\nNew para\n<pre>keep\n\nthis</pre>"
    assert autop(html).startswith("<p>First line<br>\nsecond line</p>\n\n<p>New para")
    assert render_post(html_to_markdown(html)) == (
        '<p>First line<br>\nsecond line</p>\n<p>New para</p>\n<pre tabindex="0"><code>keep\n\nthis\n</code></pre>'
    )


def test_shortcodes_go_and_what_they_wrap_stays():
    html = '[caption id="c1" align="alignnone"]<img src="s.jpg" alt="Swift"> A swift[/caption]\n\n[gallery ids="1,2"]'
    assert html_to_markdown(html) == "![Swift](s.jpg) A swift\n"


def test_imported_comments_take_the_same_path():
    """The comment importer's text is the shared path's, after its own sanitising."""
    assert comment_text("<p>Line one<br>two * three</p><p>1. not a list</p>") == "Line one\\\ntwo \\* three\n\n1\\. not a list"
