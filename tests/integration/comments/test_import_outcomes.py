"""What an import says when it cannot do what was asked (issue 36): a database without
its indexes, a file cut short after batches were written, a thread deleted in the
source, refused records named by line and id."""

from datetime import datetime
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from cms.wxr import importer as wxr_importer
from comments import disqus, import_records, importing
from comments.import_records import MORE_REFUSALS, REFUSED_RECORD, SourceComment, SourceThread
from comments.importing import Importer
from comments.management.commands.import_comments import NO_INDEXES
from comments.stores import get_store
from infra import mongo

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "imports"
EXPORT = FIXTURES / "disqus-export.xml"
ON_HELLO = {"2001", "2002", "2003", "2004", "2005", "2010", "2011"}


def run(*args: str) -> str:
    out = StringIO()
    call_command("import_comments", "--format", "disqus", "--no-progress", *args, stdout=out)
    return out.getvalue()


def imported(post) -> dict[str, dict]:
    return {d["imported"]["id"]: d for d in get_store().iter_documents(discussion_id=post.id)}


@pytest.fixture
def fresh_database(settings, mongo_db):
    """The site switched to a database in which no index was ever made, dropped after."""
    settings.MONGODB_NAME = f"{mongo_db.name}_fresh"
    yield mongo.get_db()
    mongo.get_client().drop_database(settings.MONGODB_NAME)


# --- A database whose indexes were never made (item 26) -----------------------------------


@pytest.mark.usefixtures("each_store")
def test_an_import_into_a_database_without_indexes_makes_them_first(fresh_database, make_post):
    """It used to write a first batch, then stop with a traceback ("index specified by
    index hint is not found"); now every comment goes in."""
    hello, _ = make_post(slug="hello-world"), make_post(slug="second-post")
    assert fresh_database.list_collection_names() == ["posts"] and len(fresh_database.posts.index_information()) == 1
    out = run("--batch-size", "2", str(EXPORT))
    assert "Comments: 8 imported" in out and set(imported(hello)) == ON_HELLO
    assert len(fresh_database.posts.index_information()) > 1


def test_a_database_that_refuses_the_indexes_stops_the_import_before_any_write(fresh_database, make_post):
    hello = make_post(slug="hello-world")
    fresh_database.posts.create_index("title", name="status_published")  # a name the site uses for other keys
    with pytest.raises(CommandError, match=NO_INDEXES.split("(")[0]):
        run(str(EXPORT))
    assert imported(hello) == {} and fresh_database.comment_imports.count_documents({}) == 0


# --- Every refused record named by its line and id (item 29) -------------------------------


def test_each_refused_record_is_named_by_its_line_and_id(make_post, tmp_path):
    """A refused time used to be only counted ("refused: 1 its time is out of range"),
    so it could not be found in a large file."""
    make_post(slug="hello-world"), make_post(slug="second-post")
    far = tmp_path / "far.xml"
    far.write_text(EXPORT.read_text(encoding="utf-8").replace("2012-02-02T10:00:00Z", "9999-12-31T23:59:59-23:59"),
                   encoding="utf-8")
    lines = run(str(far)).splitlines()
    assert f"  refused: 1 {import_records.TIME_OUT_OF_RANGE}" in lines
    assert [line for line in lines if line.startswith("  refused ")] == [
        REFUSED_RECORD.format(what="disqus comment 2006 (line 112)", reason=import_records.TIME_OUT_OF_RANGE),
        REFUSED_RECORD.format(what="disqus comment 2007 (line 121)", reason=disqus.NO_TIME),
        REFUSED_RECORD.format(what="disqus record without an id (line 136)", reason=disqus.NO_ID.format(what="post")),
        REFUSED_RECORD.format(what="disqus comment 2012 (line 141)",
                              reason=importing.UNKNOWN_THREAD.format(thread="1999")),
    ]


def test_past_the_first_few_refused_records_the_others_are_counted(make_post, monkeypatch):
    monkeypatch.setattr(import_records, "REFUSALS_SHOWN", 2)
    post = make_post()
    importer = Importer(source="test")
    importer.add_thread(SourceThread(source="test", key="t1"), post_id=post.id)
    for k in range(5):
        importer.add(SourceComment(source="test", id=f"n{k}", thread="t1", parent=None, line=10 + k,
                                   posted=datetime(2015, 6, 1), html="naive"))
    lines = importer.finish().lines()
    assert [line for line in lines if line.startswith("  refused ")] == [
        REFUSED_RECORD.format(what=f"test comment n{k} (line {10 + k})", reason=importing.NAIVE_TIME) for k in (0, 1)
    ]
    assert MORE_REFUSALS.format(count=3) in lines and f"  refused: 5 {importing.NAIVE_TIME}" in lines


def test_a_refused_wordpress_comment_is_named_by_its_own_line_not_its_posts(make_post, tmp_path):
    make_post(slug="one")
    export = tmp_path / "export.xml"
    export.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<rss version="2.0" xmlns:wp="http://wordpress.org/export/1.2/">\n'
        "<channel><wp:base_site_url>https://notes.example.org</wp:base_site_url>\n"
        "<item><title>One</title><wp:post_id>1</wp:post_id><wp:post_name>one</wp:post_name>\n"
        "<wp:status>publish</wp:status><wp:post_type>post</wp:post_type>\n"
        "<wp:comment><wp:comment_id>7</wp:comment_id><wp:comment_approved>1</wp:comment_approved>\n"
        "<wp:comment_date_gmt>2024-01-05 10:00:00</wp:comment_date_gmt>\n"
        "<wp:comment_content>Fine</wp:comment_content></wp:comment>\n"
        "<wp:comment><wp:comment_id>8</wp:comment_id><wp:comment_approved>maybe</wp:comment_approved>\n"
        "<wp:comment_content>Odd</wp:comment_content></wp:comment>\n"
        "</item></channel></rss>\n", encoding="utf-8")
    out = StringIO()
    call_command("import_comments", "--format", "wordpress", "--no-progress", "--comments-only", str(export),
                 stdout=out)
    assert REFUSED_RECORD.format(what="wordpress@notes.example.org comment 8 (line 9)",
                                 reason=wxr_importer.UNKNOWN_APPROVAL.format(value="maybe")) in out.getvalue()
