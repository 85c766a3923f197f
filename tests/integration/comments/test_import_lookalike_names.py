"""An author's name in look-alike capitals or with its words reordered is refused by
every importer (JSON Lines, Disqus, WordPress: comments/posting/commenters.py), as by the form."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from cms import posts
from cms.posts import AuthorSummary
from comments.posting import commenters
from comments.stores import get_store
from tests.integration.comments.test_backup import hostile_line
from tests.integration.comments.test_import_commenters import DISQUS, WXR, WXR_COMMENT

# The test posts are Ada Lindqvist's; Bruno Okafor has one too.
IMPOSTORS = [
    "ADA LIΝDQVIST",  # a Greek capital Ν, whose lower case ν reads as a v
    "ADA LINDQVIЅТ",  # Cyrillic capitals Ѕ and Т (т reads as a small capital)
    "Lindqvist, Ada",
    "ВRUNO OKAFOR",  # a Cyrillic capital В (в reads as a small capital)
    "Okafor Bruno",
]


@pytest.fixture
def bruno(make_post):
    return make_post(author=AuthorSummary(id=2, username="bruno", name="Bruno Okafor"))


def stored_names(post) -> list[str]:
    return sorted(d["author"]["name"] for d in get_store().iter_documents(discussion_id=post.id))


@pytest.mark.parametrize("name", IMPOSTORS)
def test_a_json_lines_import_refuses_an_authors_name_in_capitals_or_reordered(make_post, bruno, tmp_path, name):
    post = make_post()
    dump = tmp_path / "impostor.jsonl"
    dump.write_text(hostile_line(post, name=name))
    with pytest.raises(CommandError, match="the name of one of this site's authors"):
        call_command("import_comments", str(dump), stdout=StringIO())
    assert stored_names(post) == []


def test_a_disqus_import_refuses_authors_names_in_capitals_or_reordered(make_post, bruno, tmp_path):
    post = make_post(slug="imported-post")
    export = tmp_path / "disqus.xml"
    head, post_template, tail = split_disqus()
    lines = [post_template.replace('dsq:id="11"', f'dsq:id="{20 + n}"').replace("Ada Lindqvist", name)
             .replace("2015-06-01T12:00:00Z", f"2015-06-01T12:0{n}:00Z") for n, name in enumerate(IMPOSTORS)]
    export.write_text(head + "".join(lines) + tail, encoding="utf-8")
    out = StringIO()
    call_command("import_comments", str(export), "--format", "disqus", "--no-progress", stdout=out)
    assert f"refused: {len(IMPOSTORS)} {commenters.RESERVED_NAME}" in out.getvalue()
    assert stored_names(post) == []


def split_disqus() -> tuple[str, str, str]:
    """The test's Disqus export around its first post (the author's): before, the post, after."""
    text = DISQUS.format(slug="imported-post")
    start = text.index('  <post dsq:id="11">')
    end = text.index('  <post dsq:id="12">')
    return text[:start], text[start:end], text[text.index("</disqus>"):]


@pytest.mark.django_db
def test_a_wordpress_import_refuses_authors_names_in_capitals_or_reordered(make_post, bruno, tmp_path):
    """Margit Halvorsen, the export's author, is made an author by the run; a visitor
    signing as her, as Ada Lindqvist or as Bruno Okafor in look-alike capitals or
    reordered is refused."""
    make_post()
    names = IMPOSTORS + ["ΜARGIT HALVORSEN", "Halvorsen, Margit"]
    comments = "".join(WXR_COMMENT.format(id=10 + n, name=name, user=0) for n, name in enumerate(names))
    export = tmp_path / "wp.xml"
    export.write_text(WXR.format(comments=comments + WXR_COMMENT.format(id=40, name="Ines", user=0)),
                      encoding="utf-8")
    out = StringIO()
    call_command("import_comments", str(export), "--format", "wordpress", "--no-progress", stdout=out)
    assert f"refused: {len(names)} {commenters.RESERVED_NAME}" in out.getvalue()
    assert stored_names(posts.get_by_slug("swifts")) == ["Ines"]
