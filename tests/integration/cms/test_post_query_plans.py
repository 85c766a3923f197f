"""The readers' queries of posts are read from the index that bounds them to what they
show, in the server's own plans (MongoDB's, or PostgreSQL's under FerretDB v2/
DocumentDB, with the table's statistics current): a post's page from its slug's
entry, an author's page from that author's entries, a tag's from that tag's, never
every published post's. Given the published filter beside a slug or an author,
DocumentDB's planner read `status_published` (every published post's entry up to
now) instead, a post page's lookup growing with the blog (bench/post_queries.py,
docs/benchmarks.md)."""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest

from bench.post_queries import blog_documents
from cms import posts
from cms.posts.store import ensure_indexes
from devdb.statistics import analyze
from tests.plans import collection_scans, explain, indexes_used, sent_queries

POSTS = 1500
AUTHORS = 30
TAGS = 100


@pytest.fixture
def blog(mongo_db, make_post):
    """A blog of POSTS posts (a tenth drafts, a twentieth scheduled) by AUTHORS authors
    with three of TAGS tags each, in a posts collection made anew (the plans must not
    depend on what earlier tests left in the table) with current statistics; the slugs
    of one published post, one draft and one scheduled post (bench/post_queries.py
    builds the same blog)."""
    mongo_db.drop_collection("posts")
    ensure_indexes(mongo_db)
    model = mongo_db.posts.find_one({"_id": make_post().id})
    mongo_db.posts.delete_many({})
    mongo_db.posts.insert_many(blog_documents(model, count=POSTS, authors=AUTHORS, tags=TAGS,
                                              rng=random.Random(39), now=datetime.now(timezone.utc)))
    analyze(mongo_db.client.address, mongo_db.name, "posts")
    return "post-100", "post-101", "post-102"


def _reader_queries(shown: str, draft: str, scheduled: str) -> list[tuple[str, object, str]]:
    """(what a reader asks for, the call, the index its every query must read)."""
    return [
        ("a post's page", lambda: posts.get_published(shown), "slug_unique"),
        ("a draft's address", lambda: posts.get_published(draft), "slug_unique"),
        ("the API's posts by slug", lambda: posts.find_published_by_slugs([shown, draft, scheduled]),
         "slug_unique"),
        ("an author's page", lambda: posts.author_published_page(username="author-7", skip=0, limit=10),
         "author_created"),
        ("an author's count", lambda: posts.count_author_published(username="author-7"), "author_created"),
        ("a tag's page", lambda: posts.tag_published_page(tag="tag-17", skip=0, limit=10), "tags_published"),
        ("a tag's count", lambda: posts.count_tag_published(tag="tag-17"), "tags_published"),
        ("the home page", lambda: posts.published_page(page=1, per_page=10), "status_published"),
        ("the home page's count", posts.count_published, "status_published"),
    ]


def test_each_readers_query_reads_its_own_index(mongo_db, commands, blog):
    """Every query a reader's page sends to the posts collection reads the index listed
    with it, and none scans the collection."""
    for label, call, index in _reader_queries(*blog):
        sent = sent_queries(commands, call, "posts")
        assert sent, f"{label}: no query sent"
        for command in sent:
            nodes = explain(mongo_db, command)
            assert not collection_scans(nodes), f"{label}: {command} scans the collection"
            used = indexes_used(nodes)
            assert index in used, f"{label}: {command} reads {used}, not {index}"


def test_the_slug_lookups_still_show_only_published_posts(blog):
    """Read by slug alone, a draft and a post whose time has not come stay hidden."""
    shown, draft, scheduled = blog
    assert posts.get_published(shown).slug == shown
    assert posts.get_published(draft) is None and posts.get_published(scheduled) is None
    found = posts.find_published_by_slugs([shown, draft, scheduled, "no-such-post"])
    assert [post.slug for post in found] == [shown]
