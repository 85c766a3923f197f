"""Imported commenters are cleaned as the comment form's are (comments/posting/commenters.py,
called by comments/transfer/importing.py for Disqus and WordPress): no direction controls or
line breaks in names, no header injection in addresses, addresses normalised, and an
author's name refused unless the operator trusts the file (`--trust-names`)."""

from __future__ import annotations

from datetime import UTC, datetime
from io import StringIO

import pytest
from django.core.management import call_command

from cms import posts
from cms.wxr import importer
from comments.posting import commenters, names
from comments.stores import get_store
from comments.transfer.import_records import SourceComment, SourceThread
from comments.transfer.importing import Importer

WHEN = datetime(2015, 6, 1, 12, tzinfo=UTC)


def comment(key: str, *, name: str = "Reader", email: str = "") -> SourceComment:
    return SourceComment(source="test", id=key, thread="t1", parent=None, posted=WHEN, html=f"<p>{key}</p>",
                         author_name=name, author_email=email)


def run(post, comments, **options):
    importer = Importer(source="test", **options)
    importer.add_thread(SourceThread(source="test", key="t1"), post_id=post.id)
    for item in comments:
        importer.add(item)
    return importer.finish()


def authors(post) -> dict[str, dict]:
    return {d["imported"]["id"]: d["author"] for d in get_store().iter_documents(discussion_id=post.id)}


def test_imported_names_and_addresses_are_cleaned_as_the_forms_are(make_post):
    post = make_post()
    report = run(post, [
        comment("bidi", name="\u202eonurB"),
        comment("nel", name="Im\x85p\u2028X"),
        comment("wide", name="Dave", email="Dave@ｔarget.test"),
        comment("bcc", name="Eve", email="eve@example.com\r\nBcc: all@example.com"),
        comment("junk", name="Fay", email="not an address"),
    ])
    stored = authors(post)
    assert stored["bidi"]["name"] == "onurB" and stored["nel"]["name"] == "Im p X"
    assert stored["wide"]["email"] == "dave@target.test"
    assert "bcc" not in stored and "junk" not in stored
    assert report.refused == {commenters.CONTROL_IN_EMAIL: 1, commenters.BAD_EMAIL: 1}


def test_an_authors_name_is_refused_unless_the_operator_trusts_the_file(make_post):
    """The test posts are Ada Lindqvist's: a file cannot put her name, however spelled,
    under anyone's words, unless the operator says the file is trusted."""
    post = make_post()
    impostors = [comment("plain", name="Ada Lindqvist"), comment("greek", name="Αda Lindqvist"),
                 comment("other", name="Ada Lovelace")]
    report = run(post, impostors)
    assert set(authors(post)) == {"other"}
    assert report.refused == {commenters.RESERVED_NAME: 2}
    assert any(commenters.RESERVED_NAME in line for line in report.lines())
    trusted = run(post, impostors, trust_names=True)
    assert set(authors(post)) == {"plain", "greek", "other"} and trusted.refused == {}


DISQUS = """<?xml version="1.0" encoding="utf-8"?>
<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">
  <thread dsq:id="1"><id>{slug}</id><link>https://old.example.com/posts/{slug}/</link><title>T</title></thread>
  <post dsq:id="11"><message><![CDATA[<p>Signed by the author</p>]]></message>
    <createdAt>2015-06-01T12:00:00Z</createdAt><isDeleted>false</isDeleted><isSpam>false</isSpam>
    <author><name>Ada Lindqvist</name><email>ada@example.com</email></author><thread dsq:id="1"/></post>
  <post dsq:id="12"><message><![CDATA[<p>By a reader</p>]]></message>
    <createdAt>2015-06-01T13:00:00Z</createdAt><isDeleted>false</isDeleted><isSpam>false</isSpam>
    <author><name>Rea&#x202e;der</name><email>READER@ｅxample.com</email></author><thread dsq:id="1"/></post>
</disqus>
"""


def test_import_comments_refuses_an_authors_name_and_trust_names_lets_it_in(make_post, tmp_path):
    post = make_post(slug="imported-post")
    export = tmp_path / "disqus.xml"
    export.write_text(DISQUS.format(slug=post.slug), encoding="utf-8")
    out = StringIO()
    call_command("import_comments", str(export), "--format", "disqus", "--no-progress", stdout=out)
    assert f"refused: 1 {commenters.RESERVED_NAME}" in out.getvalue()
    assert authors_by_text(post) == {"By a reader": {"name": "Reader", "email": "reader@example.com"}}
    call_command("import_comments", str(export), "--format", "disqus", "--no-progress", "--trust-names",
                 stdout=StringIO())
    assert authors_by_text(post)["Signed by the author"]["name"] == "Ada Lindqvist"


def authors_by_text(post) -> dict[str, dict]:
    return {d["text"]: {"name": d["author"]["name"], "email": d["author"]["email"]}
            for d in get_store().iter_documents(discussion_id=post.id)}


WXR = """<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
  xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
  <wp:base_site_url>https://notes.example.org</wp:base_site_url>
  <wp:author><wp:author_id>1</wp:author_id><wp:author_login>margit</wp:author_login><wp:author_display_name>Margit Halvorsen</wp:author_display_name></wp:author>
  <item>
    <title>Swifts</title><dc:creator>margit</dc:creator><content:encoded>Swifts.</content:encoded>
    <wp:post_id>10</wp:post_id><wp:post_date_gmt>2024-05-05 17:30:00</wp:post_date_gmt>
    <wp:post_name>swifts</wp:post_name><wp:status>publish</wp:status><wp:post_type>post</wp:post_type>
    {comments}
  </item>
</channel>
</rss>
"""
WXR_COMMENT = """<wp:comment><wp:comment_id>{id}</wp:comment_id><wp:comment_author>{name}</wp:comment_author>
  <wp:comment_date_gmt>2024-05-05 18:{id}:00</wp:comment_date_gmt><wp:comment_content>{id}</wp:comment_content>
  <wp:comment_approved>1</wp:comment_approved><wp:comment_type></wp:comment_type>
  <wp:comment_user_id>{user}</wp:comment_user_id></wp:comment>"""


@pytest.mark.django_db
def test_a_wordpress_author_keeps_their_name_on_their_own_comments_only(tmp_path):
    """The export's author 1 wrote comment 11 (WordPress's comment_user_id) under her name:
    it keeps it. A visitor (user 0), or another user, using her name is refused."""
    comments = "".join(WXR_COMMENT.format(id=k, name=name, user=user) for k, name, user in (
        (11, "Margit Halvorsen", 1), (12, "Margit Halvorsen", 0), (13, "Margit Halvorsen", 2), (14, "Ines", 0)))
    export = tmp_path / "wp.xml"
    export.write_text(WXR.format(comments=comments), encoding="utf-8")
    assert names.reserved() == names.Reserved()  # cached before the import makes its author
    outcome = importer.run(path=str(export), progress=False)
    post = posts.get_by_slug("swifts")
    stored = {d["imported"]["id"]: d["author"]["name"] for d in get_store().iter_documents(discussion_id=post.id)}
    assert stored == {"11": "Margit Halvorsen", "14": "Ines"}
    assert any(f"refused: 2 {commenters.RESERVED_NAME}" in line for line in outcome.lines())
