"""The posts collection: what readers can see, in what order."""

from datetime import datetime, timedelta, timezone

import pytest
from pymongo.errors import DuplicateKeyError

from cms import posts


def test_indexes_serve_the_blog_queries(mongo_db):
    """Slug is unique; list, author and tag queries have their indexes."""
    info = mongo_db.posts.index_information()
    keys = {name: spec["key"] for name, spec in info.items()}
    assert keys["slug_unique"] == [("slug", 1)] and info["slug_unique"]["unique"]
    assert keys["author_created"] == [("author.username", 1), ("created", -1)]
    assert keys["status_published"] == [("status", 1), ("published", -1)]


def test_a_duplicate_slug_is_refused(make_post):
    """Two posts cannot share a slug."""
    make_post(slug="same")
    with pytest.raises(DuplicateKeyError):
        make_post(slug="same")


def test_content_is_rendered_once_and_sanitised(make_post):
    """Markdown becomes sanitised HTML at write time."""
    post = make_post(content="# Title\n\n**bold** <script>alert(1)</script>")
    assert "<strong>bold</strong>" in post.content_html
    assert "<script>" not in post.content_html
    assert posts.get_published(post.slug).content_html == post.content_html


def test_drafts_and_scheduled_posts_are_invisible(make_post):
    """Only published posts whose time has come are found or counted."""
    visible = make_post()
    make_post(status=posts.DRAFT, published=None)
    make_post(published=datetime.now(timezone.utc) + timedelta(days=1))
    assert posts.count_published() == 1
    assert [p.slug for p in posts.published_page(page=1, per_page=10)] == [visible.slug]


def test_get_published_hides_a_draft(make_post):
    """A draft's slug finds nothing."""
    draft = make_post(status=posts.DRAFT, published=None)
    assert posts.get_published(draft.slug) is None
    assert posts.get_by_id(draft.id).slug == draft.slug


def test_published_posts_page_newest_first(make_post):
    """Pages hold the newest posts first and split where asked."""
    now = datetime.now(timezone.utc)
    made = [make_post(published=now - timedelta(hours=h)) for h in range(5, 0, -1)]
    newest_first = [p.slug for p in reversed(made)]
    assert [p.slug for p in posts.published_page(page=1, per_page=2)] == newest_first[:2]
    assert [p.slug for p in posts.published_page(page=3, per_page=2)] == newest_first[4:]


def test_newest_published_takes_any_slice(make_post):
    """A slice that starts off a page boundary is exactly that slice (a paginator's
    short last page), not the page of its size it falls in."""
    now = datetime.now(timezone.utc)
    made = [make_post(published=now - timedelta(hours=h)) for h in range(7, 0, -1)]
    newest_first = [p.slug for p in reversed(made)]
    assert [p.slug for p in posts.newest_published(skip=5, limit=2)] == newest_first[5:7]
    assert [p.slug for p in posts.newest_published(skip=4, limit=3)] == newest_first[4:7]
    assert posts.newest_published(skip=7, limit=3) == []


def test_get_by_id_accepts_only_object_ids():
    """A malformed id finds nothing instead of raising."""
    assert posts.get_by_id("not-an-id") is None
    assert posts.get_by_id({"$ne": None}) is None


# --- States, lists and the dashboard (the publishing issue) -------------------------

from bson import ObjectId  # noqa: E402

from cms.posts import AuthorSummary  # noqa: E402
from comments.host import LatestComment  # noqa: E402

HOUR = timedelta(hours=1)
ADA = AuthorSummary(id=11, username="ada", name="Ada Lindqvist")
BRUNO = AuthorSummary(id=12, username="bruno", name="Bruno Okafor")


def test_every_post_is_in_exactly_one_state(make_post):
    """Drafts, scheduled (explicitly or by a future time) and published partition the posts."""
    now = datetime.now(timezone.utc)
    made = {
        "draft": make_post(status=posts.DRAFT, published=None),
        "scheduled": make_post(status=posts.SCHEDULED, published=now + HOUR),
        "future": make_post(published=now + HOUR),
        "published": make_post(),
    }
    assert {name: post.state for name, post in made.items()} == {
        "draft": "draft",
        "scheduled": "scheduled",
        "future": "scheduled",
        "published": "published",
    }
    for state in posts.STATES:
        found = {p.slug for p in posts.dashboard_page(state=state, skip=0, limit=10)}
        assert found == {p.slug for p in made.values() if p.state == state}, state
        assert posts.count_dashboard(state=state) == len(found)


def test_scheduled_posts_stay_invisible_even_when_due(make_post):
    """A scheduled post shows only once publish_due has published it."""
    due = make_post(status=posts.SCHEDULED, published=datetime.now(timezone.utc) - HOUR)
    assert posts.get_published(due.slug) is None and posts.count_published() == 0


def test_publish_due_publishes_only_what_is_due_and_only_once(make_post):
    """Due scheduled posts become published; future ones and drafts stay; a rerun does nothing."""
    now = datetime.now(timezone.utc)
    due = make_post(status=posts.SCHEDULED, published=now - HOUR)
    later = make_post(status=posts.SCHEDULED, published=now + HOUR)
    draft = make_post(status=posts.DRAFT, published=now - HOUR)
    assert posts.publish_due() == 1
    assert posts.publish_due() == 0
    assert posts.get_published(due.slug) is not None
    assert posts.get_by_id(later.id).status == posts.SCHEDULED
    assert posts.get_by_id(draft.id).status == posts.DRAFT


def test_contains_escapes_what_it_is_given():
    """Regex characters are matched literally, and the condition is always a string."""
    condition = posts.contains("a.b*(c")
    assert condition == {"$regex": r"a\.b\*\(c", "$options": "i"}


def test_search_matches_titles_and_text_literally_and_only_published(make_post):
    """Any case, in title or content; regex characters are plain text; drafts never match."""
    make_post(title="Sharding at scale", slug="s1")
    make_post(title="Other", content="We tried SHARDING once.", slug="s2")
    make_post(title="Sharding draft", status=posts.DRAFT, published=None, slug="s3")
    make_post(title="Costs (a.k.a. money)", slug="s4")
    assert {p.slug for p in posts.search_published_page(text="sharding", skip=0, limit=10)} == {"s1", "s2"}
    assert posts.count_search_published(text="sharding") == 2
    assert [p.slug for p in posts.search_published_page(text="(a.k.a.", skip=0, limit=10)] == ["s4"]
    assert posts.count_search_published(text=".*") == 0


def test_author_pages_list_only_published_posts_newest_first(make_post):
    """By embedded username, newest created first; drafts and other authors left out."""
    now = datetime.now(timezone.utc)
    old = make_post(author=ADA, created=now - 2 * HOUR)
    new = make_post(author=ADA, created=now - HOUR)
    make_post(author=ADA, status=posts.DRAFT, published=None)
    make_post(author=BRUNO)
    assert [p.slug for p in posts.author_published_page(username="ada", skip=0, limit=10)] == [
        new.slug,
        old.slug,
    ]
    assert posts.count_author_published(username="ada") == 2


def test_tag_pages_list_only_published_posts_with_the_tag(make_post):
    """Exact tag match, newest published first, drafts left out."""
    now = datetime.now(timezone.utc)
    first = make_post(tags=["mongo", "web"], published=now - 2 * HOUR)
    second = make_post(tags=["mongo"], published=now - HOUR)
    make_post(tags=["mongo"], status=posts.DRAFT, published=None)
    make_post(tags=["mongodb"])
    assert [p.slug for p in posts.tag_published_page(tag="mongo", skip=0, limit=10)] == [
        second.slug,
        first.slug,
    ]
    assert posts.count_tag_published(tag="mongo") == 2
    assert posts.count_tag_published(tag={"$ne": None}) == 0


def test_sitemap_lists_cover_published_posts_only(make_post):
    """Links, tags and author usernames come from published posts alone."""
    shown = make_post(tags=["b", "a"], author=ADA)
    make_post(tags=["secret"], author=BRUNO, status=posts.DRAFT, published=None)
    assert [link.slug for link in posts.published_links()] == [shown.slug]
    assert posts.published_links()[0].lastmod == shown.published
    assert posts.published_tags() == ["a", "b"]
    assert posts.published_author_usernames() == ["ada"]


def test_dashboard_filters_by_title_words_and_author(make_post):
    """Title words match any case and literally; author_id narrows to one author's posts."""
    mine = make_post(title="Indexes (part 1)", author=ADA)
    make_post(title="indexes elsewhere", author=BRUNO)
    assert posts.count_dashboard(title="INDEXES") == 2
    assert [p.slug for p in posts.dashboard_page(title="(part", author_id=ADA.id, skip=0, limit=5)] == [
        mine.slug
    ]
    assert posts.count_dashboard(author_id=BRUNO.id, title="part") == 0


def edit_slug(post, slug):
    return posts.update_post(
        post_id=post.id, revision=post.revision, title=post.title, slug=slug, content=post.content,
        tags=post.tags, status=post.status, published=post.published,
    )


def test_an_edit_to_another_posts_slug_raises_duplicate_key_and_changes_nothing(make_post):
    """The unique index refuses an update too; a post keeping its own slug is fine."""
    make_post(slug="taken")
    post = make_post(slug="mine")
    with pytest.raises(DuplicateKeyError):
        edit_slug(post, "taken")
    assert posts.get_by_id(post.id) == post
    assert edit_slug(post, "mine").revision == post.revision + 1


def test_update_post_saves_over_the_revision_it_was_given(make_post):
    """The edit is stored and rendered, the revision goes up, and an old revision saves nothing."""
    post = make_post(content="old")
    saved = posts.update_post(
        post_id=post.id,
        revision=post.revision,
        title="New",
        slug="new-slug",
        content="*new*",
        tags=("t",),
        status=posts.PUBLISHED,
        published=post.published,
    )
    assert (saved.title, saved.slug, saved.content_html, saved.tags) == (
        "New",
        "new-slug",
        "<p><em>new</em></p>",
        ("t",),
    )
    assert saved.revision == post.revision + 1 and saved.updated is not None
    stale = posts.update_post(
        post_id=post.id,
        revision=post.revision,
        title="Lost",
        slug="lost",
        content="",
        tags=(),
        status=posts.DRAFT,
        published=None,
    )
    assert stale is None and posts.get_by_id(post.id).title == "New"


def test_update_post_accepts_posts_stored_before_revisions(make_post, mongo_db):
    """A post without a revision field is at revision 0."""
    post = make_post()
    mongo_db.posts.update_one({"_id": post.id}, {"$unset": {"revision": ""}})
    old = posts.get_by_id(post.id)
    assert old.revision == 0
    saved = posts.update_post(
        post_id=post.id,
        revision=0,
        title="T",
        slug=post.slug,
        content="",
        tags=(),
        status=post.status,
        published=post.published,
    )
    assert saved.revision == 1


def test_set_author_rewrites_only_the_copies_that_disagree(make_post):
    """Every post by the user gets the new summary; a rerun changes nothing; others stay."""
    make_post(author=ADA)
    make_post(author=ADA)
    other = make_post(author=BRUNO)
    renamed = AuthorSummary(id=ADA.id, username="ada2", name="Ada L.", picture="https://example.com/a.png")
    assert posts.set_author(author=renamed) == 2
    assert posts.set_author(author=renamed) == 0
    assert posts.distinct_authors() == [renamed, BRUNO] or posts.distinct_authors() == [BRUNO, renamed]
    assert posts.get_by_id(other.id).author == BRUNO


def test_comment_summaries_are_listed_for_posts_with_comments(make_post, make_comment):
    """Posts without comments are skipped; post_ids narrows the list."""
    quiet = make_post()
    talked = make_post()
    make_comment(talked, text="hello")
    summaries = dict(posts.find_comment_summaries())
    assert list(summaries) == [talked.id]
    assert [c.excerpt for c in summaries[talked.id]] == ["hello"]
    assert isinstance(summaries[talked.id][0], LatestComment)
    assert dict(posts.find_comment_summaries(post_ids=[quiet.id, ObjectId()])) == {}


def test_author_id_index_serves_an_authors_own_posts(mongo_db):
    """The dashboard's and renames' lookups by author id have an index."""
    keys = {name: spec["key"] for name, spec in mongo_db.posts.index_information().items()}
    assert keys["author_id_created"] == [("author.id", 1), ("created", -1)]


# --- Comments open or closed (the moderation issue) ---------------------------------------


def test_comments_are_open_until_closed_and_closing_keeps_the_revision(make_post):
    """set_comments_closed flips only the flag: the post's revision (its edit guard) stays."""
    post = make_post()
    assert not post.comments_closed
    assert posts.set_comments_closed(post_id=post.id, closed=True)
    closed = posts.get_by_id(post.id)
    assert closed.comments_closed and closed.revision == post.revision
    posts.set_comments_closed(post_id=post.id, closed=False)
    assert not posts.get_by_id(post.id).comments_closed


def test_get_by_slug_and_find_by_ids_see_posts_in_any_state(make_post):
    """The moderation queue finds drafts too, by slug or by a set of ids."""
    draft = make_post(status=posts.DRAFT, published=None)
    published = make_post()
    assert posts.get_by_slug(draft.slug).id == draft.id
    assert posts.get_by_slug("no-such-slug") is None
    found = posts.find_by_ids(ids={draft.id, published.id, ObjectId()})
    assert {p.id for p in found} == {draft.id, published.id}


# --- The comment summary -------------------------------------------------------------------


def latest(text: str) -> LatestComment:
    return LatestComment(slug="s", author_name="Ada", posted=datetime(2026, 1, 1, tzinfo=timezone.utc),
                         excerpt=text)


def test_the_comment_summary_is_stored_only_when_its_seq_is_newer(make_post):
    """A summary read at an older change number than the one the post holds is refused;
    a post stored before summaries had one takes any."""
    post = make_post()
    assert posts.store_comment_summary(post_id=post.id, seq=7, count=2, latest=[latest("b")])
    assert not posts.store_comment_summary(post_id=post.id, seq=6, count=1, latest=[])
    assert not posts.store_comment_summary(post_id=post.id, seq=7, count=1, latest=[])
    stored = posts.get_by_id(post.id)
    assert (stored.comment_count, stored.latest_comments) == (2, (latest("b"),))
    assert posts.store_comment_summary(post_id=post.id, seq=8, count=3, latest=[])
    assert posts.get_by_id(post.id).comment_count == 3
    assert not posts.store_comment_summary(post_id=ObjectId(), seq=1, count=1, latest=[])
