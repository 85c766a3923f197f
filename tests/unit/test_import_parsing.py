"""The import engine's pure parts: comment text as Markdown (comments/transfer/import_text.py), slugs
from links (import_threads.py), safe XML reading (import_files.py), imported ids
(import_ledger.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from io import BytesIO

import pytest

from comments.transfer import import_files, import_ledger, import_text, import_threads
from comments.transfer.import_records import BadSource, SourceThread


def xml(text: str) -> BytesIO:
    return BytesIO(text.encode("utf-8"))


def test_comment_text_keeps_links_emphasis_paragraphs_and_code_as_markdown():
    html = '<p>A <em>b</em> <strong>c</strong> <a href="https://x.example/">d</a></p><p><code>e()</code></p>'
    assert import_text.comment_text(html) == "A *b* **c** [d](https://x.example/)\n\n`e()`"


def test_comment_text_drops_what_the_site_would_not_show_and_escapes_markup_characters():
    html = '<p onclick="x()">Hi <img src="x.png"> <iframe src="//e"></iframe>&lt;b&gt; # *</p><style>p{}</style>'
    text = import_text.comment_text(html)
    assert text == "Hi \\<b\\> \\# \\*"
    assert "onclick" not in text and "img" not in text and "p{}" not in text


def test_comment_text_of_nothing_is_empty():
    assert import_text.comment_text("") == "" and import_text.comment_text("<p> </p>") == ""


@pytest.mark.parametrize("link, slug", [
    ("https://blog.example.com/posts/hello/", "hello"),
    ("https://blog.example.com/posts/hello", "hello"),
    ("/posts/hello/?utm=1#c-x", "hello"),
    ("https://blog.example.com/2012/hello/", None),
    ("https://blog.example.com/posts/", None),
    ("", None),
])
def test_link_slug_reads_the_site_post_path(link, slug):
    assert import_threads.link_slug(link) == slug


def test_draft_slug_falls_back_from_link_to_identifier_to_key():
    def thread(**fields):
        return SourceThread(source="disqus", key="77", **fields)

    assert import_threads.draft_slug(thread(link="https://old.example/a/Some_Article.php")) == "some-article"
    assert import_threads.draft_slug(thread(identifier="Über Post 3")) == "uber-post-3"  # Latin folded, as post slugs
    assert import_threads.draft_slug(thread(identifier="नमस्ते दुनिया")) == "नमस्ते-दुनिया"  # any script kept, marks too
    encoded = "https://old.example/%E0%A4%A8%E0%A4%AE%E0%A4%B8%E0%A5%8D%E0%A4%A4%E0%A5%87.html"
    assert import_threads.draft_slug(thread(link=encoded)) == "नमस्ते"
    assert import_threads.draft_slug(thread()) == "imported-77"


def test_read_xml_gives_outermost_wanted_elements_with_their_lines():
    found = list(import_files.read_xml(xml('<r xmlns="urn:x">\n<a i="1"><a/></a>\n<b/>\n<a i="2">t</a></r>'),
                                    tags={"a"}))
    assert [(line, import_files.local(e.tag), e.get("i")) for line, e in found] == [(2, "a", "1"), (4, "a", "2")]
    assert found[0][1].tag == "{urn:x}a" and len(found[0][1]) == 1


def test_read_xml_refuses_an_internal_entity_and_resolves_nothing():
    with pytest.raises(BadSource, match="Line 1: entity declarations are refused .entity 'e'"):
        list(import_files.read_xml(xml('<!DOCTYPE r [<!ENTITY e "boom">]><r><a>&e;</a></r>'), tags={"a"}))


def test_read_xml_names_the_line_of_a_break_after_giving_what_came_before():
    items = import_files.read_xml(xml("<r>\n<a>1</a>\n<a>2</b>\n</r>"), tags={"a"})
    assert next(items)[1].text == "1"
    with pytest.raises(BadSource, match="Line 3: mismatched tag"):
        next(items)


def test_imported_ids_are_the_same_on_every_run_and_ordered_by_time():
    at = datetime(2012, 1, 2, tzinfo=UTC)
    first = import_ledger.imported_id(source="disqus", source_id="1", posted=at)
    assert first == import_ledger.imported_id(source="disqus", source_id="1", posted=at)
    assert first != import_ledger.imported_id(source="wordpress", source_id="1", posted=at)
    assert first.generation_time == at
    assert import_ledger.imported_id(source="disqus", source_id="0", posted=at + timedelta(seconds=1)) > first


def test_a_comment_nested_thousands_deep_becomes_its_text_and_stops_nothing():
    """markdownify walks HTML recursively: a body nested past the renderer's limit is
    kept as its text instead of raising RecursionError mid-import."""
    deep = "<blockquote>" * 5000 + "still <em>here</em>" + "</blockquote>" * 5000
    assert import_text.comment_text(deep) == "still here"
    shallow = "<p>one<br>two<br>three</p>" * 50
    assert import_text.comment_text("<p>a <strong>b</strong></p>") == "a **b**"
    assert import_text.comment_text(shallow).count("one") == 50  # line breaks are not nesting
