"""Importing a Disqus export (comments/transfer/disqus.py through `import_comments --format
disqus`): threads matched to posts, threading, times, statuses, bodies and
moderation data kept in every store; reruns add nothing; hostile XML is refused."""

from datetime import UTC, datetime
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from cms import posts
from cms.comments_host import IMPORT_AUTHOR
from comments.management.commands.import_comments import JSONL_ONLY, NEEDS_FILE, NOT_FOR_FORMAT
from comments.records import APPROVED, DELETED, PENDING, READERS, SPAM
from comments.stores import counters, get_store
from comments.transfer import disqus, import_ledger, import_records, importing
from comments.transfer.import_records import DISCUSSION_LINE

pytestmark = pytest.mark.usefixtures("each_store")

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "imports"
EXPORT = FIXTURES / "disqus-export.xml"
# The comments of disqus-export.xml that go in: thread 1001 (hello-world) and 1002 (second-post).
ON_HELLO = {"2001", "2002", "2003", "2004", "2005", "2010", "2011"}
ON_SECOND = {"2006"}


@pytest.fixture
def targets(make_post):
    """The posts the export's threads name: by link path and by identifier."""
    return make_post(slug="hello-world"), make_post(slug="second-post")


def run(*args: str) -> str:
    out = StringIO()
    call_command("import_comments", "--format", "disqus", "--no-progress", *args, stdout=out)
    return out.getvalue()


def imported(post) -> dict[str, dict]:
    """The stored comments of a post, by their Disqus id."""
    return {d["imported"]["id"]: d for d in get_store().iter_documents(discussion_id=post.id)}


def test_threads_go_to_posts_with_their_comments_threaded_timed_and_with_their_status(targets):
    """Each comment lands on its thread's post under the parent it had (a reply read
    before its parent included), keeps its time in UTC, and gets our status."""
    hello, second = targets
    out = run(str(EXPORT))
    on_hello, on_second = imported(hello), imported(second)
    assert set(on_hello) == ON_HELLO and set(on_second) == ON_SECOND
    first, deleted, reply = on_hello["2001"], on_hello["2002"], on_hello["2003"]
    assert deleted["parent_id"] == first["_id"] and reply["parent_id"] == deleted["_id"]
    assert reply["slug"] == f"{first['slug']}/{deleted['slug'].split('/')[-1]}/{reply['slug'].split('/')[-1]}"
    assert first["posted"] == datetime(2012, 1, 2, 10, tzinfo=UTC)
    assert first["full_slug"].startswith("2012.01.02.10.00.00.000000:")
    assert on_hello["2010"]["posted"] == datetime(2012, 1, 5, 6, tzinfo=UTC)  # +02:00 in the file
    statuses = {key: doc["status"] for key, doc in on_hello.items()}
    assert statuses == {"2001": APPROVED, "2002": DELETED, "2003": APPROVED, "2004": SPAM, "2005": APPROVED,
                        "2010": PENDING, "2011": APPROVED}
    assert "Threads/posts: 2 matched, 0 created, 2 skipped." in out
    assert "Comments: 8 imported, 0 skipped as already imported, 3 refused, 1 skipped." in out


def test_hidden_comments_with_approved_replies_stay_as_placeholders(targets):
    """The deleted reply and the spam, each with an approved reply, are placeholders;
    the threaded page shows them in the original order."""
    hello, _ = targets
    run(str(EXPORT))
    comments = {c.id: c for c in get_store().find_page(discussion_id=hello.id, order="threaded", limit=50, viewer=READERS)}
    by_source = imported(hello)
    assert comments[by_source["2002"]["_id"]].placeholder and comments[by_source["2004"]["_id"]].placeholder
    order = [key for key, _ in sorted(by_source.items(), key=lambda kv: kv[1]["full_slug"])
             if by_source[key]["_id"] in comments]
    assert order == ["2001", "2002", "2003", "2004", "2011", "2005"]


def test_an_orphan_goes_to_the_top_level_and_is_reported(targets):
    hello, _ = targets
    out = run(str(EXPORT))
    orphan = imported(hello)["2005"]
    assert orphan["parent_id"] is None and "/" not in orphan["slug"]
    assert "orphan: disqus comment 2005 (line" in out and "its parent 2999 is not in the file (or was refused)" in out


def test_bodies_are_sanitised_markdown_and_moderation_data_is_kept(targets):
    """HTML becomes Markdown that renders back to the same links and emphasis;
    scripts are dropped; escaped markup stays text; e-mail and IP are kept."""
    hello, second = targets
    run(str(EXPORT))
    first = imported(hello)["2001"]
    assert "**bold**" in first["text"] and "[a link](https://example.org/a_b?x=1&y=2)" in first["text"]
    assert "2\\*3" in first["text"] and "alert" not in first["text"] and "<script" not in first["html"]
    assert "<strong>bold</strong>" in first["html"] and 'rel="nofollow ugc noopener"' in first["html"]
    assert "Second paragraph" in first["text"] and "<code>if a &lt; b:" in first["html"]
    assert first["author"] == {"id": None, "name": "Ada", "email": "ada@example.com"}
    assert first["ip"] == "192.0.2.1" and first["imported"] == {"source": "disqus", "id": "2001"}
    escaped = imported(second)["2006"]
    assert "<em>italic</em>" in escaped["html"] and "&lt;b&gt; tag" in escaped["html"]
    assert "☺" in escaped["text"] and "©" in escaped["text"]
    assert escaped["author"]["name"] == "Fé <Zoë>" and escaped["ip"] == "2001:db8::1"
    assert imported(hello)["2010"]["author"]["name"] == importing.ANONYMOUS


def test_refusals_and_skips_are_counted_with_their_reasons(targets):
    out = run(str(EXPORT))
    assert f"refused: 1 {disqus.NO_TIME}" in out
    assert f"refused: 1 {disqus.NO_ID.format(what='post')}" in out
    assert f"refused: 1 {importing.UNKNOWN_THREAD.format(thread='1999')}" in out
    assert f"skipped: 1 {importing.THREAD_SKIPPED}" in out
    assert "unmatched thread: https://old.example.net/2011/05/lost-article.html (line" in out
    assert f"unmatched thread: line 38: {disqus.NO_ID.format(what='thread')}" in out


def test_post_summaries_are_right_after_the_import(targets):
    hello, second = targets
    run(str(EXPORT))
    after = posts.get_by_id(hello.id)
    assert after.comment_count == 4  # 2001, 2003, 2005, 2011: approved
    assert after.latest_comments[0].author_name == "Ed"
    assert posts.get_by_id(second.id).comment_count == 1


def test_the_summary_names_each_discussion_only_with_verbose_and_reports_no_repair(targets, caplog):
    """The import's recount of its discussions is not a repair of drifted counters
    (they were right before it: nothing drifted)."""
    hello, second = targets
    for post in targets:
        counters.recount(post.id, store=get_store())
    quiet = run(str(EXPORT))
    assert "discussion" not in quiet and "repaired" not in caplog.text
    get_store().drop_discussion(discussion_id=hello.id)
    get_store().drop_discussion(discussion_id=second.id)
    import_ledger.ledger().delete_many({})
    verbose = run("--verbose", str(EXPORT))
    assert verbose.splitlines()[:len(quiet.splitlines())] == quiet.splitlines()
    assert verbose.splitlines()[len(quiet.splitlines()):] == sorted(
        DISCUSSION_LINE.format(discussion=post.id, count=len(ids)) for post, ids in ((hello, ON_HELLO), (second, ON_SECOND)))


def test_a_second_run_imports_nothing(targets):
    hello, second = targets
    run(str(EXPORT))
    before = imported(hello), imported(second)
    out = run(str(EXPORT))
    assert "Comments: 0 imported, 8 skipped as already imported" in out
    assert (imported(hello), imported(second)) == before


def test_a_dry_run_reports_and_writes_nothing(targets):
    hello, _ = targets
    out = run("--dry-run", "--create-missing", str(EXPORT))
    assert "Comments: 9 would be imported" in out and "1 would be created" in out
    assert "Dry run: nothing was written." in out
    assert imported(hello) == {} and posts.get_by_slug("lost-article") is None
    assert posts.get_by_id(hello.id).comment_count == 0


def test_a_mapping_file_matches_threads_the_site_cannot(targets, make_post, tmp_path):
    lost = make_post(slug="found-again")
    mapping = tmp_path / "map.csv"
    mapping.write_text("https://old.example.net/2011/05/lost-article.html,found-again\n", encoding="utf-8")
    out = run("--map", str(mapping), str(EXPORT))
    assert set(imported(lost)) == {"2008"} and "3 matched" in out


def test_a_bad_mapping_row_is_named(tmp_path):
    mapping = tmp_path / "map.csv"
    mapping.write_text("a,b\nonly-one\n", encoding="utf-8")
    with pytest.raises(CommandError, match="map.csv, line 2: a mapping row is"):
        run("--map", str(mapping), str(EXPORT))


def test_create_missing_makes_a_draft_once(targets):
    run("--create-missing", str(EXPORT))
    draft = posts.get_by_slug("lost-article")
    assert draft.status == posts.DRAFT and draft.title == "A lost article"
    assert draft.author == IMPORT_AUTHOR and set(imported(draft)) == {"2008"}
    out = run("--create-missing", str(EXPORT))
    assert "3 matched, 0 created" in out


@pytest.mark.parametrize("name", ["disqus-xxe.xml", "disqus-laughs.xml", "disqus-parameter-entity.xml"])
def test_entity_declarations_are_refused_and_nothing_is_written(targets, name):
    hello, _ = targets
    with pytest.raises(CommandError, match=r"Line \d+: entity declarations are refused"):
        run(str(FIXTURES / name))
    assert imported(hello) == {}


def test_an_external_dtd_is_refused(targets):
    with pytest.raises(CommandError, match=r"Line 2: external DTDs and entities are refused"):
        run(str(FIXTURES / "disqus-external-dtd.xml"))
    assert imported(targets[0]) == {}


def test_an_undeclared_entity_is_an_error_with_its_line(targets, tmp_path):
    bad = tmp_path / "undeclared.xml"
    bad.write_text(EXPORT.read_text(encoding="utf-8").replace("<name>Ada</name>", "<name>Ada&nbsp;</name>"), encoding="utf-8")
    with pytest.raises(CommandError, match=r"Line 50: undefined entity"):
        run(str(bad))


def test_a_malformed_file_fails_with_its_line_and_writes_nothing_past_it(targets):
    """The complete comments before the break are written; nothing after it."""
    hello, _ = targets
    with pytest.raises(CommandError, match=r"Line 19: mismatched tag"):
        run(str(FIXTURES / "disqus-broken.xml"))
    assert set(imported(hello)) == {"2001", "2002"}
    assert posts.get_by_id(hello.id).comment_count == 2


def test_the_command_names_what_is_missing_or_misplaced(tmp_path):
    with pytest.raises(CommandError, match=NEEDS_FILE.format(format="disqus").replace("(", r"\(").replace(")", r"\)")):
        call_command("import_comments", "--format", "disqus")
    with pytest.raises(CommandError, match=JSONL_ONLY.format(option="--dry-run")):
        call_command("import_comments", "--dry-run", str(tmp_path / "x.jsonl"))
    # An option of another format (WordPress's, registered by the blog) is refused, not ignored.
    with pytest.raises(CommandError, match=NOT_FOR_FORMAT.format(option="--comments-only", format="disqus")):
        call_command("import_comments", "--format", "disqus", "--comments-only", str(EXPORT))
    with pytest.raises(CommandError, match="No such file"):
        run(str(tmp_path / "missing.xml"))


# --- Issue 25 ---------------------------------------------------------------------------


def test_a_time_whose_offset_crosses_year_9999_is_refused_at_its_line_and_reruns_go_on(targets, tmp_path):
    """`9999-12-31T23:59:59-23:59` is past year 9999 in UTC: that post is refused
    with its line (it used to stop every run with OverflowError), the rest go in."""
    hello, second = targets
    far = tmp_path / "far.xml"
    far.write_text(EXPORT.read_text(encoding="utf-8").replace("2012-02-02T10:00:00Z", "9999-12-31T23:59:59-23:59"),
                   encoding="utf-8")
    for _ in range(2):
        out = run(str(far))
        assert f"refused: 1 {import_records.TIME_OUT_OF_RANGE}" in out
    assert set(imported(hello)) == ON_HELLO and imported(second) == {}


DEVANAGARI_EXPORT = """<?xml version="1.0" encoding="utf-8"?>
<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">
  <thread dsq:id="1"><id/><link>https://old.example.com/posts/%E0%A4%B8%E0%A4%AE%E0%A4%BE%E0%A4%9A%E0%A4%BE%E0%A4%B0/</link>
    <title>समाचार</title></thread>
  <thread dsq:id="2"><id/><link>https://old.example.net/2011/05/%E0%A4%A8%E0%A4%AE%E0%A4%B8%E0%A5%8D%E0%A4%A4%E0%A5%87.html</link>
    <title>नमस्ते दुनिया</title></thread>
  <post dsq:id="1"><message><![CDATA[<p>पहली</p>]]></message><createdAt>2020-01-01T10:00:00Z</createdAt>
    <author><name>Asha</name></author><thread dsq:id="1"/></post>
  <post dsq:id="2"><message><![CDATA[<p>दूसरी</p>]]></message><createdAt>2020-01-01T11:00:00Z</createdAt>
    <author><name>Ravi</name></author><thread dsq:id="2"/></post>
</disqus>
"""


def test_a_percent_encoded_unicode_link_matches_its_post_and_a_draft_keeps_a_devanagari_slug(make_post, tmp_path):
    """Browsers and Disqus record `/posts/समाचार/` percent-encoded: it is the post
    `समाचार`; a thread no post matches gets a draft whose slug keeps its Devanagari
    (marks and virama included), once."""
    news = make_post(slug="समाचार")
    export = tmp_path / "hindi.xml"
    export.write_text(DEVANAGARI_EXPORT, encoding="utf-8")
    out = run("--create-missing", str(export))
    assert "1 matched, 1 created" in out and "unmatched" not in out
    assert set(imported(news)) == {"1"}
    draft = posts.get_by_slug("नमस्ते")
    assert draft is not None and draft.status == posts.DRAFT and set(imported(draft)) == {"2"}
    assert "2 matched, 0 created" in run("--create-missing", str(export))
