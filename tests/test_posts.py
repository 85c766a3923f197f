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


def test_get_by_id_accepts_only_object_ids():
    """A malformed id finds nothing instead of raising."""
    assert posts.get_by_id("not-an-id") is None
    assert posts.get_by_id({"$ne": None}) is None
