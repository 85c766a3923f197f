"""What an import says when it cannot do what was asked (issue 36): a database without
its indexes, a file with no post, a file cut short after batches were written, a
thread deleted in the source, refused records named by line and id."""

import re
from datetime import datetime
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from cms import posts
from cms.wxr import records as wxr_records
from comments.management.commands.import_comments import NO_INDEXES
from comments.stores import get_store
from comments.transfer import disqus, import_records, importing
from comments.transfer.import_records import MORE_REFUSALS, REFUSED_RECORD, SourceComment, SourceThread
from comments.transfer.importing import Importer
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


# --- A file that yields no post (item 25; WordPress's: cms/test_import_wordpress_namespaces.py)


@pytest.mark.parametrize("body", ["<feed><entry><title>Not Disqus</title></entry></feed>",
                                  '<disqus><thread dsq:id="1" xmlns:dsq="x"><link>/posts/a/</link></thread></disqus>'])
def test_a_file_with_no_disqus_post_stops_the_command_with_an_error(tmp_path, body):
    other = tmp_path / "other.xml"
    other.write_text(f'<?xml version="1.0"?>{body}\n', encoding="utf-8")
    with pytest.raises(CommandError, match=re.escape(disqus.NOTHING_READ)):
        run(str(other))


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
                                 reason=wxr_records.UNKNOWN_APPROVAL.format(value="maybe")) in out.getvalue()


# --- A file cut short says what was written; deleted threads are skipped (item 27) ---------


def written_before(comments: int, posts: int, created: int = 0) -> str:
    made = import_records.POSTS_CREATED.format(count=created) if created else ""
    return import_records.WRITTEN_BEFORE.format(comments=comments, posts=posts, created=made)


def test_a_malformed_file_says_what_was_written_before_it_and_how_to_go_on(make_post, tmp_path):
    """It used to name only the line: the two comments already written went unsaid."""
    hello = make_post(slug="hello-world")
    broken = FIXTURES / "disqus-broken.xml"
    with pytest.raises(CommandError) as stopped:
        run("--batch-size", "1", str(broken))
    assert str(stopped.value) == f"Line 19: mismatched tag. {written_before(2, 1)}"
    assert set(imported(hello)) == {"2001", "2002"}
    fixed = tmp_path / "fixed.xml"
    fixed.write_text(broken.read_text(encoding="utf-8").replace("</pots>", "</post>"), encoding="utf-8")
    assert "Comments: 2 imported, 2 skipped as already imported" in run(str(fixed))  # as the message says


def test_a_malformed_file_before_any_write_says_nothing_was_written(make_post, tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text('<?xml version="1.0"?><disqus><thread dsq:id="1"></disqus>\n', encoding="utf-8")
    with pytest.raises(CommandError, match=rf"^Line 1: .*\. {import_records.NOTHING_WRITTEN}$"):
        run(str(bad))


@pytest.mark.usefixtures("db")
def test_a_malformed_wordpress_file_counts_the_posts_and_comments_written_before_it(tmp_path):
    item = ("<item><title>{n}</title><wp:post_id>{n}</wp:post_id><wp:post_name>p{n}</wp:post_name>"
            "<wp:status>publish</wp:status><wp:post_type>post</wp:post_type>"
            "<wp:comment><wp:comment_id>{n}</wp:comment_id><wp:comment_approved>1</wp:comment_approved>"
            "<wp:comment_date_gmt>2024-01-05 10:00:00</wp:comment_date_gmt>"
            "<wp:comment_content>Hi</wp:comment_content></wp:comment></item>\n")
    export = tmp_path / "export.xml"
    export.write_text('<?xml version="1.0"?>\n<rss xmlns:wp="http://wordpress.org/export/1.2/"><channel>\n'
                      + item.format(n=1) + item.format(n=2).replace("</item>", "</wp:comment>"), encoding="utf-8")
    out = StringIO()
    with pytest.raises(CommandError) as stopped:
        call_command("import_comments", "--format", "wordpress", "--no-progress", str(export), stdout=out)
    assert str(stopped.value).endswith(written_before(1, 1, created=1))
    assert "Posts: 1 created, 0 already here." in out.getvalue()


DELETED_THREAD = """<?xml version="1.0" encoding="utf-8"?>
<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">
  <thread dsq:id="1"><link>https://blog.example.com/posts/kept/</link><isDeleted>false</isDeleted></thread>
  <thread dsq:id="2"><link>https://blog.example.com/posts/gone/</link><title>Gone</title>
    <isDeleted>true</isDeleted></thread>
  <thread dsq:id="3"><link>https://old.example.net/also-gone/</link><isDeleted>true</isDeleted></thread>
  <post dsq:id="10"><message>On kept</message><createdAt>2020-01-01T10:00:00Z</createdAt><thread dsq:id="1"/></post>
  <post dsq:id="20"><message>On gone</message><createdAt>2020-01-01T10:00:00Z</createdAt><thread dsq:id="2"/></post>
  <post dsq:id="21"><message>Reply</message><createdAt>2020-01-01T11:00:00Z</createdAt><thread dsq:id="2"/>
    <parent dsq:id="20"/></post>
  <post dsq:id="30"><message>On also gone</message><createdAt>2020-01-01T10:00:00Z</createdAt>
    <thread dsq:id="3"/></post>
</disqus>
"""


@pytest.mark.usefixtures("each_store")
def test_a_thread_deleted_in_disqus_is_skipped_with_its_comments_and_reported(make_post, tmp_path):
    """Its comments used to go onto the post its link names (and a draft was made for
    one no post matches)."""
    kept, gone = make_post(slug="kept"), make_post(slug="gone")
    export = tmp_path / "deleted.xml"
    export.write_text(DELETED_THREAD, encoding="utf-8")
    lines = run("--create-missing", str(export)).splitlines()
    assert set(imported(kept)) == {"10"} and imported(gone) == {}
    assert posts.get_by_slug("also-gone") is None  # no draft for a deleted thread
    assert "Threads/posts: 1 matched, 0 created, 0 skipped." in lines
    assert import_records.DELETED_THREAD.format(what="https://blog.example.com/posts/gone/ (line 4)") in lines
    assert import_records.DELETED_THREAD.format(what="https://old.example.net/also-gone/ (line 6)") in lines
    assert f"  skipped: 3 {importing.THREAD_DELETED}" in lines


# --- Batches: the store's own unless asked ---------------------------------------------------


@pytest.mark.usefixtures("each_store")
def test_an_import_writes_batches_of_the_stores_own_size_unless_asked():
    """A container store rewrites each container a batch adds to, so it takes larger
    batches than the documents store's one insert_many."""
    store = get_store()
    assert Importer(source="test").batch_size == store.import_batch == (500 if store.name == "documents" else 2_000)
    assert Importer(source="test", batch_size=7).batch_size == 7


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_a_batch_size_that_is_not_a_number_of_comments_is_refused_before_anything_is_read(value, make_post):
    hello = make_post(slug="hello-world")
    with pytest.raises(CommandError, match=re.escape(f"{value!r} is not a number of comments")):
        run("--batch-size", value, str(EXPORT))
    assert imported(hello) == {}
