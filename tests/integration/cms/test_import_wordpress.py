"""Importing a WordPress export (WXR): cms/wxr/, on the import engine.

The exports under tests/fixtures/imports/ were written by hand from the format's
description: wordpress-blog.xml has a published post with a nested thread, a trashed
comment with a reply, spam, a pending comment, a pingback and a trackback, odd
characters and a CDATA section split in two, an orphan and a comment without a GMT
time; a draft without a slug; a page and an attachment.
"""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from cms import authors, posts
from cms.wxr import content, importer, parse, records
from comments.records import APPROVED, DELETED, PENDING, SPAM
from comments.stores import counters, get_store
from comments.transfer import import_records, import_text
from infra.markup import render_post

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "imports"
BLOG = FIXTURES / "wordpress-blog.xml"
SWIFTS = "swifts-over-the-harbour"
SOURCE = "wordpress@notes.example.org"
# The comments of the swifts post that are imported: all but the pingback and trackback.
IMPORTED_IDS = {"101", "102", "103", "104", "105", "106", "107", "110", "111", "112"}


def items(path: Path = BLOG) -> list[parse.WxrItem]:
    with open(path, "rb") as stream:
        return list(parse.iter_items(stream))


def run(path: Path = BLOG, **options) -> importer.Outcome:
    out = io.StringIO()
    outcome = importer.run(path=str(path), stdout=out, progress=False, **options)
    assert out.getvalue().splitlines() == outcome.lines()
    return outcome


def by_source_id(post: posts.Post) -> dict[str, dict]:
    """The post's stored comments (any store) by their WordPress id."""
    documents = list(get_store().iter_documents(discussion_id=post.id))
    assert all(d["imported"]["source"] == SOURCE for d in documents)
    return {d["imported"]["id"]: d for d in documents}


def write_export(tmp_path: Path, body: str, name: str = "export.xml") -> Path:
    path = tmp_path / name
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<rss version="2.0" xmlns:wp="http://wordpress.org/export/1.2/" '
        'xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">\n'
        "<channel><wp:base_site_url>https://notes.example.org</wp:base_site_url>\n"
        + body
        + "</channel></rss>\n",
        encoding="utf-8",
    )
    return path


def post_item(*, post_id: str, slug: str, comments: str = "", status: str = "publish") -> str:
    return (
        f"<item><title>Post {post_id}</title><dc:creator>margit</dc:creator>"
        f"<content:encoded><![CDATA[Body {post_id}.]]></content:encoded><wp:post_id>{post_id}</wp:post_id>"
        f"<wp:post_date_gmt>2024-01-0{post_id} 10:00:00</wp:post_date_gmt><wp:post_name>{slug}</wp:post_name>"
        f"<wp:status>{status}</wp:status><wp:post_type>post</wp:post_type>{comments}</item>\n"
    )


def comment(
    comment_id: str, *, parent: str = "0", text: str = "Hello", when: str = "2024-01-05 10:00:00"
) -> str:
    return (
        f"<wp:comment><wp:comment_id>{comment_id}</wp:comment_id><wp:comment_author>R{comment_id}"
        f"</wp:comment_author><wp:comment_date_gmt>{when}</wp:comment_date_gmt><wp:comment_content>{text}"
        f"</wp:comment_content><wp:comment_approved>1</wp:comment_approved>"
        f"<wp:comment_parent>{parent}</wp:comment_parent></wp:comment>"
    )


# --- Reading the export (no database) ------------------------------------------------------


def test_every_item_is_read_with_its_fields_and_comments():
    """Posts, pages and attachments come out in file order with their fields; the
    author's name comes from the channel's author list."""
    swifts, owls, page, attachment = items()
    assert [i.post_type for i in (swifts, owls, page, attachment)] == ["post", "post", "page", "attachment"]
    assert (swifts.post_name, swifts.status, swifts.creator, swifts.creator_name) == (
        SWIFTS,
        "publish",
        "margit",
        "Margit Ö. Halvorsen",
    )
    assert swifts.tags == ("Birds", "swifts") and swifts.categories == ("Field trips",)
    assert swifts.date_gmt == datetime(2024, 5, 5, 17, 30) and swifts.utc_offset == timedelta(hours=2)
    assert owls.post_name == "" and owls.date_gmt is None and owls.creator_name == "tomas"
    assert [c.id for c in swifts.comments] == [str(n) for n in range(101, 113)]


def test_comment_fields_entities_and_a_split_cdata_section_are_read_as_written():
    comments = {c.id: c for c in items()[0].comments}
    reply = comments["102"]
    assert (reply.parent_id, reply.author_email, reply.ip, reply.approved, reply.type) == (
        "101",
        "margit@example.org",
        "2001:db8::7",
        "1",
        "",
    )
    odd = comments["110"]
    assert odd.author_name == "Zoë & “Ünïcode” <b>"
    assert odd.content.startswith('Ends a CDATA early: ]]> and goes on; 日本の燕 🐦, 5 < 6 & "quotes"')
    assert comments["112"].date_gmt is None and comments["112"].date_local == datetime(2024, 5, 6, 14, 0)
    assert comments["101"].parent_id is None and comments["111"].parent_id == "999"


@pytest.mark.parametrize(
    ("name", "line", "reason"),
    [
        ("wordpress-xxe.xml", 3, "entity declarations are refused"),
        ("wordpress-laughs.xml", 3, "entity declarations are refused"),
        ("wordpress-parameter-entity.xml", 3, "entity declarations are refused"),
        ("wordpress-external-dtd.xml", 2, "external DTDs and entities are refused"),
        ("wordpress-undeclared-entity.xml", 6, "undefined entity"),
    ],
)
def test_entities_are_never_resolved_the_file_is_refused_at_their_line(name, line, reason):
    with pytest.raises(import_records.BadSource, match=reason) as refused:
        items(FIXTURES / name)
    assert refused.value.line == line


def test_a_malformed_file_fails_with_its_line_after_the_whole_items_before_it(tmp_path):
    path = write_export(tmp_path, post_item(post_id="1", slug="one") + "<item><title>Broken</wp:post_id>\n")
    read = []
    with pytest.raises(import_records.BadSource, match="mismatched tag") as refused, open(path, "rb") as stream:
        for item in parse.iter_items(stream):
            read.append(item.post_name)
    assert read == ["one"] and refused.value.line == 5


# --- Post bodies ---------------------------------------------------------------------------


def test_a_classic_post_body_becomes_markdown_that_renders_as_wordpress_showed_it():
    markdown = content.html_to_markdown(items()[0].content)
    assert markdown.startswith(
        "The first **swifts** came back today, screaming over the [harbour](https://example.org/harbour).\n\n"
        "They were *early* this year.\\\nThree of them at least.\n\n## What I counted\n\n- 12 swifts\n"
    )
    assert "script" not in markdown and "alert" not in markdown
    html = render_post(markdown)
    assert "<p>They were <em>early</em> this year.<br>\nThree of them at least.</p>" in html
    assert "<blockquote>\n<p>Summer is a swift.</p>\n</blockquote>" in html


def test_a_block_editor_body_loses_its_block_comments():
    assert content.html_to_markdown(items()[1].content) == "Owls, *later*.\n"


@pytest.mark.parametrize(
    ("html", "shown"),
    [
        (
            "<p>1986. was * a _year_ [x] &amp; &lt;tag&gt; # not</p>",
            "<p>1986. was * a _year_ [x] &amp; &lt;tag&gt; # not</p>",
        ),
        ("<p>- dash<br>+ plus<br>2) two</p>", "<p>- dash<br>\n+ plus<br>\n2) two</p>"),
        (
            "<pre><code>a &lt; b\n\n```\n</code></pre>",
            '<pre tabindex="0"><code>a &lt; b\n\n```\n</code></pre>',
        ),
        ("<p>E = mc<sup>2</sup>, <code>x`y</code></p>", "<p>E = mc<sup>2</sup>, <code>x`y</code></p>"),
        ('<p><img src="/a b.png" alt="A *b*"></p>', '<p><img src="/a%20b.png" alt="A *b*"></p>'),
        (
            '[caption id="c1"]<img src="s.jpg" alt="Swift"> A swift[/caption]',
            '<p><img src="s.jpg" alt="Swift"> A swift</p>',
        ),
    ],
)
def test_markdown_made_from_html_renders_to_the_same_html(html, shown):
    """Markdown's own characters in the text are escaped, so they stay text."""
    assert render_post(content.html_to_markdown(html)) == shown


def test_a_numbered_list_keeps_its_first_number():
    assert content.html_to_markdown('<ol start="3"><li>three</li><li>four</li></ol>') == "3. three\n4. four\n"


def test_html_nested_thousands_deep_keeps_its_text_without_recursing_that_deep():
    markdown = content.html_to_markdown("<div><em>" * 5000 + "deep" + "</em></div>" * 5000 + "<p>after</p>")
    assert "deep" in markdown and markdown.endswith("after\n")


def test_a_comment_nested_thousands_deep_becomes_text_the_engine_can_write():
    swifts = items()[0]
    deep = parse.WxrComment(
        id="9",
        parent_id=None,
        author_name="D",
        author_email="",
        author_url="",
        ip="",
        date_gmt=datetime(2024, 5, 7),
        date_local=None,
        approved="1",
        type="",
        line=1,
        content="<em>" * 5000 + "deep" + "</em>" * 5000,
    )
    handed = records.source_comment(
        deep, swifts, source=SOURCE, thread="10", outcome=importer.Outcome(report=import_records.Report(source=SOURCE))
    )
    assert "deep" in import_text.comment_text(handed.html)


def test_a_table_stays_html_in_one_block_and_renders_as_a_table():
    markdown = content.html_to_markdown(
        "<p>Counts:</p><table><tr><td>swifts</td>\n\n<td>12</td></tr></table><p>End</p>"
    )
    assert "<table><tr><td>swifts</td>\n<td>12</td></tr></table>" in markdown
    assert "<td>12</td>" in render_post(markdown) and render_post(markdown).endswith("<p>End</p>")


# --- Fields made to fit ----------------------------------------------------------------------


def test_slugs_are_kept_made_url_safe_or_made_for_a_post_without_one():
    swifts, owls = items()[:2]
    assert content.post_slug(swifts) == (SWIFTS, None)
    assert content.post_slug(owls) == ("half-written-owls-11", "Half-written: owls")
    encoded = replace(swifts, post_id="7", title="Café", post_name="caf%c3%a9-cr%c3%a8me")
    assert content.post_slug(encoded) == ("cafe-creme", "caf%c3%a9-cr%c3%a8me")
    hindi = replace(swifts, post_id="8", title="टिप्पणियों के धागे",
                    post_name="%e0%a4%9f%e0%a4%bf%e0%a4%aa%e0%a5%8d%e0%a4%aa%e0%a4%a3%e0%a5%80")
    assert content.post_slug(hindi) == ("टिप्पणी", None)
    untitled = replace(swifts, post_id="9", title="Đường về", post_name="")
    assert content.post_slug(untitled) == ("duong-ve-9", "Đường về")


def test_tags_in_any_script_are_kept_with_their_marks():
    """A Hindi tag keeps its vowel signs; a Vietnamese one its diacritics."""
    kept, left_out = content.post_tags(replace(items()[0], tags=("मॉडरेशन", "bình luận"), categories=()))
    assert kept == ("मॉडरेशन", "bình luận") and left_out == []


def test_tags_are_tags_then_categories_made_to_fit_the_dashboard_rules():
    item = replace(
        items()[0], tags=("C/C++", "birds", "Birds", "—"), categories=tuple(f"c{n}" for n in range(12))
    )
    kept, left_out = content.post_tags(item)
    assert kept == ("C C++", "birds", *(f"c{n}" for n in range(8)))
    assert left_out == ["—", "c8", "c9", "c10", "c11"]


def test_a_comment_without_gmt_time_takes_its_local_time_less_the_posts_offset():
    swifts = items()[0]
    clockless = next(c for c in swifts.comments if c.id == "112")
    posted, note = records.comment_time(clockless, swifts)
    assert posted == datetime(2024, 5, 6, 12, 0, tzinfo=UTC)
    assert "comment 112" in note and "+02:00" in note


# --- Importing (every store) -----------------------------------------------------------------


@pytest.mark.usefixtures("each_store", "db")
class TestImport:
    def test_posts_are_created_as_they_were_and_other_items_are_counted(self):
        outcome = run()
        assert (outcome.posts_created, outcome.posts_matched) == (2, 0)
        assert outcome.items_skipped == {"page items": 1, "attachment items": 1}
        swifts = posts.get_by_slug(SWIFTS)
        assert (swifts.status, swifts.published, swifts.created) == (
            posts.PUBLISHED,
            datetime(2024, 5, 5, 17, 30, tzinfo=UTC),
            datetime(2024, 5, 5, 17, 30, tzinfo=UTC),
        )
        assert swifts.tags == ("Birds", "swifts", "Field trips") and swifts.excerpt == "The swifts are back."
        assert (swifts.author.username, swifts.author.name) == ("margit", "Margit Ö. Halvorsen")
        assert "<strong>swifts</strong>" in swifts.content_html and "script" not in swifts.content_html
        owls = posts.get_by_slug("half-written-owls-11")
        assert (owls.status, owls.published, owls.author.username) == (posts.DRAFT, None, "tomas")
        assert posts.get_by_slug("about") is None and posts.get_by_slug("swift-jpg") is None
        margit = authors.find_author(username="margit")
        assert margit is not None and not margit.is_staff and not margit.has_usable_password()

    def test_an_excerpt_of_several_paragraphs_keeps_a_space_between_them(self, tmp_path):
        """The excerpt's HTML becomes text with its blocks apart ("back. Fewer"), not run
        together ("back.Fewer", as a second HTML-to-text parser made it)."""
        item = post_item(post_id="1", slug="two-paragraphs").replace(
            "<wp:post_id>",
            '<excerpt:encoded xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/"><![CDATA['
            "<p>The swifts are <em>back</em>.</p><p>Fewer than last year.</p>]]></excerpt:encoded><wp:post_id>",
        )
        run(write_export(tmp_path, item))
        assert posts.get_by_slug("two-paragraphs").excerpt == "The swifts are back. Fewer than last year."

    def test_a_post_by_an_author_already_here_is_theirs(self, make_user):
        user = make_user("margit", display_name="Margit H.")
        run()
        assert posts.get_by_slug(SWIFTS).author == authors.summary_for(user)

    def test_a_readers_account_with_the_authors_login_is_not_made_the_author(self, make_user):
        reader = make_user("margit", role="reader")
        run()
        author = posts.get_by_slug(SWIFTS).author
        assert (author.username, author.name) == (
            "wp-margit",
            "Margit Ö. Halvorsen",
        ) and author.id != reader.pk
        assert not authors.find_author(username="margit")
        run()
        assert len(posts.dashboard_page(skip=0, limit=10)) == 2

    def test_comments_keep_threading_times_statuses_and_moderation_data(self):
        outcome = run()
        stored = by_source_id(posts.get_by_slug(SWIFTS))
        assert set(stored) == IMPORTED_IDS
        assert stored["102"]["parent_id"] == stored["101"]["_id"]
        assert stored["103"]["slug"] == stored["102"]["slug"] + "/" + stored["103"]["slug"].rsplit("/", 1)[1]
        assert stored["103"]["slug"].startswith(stored["101"]["slug"] + "/")
        assert stored["101"]["posted"] == datetime(2024, 5, 5, 18, 0, tzinfo=UTC)
        assert {i: stored[i]["status"] for i in ("101", "104", "105", "106", "107")} == {
            "101": APPROVED,
            "104": DELETED,
            "105": APPROVED,
            "106": SPAM,
            "107": PENDING,
        }
        assert stored["104"].get("placeholder") is True
        assert stored["105"]["parent_id"] == stored["104"]["_id"]
        assert (stored["102"]["author"]["email"], stored["102"]["ip"]) == (
            "margit@example.org",
            "2001:db8::7",
        )
        assert stored["110"]["author"]["name"] == "Zoë & “Ünïcode” <b>"
        assert "日本の燕 🐦" in stored["110"]["html"] and "<script" not in stored["110"]["html"]
        assert "Ends a CDATA early: ]]&gt; and goes on;" in stored["110"]["html"]
        assert (
            stored["101"]["html"]
            == "<p>Saw them too, from the pier.</p>\n<p>Two <em>dozen</em> at least.</p>"
        )
        assert stored["111"]["parent_id"] is None and any("111" in o for o in outcome.report.orphans)
        assert stored["112"]["posted"] == datetime(2024, 5, 6, 12, 0, tzinfo=UTC)
        assert any("comment 112" in note for note in outcome.notes)
        assert outcome.report.skipped == {"pingbacks": 1, "trackbacks": 1, "on page items": 1}
        assert outcome.report.imported == len(IMPORTED_IDS)

    def test_the_posts_summary_is_right_afterwards(self):
        run()
        swifts = posts.get_by_slug(SWIFTS)
        # Approved: 101, 102, 103, 105, 110, 111, 112; and the placeholder 104.
        assert (swifts.comment_count, counters.state(swifts.id, store=get_store()).counts.listed) == (7, 8)
        assert swifts.latest_comments[0].author_name == "Clockless"

    def test_a_second_run_creates_no_post_and_imports_nothing(self):
        run()
        first = by_source_id(posts.get_by_slug(SWIFTS))
        again = run()
        assert (again.posts_created, again.posts_matched) == (0, 2)
        assert (again.report.imported, again.report.already) == (0, len(IMPORTED_IDS))
        assert by_source_id(posts.get_by_slug(SWIFTS)) == first
        assert len(posts.dashboard_page(skip=0, limit=10)) == 2

    def test_a_dry_run_reports_and_writes_nothing(self):
        outcome = run(dry_run=True)
        assert (outcome.posts_created, outcome.report.imported) == (2, len(IMPORTED_IDS))
        assert posts.is_empty() and list(get_store().iter_documents()) == []
        assert authors.find_author(username="margit") is None
        assert outcome.lines()[-1] == "Dry run: nothing was written."

    def test_comments_only_go_onto_the_posts_here_with_the_same_slug(self, make_post):
        existing = make_post(slug=SWIFTS, title="Swifts (moved)")
        outcome = run(comments_only=True)
        assert (outcome.posts_created, outcome.posts_matched) == (0, 1)
        assert set(by_source_id(existing)) == IMPORTED_IDS
        assert (
            posts.get_by_slug(SWIFTS).title == "Swifts (moved)"
            and posts.get_by_slug("half-written-owls-11") is None
        )
        assert outcome.report.threads_skipped == 1 and "half-written-owls-11" in outcome.report.unmatched[0]
        assert (run(comments_only=True).report.imported, posts.get_by_slug(SWIFTS).comment_count) == (0, 7)

    def test_comments_only_with_create_missing_creates_the_missing_posts(self, make_post):
        make_post(slug=SWIFTS)
        outcome = run(comments_only=True, create_missing=True)
        assert (outcome.posts_created, outcome.posts_matched) == (1, 1)
        assert posts.get_by_slug("half-written-owls-11").status == posts.DRAFT

    @pytest.mark.parametrize(
        "name", ["wordpress-xxe.xml", "wordpress-laughs.xml", "wordpress-external-dtd.xml"]
    )
    def test_a_file_with_entity_tricks_writes_nothing(self, name):
        with pytest.raises(import_records.BadSource):
            run(FIXTURES / name)
        assert posts.is_empty() and list(get_store().iter_documents()) == []

    def test_a_malformed_file_keeps_the_whole_posts_before_the_fault_and_a_rerun_goes_on(self, tmp_path):
        first = post_item(post_id="1", slug="one", comments=comment("1") + comment("2", parent="1"))
        second = post_item(post_id="2", slug="two", comments=comment("3"))
        broken = write_export(tmp_path, first + second.replace("</item>", "</wp:comment>"))
        with pytest.raises(import_records.BadSource, match="Line 5: mismatched tag"):
            run(broken)
        assert set(by_source_id(posts.get_by_slug("one"))) == {"1", "2"}
        assert posts.get_by_slug("two") is None
        outcome = run(write_export(tmp_path, first + second, name="fixed.xml"))
        assert (outcome.report.imported, outcome.report.already, outcome.posts_created) == (1, 2, 1)
        assert set(by_source_id(posts.get_by_slug("two"))) == {"3"}

    def test_missing_fields_are_refused_or_filled_in(self, tmp_path):
        nameless = comment("5").replace("<wp:comment_author>R5</wp:comment_author>", "")
        no_id = comment("").replace("<wp:comment_id></wp:comment_id>", "")
        no_date = comment("6", when="0000-00-00 00:00:00")
        odd_status = comment("7").replace(">1</wp:comment_approved>", ">maybe</wp:comment_approved>")
        path = write_export(
            tmp_path,
            post_item(post_id="1", slug="one", comments=nameless + no_id + no_date + odd_status)
            + "<item><wp:post_type>post</wp:post_type></item>",
        )
        outcome = run(path)
        stored = by_source_id(posts.get_by_slug("one"))
        assert set(stored) == {"5"} and stored["5"]["author"]["name"] == "Anonymous"
        assert outcome.report.refused == {
            "no wp:comment_id": 1,
            "no date": 1,
            "unknown wp:comment_approved 'maybe'": 1,
        }
        assert posts.get_by_slug("post-x").title == "post-x"

    def test_two_sites_comment_ids_are_not_taken_for_one_another(self, tmp_path):
        run(write_export(tmp_path, post_item(post_id="1", slug="one", comments=comment("1"))))
        other = write_export(
            tmp_path,
            post_item(post_id="1", slug="one", comments=comment("1", text="Other")),
            name="other.xml",
        )
        other.write_text(other.read_text().replace("notes.example.org", "elsewhere.example.com"))
        assert run(other).report.imported == 1
        assert len(list(get_store().iter_documents(discussion_id=posts.get_by_slug("one").id))) == 2

    def test_post_statuses_map_to_scheduled_draft_or_are_left_out(self, tmp_path):
        body = "".join(
            post_item(post_id=str(n), slug=f"s-{status}", status=status)
            for n, status in enumerate(("future", "private", "pending", "trash"), start=1)
        )
        outcome = run(write_export(tmp_path, body))
        assert posts.get_by_slug("s-future").status == posts.SCHEDULED
        assert posts.get_by_slug("s-future").published == datetime(2024, 1, 1, 10, 0, tzinfo=UTC)
        assert posts.get_by_slug("s-private").status == posts.get_by_slug("s-pending").status == posts.DRAFT
        assert posts.get_by_slug("s-trash") is None and outcome.items_skipped == {"posts in the trash": 1}

    def test_the_command_imports_a_wordpress_export_and_prints_the_summary(self):
        out = io.StringIO()
        call_command("import_comments", "--format", "wordpress", str(BLOG), stdout=out)
        assert "Posts: 2 created, 0 already here." in out.getvalue()
        assert f"Comments: {len(IMPORTED_IDS)} imported" in out.getvalue()
        assert set(by_source_id(posts.get_by_slug(SWIFTS))) == IMPORTED_IDS

    def test_the_command_refuses_an_external_entity_with_its_line(self):
        with pytest.raises(CommandError, match="Line 3: entity declarations are refused"):
            call_command("import_comments", "--format", "wordpress", str(FIXTURES / "wordpress-xxe.xml"))
        assert posts.is_empty()

    def test_a_later_run_finds_a_replys_parent_from_an_earlier_run(self, tmp_path):
        """The parent is looked up where the earlier run recorded it (a new run has
        nothing in memory), so the reply is not taken for an orphan."""
        run(write_export(tmp_path, post_item(post_id="1", slug="one", comments=comment("1"))))
        later = write_export(
            tmp_path, post_item(post_id="1", slug="one", comments=comment("2", parent="1")), "b.xml"
        )
        outcome = run(later)
        stored = by_source_id(posts.get_by_slug("one"))
        assert outcome.report.orphans == [] and stored["2"]["parent_id"] == stored["1"]["_id"]


def test_a_sites_comment_ids_are_namespaced_by_its_host_without_a_colon():
    assert importer.source_name("https://www.notes.example.org/blog") == "wordpress@notes.example.org"
    assert importer.source_name("http://[::1]:8080/") == "wordpress@-1"
    assert importer.source_name("") == "wordpress"


def test_notes_of_one_kind_past_the_first_few_are_only_counted():
    outcome = importer.Outcome(report=import_records.Report(source=SOURCE))
    for n in range(importer.NOTES_SHOWN + 5):
        outcome.note("comments timed by their local time", f"comment {n}")
    outcome.note("slugs made", "one slug")
    lines = outcome.lines()
    assert [line for line in lines if line.startswith("  comment ")] == [
        f"  comment {n}" for n in range(importer.NOTES_SHOWN)
    ]
    assert "  one slug" in lines and "  ... and 5 more comments timed by their local time" in lines


@pytest.mark.usefixtures("each_store", "db")
def test_a_local_time_that_its_posts_offset_takes_before_year_1_is_refused_and_reruns_go_on(tmp_path):
    """No GMT time, and the local `0001-01-01 00:00:00` less the post's +02:00 is
    before year 1 (it used to stop every run with OverflowError): refused, counted."""
    local_only = (comment("2").replace("<wp:comment_date_gmt>2024-01-05 10:00:00</wp:comment_date_gmt>",
                                       "<wp:comment_date>0001-01-01 00:00:00</wp:comment_date>"))
    item = post_item(post_id="1", slug="one", comments=comment("1") + local_only).replace(
        "</wp:post_date_gmt>", "</wp:post_date_gmt><wp:post_date>2024-01-01 12:00:00</wp:post_date>")
    path = write_export(tmp_path, item)
    for _ in range(2):
        outcome = run(path)
        assert outcome.report.refused == {import_records.TIME_OUT_OF_RANGE: 1}
    assert set(by_source_id(posts.get_by_slug("one"))) == {"1"}
