"""Integration tests of the comments store and service (comments/store.py,
comments/services.py) against the real MongoDB-compatible server."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest
from bson import ObjectId
from pymongo.errors import DuplicateKeyError

from cms import posts
from comments import services, slugs, store
from comments.services import PARENT_NOT_FOUND, CommentError
from comments.store import CommentAuthor

BASE = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)

# The discussion most tests page through: PARENTS[i] is the index of the comment
# that comment i replies to (None for a top-level comment), in posting order.
# Late replies to early threads make the threaded, chronological and newest
# orders all differ; depths go from 0 to 5.
PARENTS = [
    None, 0, 1, 2, None, 0, 4, 3, 6, None,
    1, 9, 11, 12, 5, None, 13, 4, 7, 0,
    10, 10, 15, 22, 23, 9, 16, 14, None, 28,
    29, 30, 8, 2, 19, 33, 24, 31, None, 38,
]
# Comments 20 and 21 (siblings) are posted within the same second, and their slug
# parts sort against their time order, so only the sub-second time orders them.
SAME_SECOND = (20, 21)
SAME_SECOND_PARTS = {20: "zzzzzzzz", 21: "aaaaaaaa"}

# The pattern's queries for each view (the orders find_page must reproduce).
PATTERN_SORTS = {
    "threaded": [("full_slug", 1)],
    "chronological": [("posted", 1)],
    "newest": [("thread", -1), ("full_slug", 1)],
}


def posting_time(i: int) -> datetime:
    """When comment i of PARENTS is posted: ten seconds apart, except that comment
    21 follows comment 20 by a quarter of a second (same second, other millisecond)."""
    if i == SAME_SECOND[1]:
        return posting_time(SAME_SECOND[0]) + timedelta(milliseconds=250)
    return BASE + timedelta(seconds=10 * i, milliseconds=100)


def build_tree(post, make_comment) -> list:
    """Posts the PARENTS discussion on `post`, oldest first; the comments in posting order."""
    made = []
    for i, parent in enumerate(PARENTS):
        parent_slug = made[parent].slug if parent is not None else None
        extra = {"new_part": parts(SAME_SECOND_PARTS[i])} if i in SAME_SECOND_PARTS else {}
        made.append(make_comment(
            post, text=f"Comment number {i}", parent_slug=parent_slug, at=posting_time(i),
            summarise=False, **extra,
        ))
    return made


def depth_first(roots: list[int]) -> list[int]:
    """Indexes of PARENTS in threaded order below `roots`: each comment, then its
    replies oldest first, recursively."""
    children: dict[int | None, list[int]] = {}
    for i, parent in enumerate(PARENTS):
        children.setdefault(parent, []).append(i)
    order: list[int] = []

    def visit(i):
        order.append(i)
        for child in children.get(i, []):
            visit(child)

    for root in roots:
        visit(root)
    return order


ROOTS = [i for i, parent in enumerate(PARENTS) if parent is None]
# The three views, computed independently of the database from PARENTS.
EXPECTED_INDEXES = {
    "threaded": depth_first(ROOTS),
    "chronological": list(range(len(PARENTS))),
    "newest": depth_first(ROOTS[::-1]),
}


def slugs_of(comments) -> list[str]:
    return [c.slug for c in comments]


def pattern_order(mongo_db, post, view: str) -> list[str]:
    """The slugs of the discussion in the order of the pattern's own query."""
    cursor = mongo_db.comments.find({"discussion_id": post.id}).sort(PATTERN_SORTS[view])
    return [doc["slug"] for doc in cursor]


def parts(*values):
    """A `new_part` that hands out `values` in turn."""
    it = iter(values)
    return lambda: next(it)


def pages_until_empty(first: list, next_page) -> list[list]:
    """`first` and each `next_page(previous)` after it, up to the first empty page;
    fails rather than loops if the pages never run out."""
    pages, current = [], first
    for _ in range(100):
        if not current:
            return pages
        pages.append(current)
        current = next_page(current)
    pytest.fail("paging never reached an empty page")


def reader(name="Reader"):
    return CommentAuthor(id=None, name=name, email="reader@example.com")


# --- Indexes --------------------------------------------------------------------------


def test_comments_collection_has_the_patterns_indexes(mongo_db):
    """The four documented indexes exist with their keys; only discussion_id+slug is unique among them."""
    info = mongo_db.comments.index_information()
    expected = {
        "discussion_slug": [("discussion_id", 1), ("slug", 1)],
        "discussion_full_slug": [("discussion_id", 1), ("full_slug", 1)],
        "discussion_posted": [("discussion_id", 1), ("posted", 1), ("_id", 1)],
        "discussion_thread_newest": [("discussion_id", 1), ("thread", -1), ("full_slug", 1)],
    }
    assert {name: info.get(name, {}).get("key") for name in expected} == expected
    assert {name for name in expected if info[name].get("unique")} == {"discussion_slug"}


def test_unique_index_refuses_a_second_document_with_the_same_discussion_and_slug(mongo_db):
    """The server itself refuses two comments with one slug in one discussion."""
    discussion = ObjectId()
    mongo_db.comments.insert_one({"discussion_id": discussion, "slug": "aaaaaaaa", "full_slug": "x"})
    with pytest.raises(DuplicateKeyError):
        mongo_db.comments.insert_one({"discussion_id": discussion, "slug": "aaaaaaaa", "full_slug": "y"})
    assert mongo_db.comments.count_documents({"discussion_id": discussion}) == 1


# --- Posting --------------------------------------------------------------------------


def test_root_comment_is_stored_as_one_document_with_slug_full_slug_and_thread(make_post, mongo_db):
    """A root comment is one document: slug = part, full_slug = microsecond time:part, thread = full_slug."""
    post = make_post()
    at = datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=timezone.utc)
    posted = services.post_comment(
        post=post, text="Hello *there*", author=CommentAuthor(id=None, name="Ada", email="ada@example.com"),
        at=at, new_part=parts("k3x7q2ab"),
    )
    assert posted.reattached is False
    comment = posted.comment
    doc = mongo_db.comments.find_one({"_id": comment.id})
    assert set(doc) >= {
        "_id", "discussion_id", "parent_id", "slug", "full_slug", "thread", "posted", "author",
        "text", "html",
    }
    assert doc["discussion_id"] == post.id
    assert doc["parent_id"] is None
    assert doc["slug"] == "k3x7q2ab"
    assert doc["full_slug"] == "2026.03.01.09.30.15.123456:k3x7q2ab"
    assert doc["thread"] == "2026.03.01.09.30.15.123456:k3x7q2ab"
    assert doc["posted"] == datetime(2026, 3, 1, 9, 30, 15, 123000, tzinfo=timezone.utc)
    assert doc["author"] == {"id": None, "name": "Ada", "email": "ada@example.com"}
    assert doc["text"] == "Hello *there*"
    assert doc["html"] == "<p>Hello <em>there</em></p>"
    assert comment.depth == 0
    assert comment.parent_slug is None
    assert store.find_by_slug(discussion_id=post.id, slug="k3x7q2ab") == comment


def test_reply_extends_its_parents_slug_and_full_slug_and_keeps_its_thread(make_post, make_comment, mongo_db):
    """A reply's slug and full_slug extend its parent's by one part; it keeps its root's thread."""
    post = make_post()
    root = make_comment(post, at=datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=timezone.utc),
                        new_part=parts("k3x7q2ab"))
    reply = make_comment(post, parent_slug=root.slug, new_part=parts("7mfp2d4c"),
                         at=datetime(2026, 3, 1, 9, 31, 0, 1, tzinfo=timezone.utc))
    deeper = make_comment(post, parent_slug=reply.slug, new_part=parts("22222222"),
                          at=datetime(2026, 3, 1, 9, 32, tzinfo=timezone.utc))

    doc = mongo_db.comments.find_one({"_id": reply.id})
    assert doc["parent_id"] == root.id
    assert doc["slug"] == "k3x7q2ab/7mfp2d4c"
    assert doc["full_slug"] == "2026.03.01.09.30.15.123456:k3x7q2ab/2026.03.01.09.31.00.000001:7mfp2d4c"
    assert doc["thread"] == root.full_slug
    assert reply.depth == 1 and reply.parent_slug == root.slug

    deep_doc = mongo_db.comments.find_one({"_id": deeper.id})
    assert deep_doc["parent_id"] == reply.id
    assert deep_doc["slug"] == "k3x7q2ab/7mfp2d4c/22222222"
    assert deep_doc["full_slug"].startswith(doc["full_slug"] + "/")
    assert deep_doc["thread"] == root.full_slug
    assert deeper.depth == 2
    assert mongo_db.comments.count_documents({"discussion_id": post.id}) == 3


def test_colliding_slug_part_is_redrawn_and_both_comments_are_stored(make_post, make_comment, mongo_db):
    """A drawn part already used in the discussion is drawn again and both comments are stored."""
    post = make_post()
    draws = parts("aaaaaaaa", "aaaaaaaa", "bbbbbbbb")
    first = make_comment(post, new_part=draws)
    second = make_comment(post, new_part=draws)
    assert first.slug == "aaaaaaaa"
    assert second.slug == "bbbbbbbb"
    stored = sorted(doc["slug"] for doc in mongo_db.comments.find({"discussion_id": post.id}))
    assert stored == ["aaaaaaaa", "bbbbbbbb"]


def test_colliding_reply_slug_is_redrawn_under_the_same_parent(make_post, make_comment, mongo_db):
    """Two replies to one comment that draw the same part get different slugs."""
    post = make_post()
    root = make_comment(post, new_part=parts("rrrrrrrr"))
    draws = parts("cccccccc", "cccccccc", "dddddddd")
    first = make_comment(post, parent_slug=root.slug, new_part=draws)
    second = make_comment(post, parent_slug=root.slug, new_part=draws)
    assert (first.slug, second.slug) == ("rrrrrrrr/cccccccc", "rrrrrrrr/dddddddd")
    assert mongo_db.comments.count_documents({"discussion_id": post.id, "parent_id": root.id}) == 2


def test_same_slug_is_allowed_in_two_discussions(make_post, make_comment, mongo_db):
    """Slugs are unique per discussion only: two posts can each have comment 'aaaaaaaa'."""
    one, other = make_post(), make_post()
    a = make_comment(one, new_part=parts("aaaaaaaa"))
    b = make_comment(other, new_part=parts("aaaaaaaa"))
    assert a.slug == b.slug == "aaaaaaaa"
    assert mongo_db.comments.count_documents({"slug": "aaaaaaaa"}) == 2
    assert store.find_by_slug(discussion_id=one.id, slug="aaaaaaaa").id == a.id
    assert store.find_by_slug(discussion_id=other.id, slug="aaaaaaaa").id == b.id


# --- Reading pages --------------------------------------------------------------------


def test_discussion_orders_match_the_pattern_queries_and_the_tree(make_post, make_comment, mongo_db):
    """The pattern's sorts give the threaded, chronological and newest-first orders the tree implies."""
    post = make_post()
    made = build_tree(post, make_comment)
    a, b = (made[i] for i in SAME_SECOND)
    assert a.posted.replace(microsecond=0) == b.posted.replace(microsecond=0) and a.posted < b.posted
    assert max(c.depth for c in made) == 5
    for view, indexes in EXPECTED_INDEXES.items():
        assert pattern_order(mongo_db, post, view) == [made[i].slug for i in indexes], view


@pytest.mark.parametrize("view", ["threaded", "chronological", "newest"])
@pytest.mark.parametrize("per_page", [7, 8])
def test_find_page_pages_concatenate_to_the_pattern_order(make_post, make_comment, mongo_db, view, per_page):
    """Pages by skip, after-cursor and before-cursor (backwards) each concatenate to the pattern order."""
    post = make_post()
    build_tree(post, make_comment)
    expected = pattern_order(mongo_db, post, view)
    total = len(expected)

    by_skip = []
    for skip in range(0, total, per_page):
        page = store.find_page(discussion_id=post.id, order=view, limit=per_page, skip=skip)
        assert 0 < len(page) <= per_page
        by_skip += page
    assert slugs_of(by_skip) == expected

    forwards = pages_until_empty(
        store.find_page(discussion_id=post.id, order=view, limit=per_page),
        lambda prev: store.find_page(discussion_id=post.id, order=view, limit=per_page,
                                     after=prev[-1].key(view)),
    )
    assert all(len(page) <= per_page for page in forwards)
    assert slugs_of(sum(forwards, [])) == expected

    last = store.find_page(discussion_id=post.id, order=view, limit=1, skip=total - 1)
    backwards = pages_until_empty(
        last,
        lambda prev: store.find_page(discussion_id=post.id, order=view, limit=per_page,
                                     before=prev[0].key(view)),
    )
    assert all(len(page) <= per_page for page in backwards)
    assert slugs_of(sum(reversed(backwards), [])) == expected


def test_chronological_keyset_breaks_ties_within_one_millisecond_by_insertion(
    make_post, make_comment, mongo_db,
):
    """Comments stored with the same millisecond page in insertion order, each exactly once."""
    post = make_post()
    at = datetime(2026, 3, 1, 9, 0, 0, 500000, tzinfo=timezone.utc)
    made = [make_comment(post, at=at + timedelta(microseconds=i), summarise=False) for i in range(6)]
    assert len({c.posted for c in made}) == 1
    pages = pages_until_empty(
        store.find_page(discussion_id=post.id, order="chronological", limit=2),
        lambda prev: store.find_page(discussion_id=post.id, order="chronological", limit=2,
                                     after=prev[-1].key("chronological")),
    )
    assert slugs_of(sum(pages, [])) == slugs_of(made)


def test_newest_view_puts_newest_threads_first_with_replies_in_time_order_under_parents(
    make_post, make_comment,
):
    """Newest view: newest thread first, replies oldest first under their parent, never above it."""
    post = make_post()
    made = build_tree(post, make_comment)
    page = store.find_page(discussion_id=post.id, order="newest", limit=100)
    assert slugs_of(page) == [made[i].slug for i in EXPECTED_INDEXES["newest"]]

    position = {c.slug: n for n, c in enumerate(page)}
    for comment in page:
        if comment.parent_slug is not None:
            assert position[comment.parent_slug] < position[comment.slug]
    roots = [c for c in page if c.depth == 0]
    assert [r.posted for r in roots] == sorted((r.posted for r in roots), reverse=True)
    # Inside each thread, siblings are in time order.
    for comment in page:
        siblings = [c for c in page if c.parent_slug == comment.slug]
        assert [s.posted for s in siblings] == sorted(s.posted for s in siblings)


def test_replies_in_the_same_second_keep_their_time_order_in_every_view(make_post, make_comment):
    """Sibling replies 250 ms apart in one second keep time order in all views, whatever their parts."""
    post = make_post()
    made = build_tree(post, make_comment)
    first, second = (made[i].slug for i in SAME_SECOND)
    for view in PATTERN_SORTS:
        order = slugs_of(store.find_page(discussion_id=post.id, order=view, limit=100))
        assert order.index(first) < order.index(second), view


# --- Sub-threads, ancestors, replies --------------------------------------------------


@pytest.fixture
def prefix_siblings(make_post, make_comment):
    """Two top-level comments posted at the same instant whose slugs share seven of
    eight letters ('aaaaaaaa', 'aaaaaaab'), each with a small reply tree whose parts
    are the same under both."""
    post = make_post()
    at = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
    tree = {}
    for root_part in ("aaaaaaaa", "aaaaaaab"):
        root = make_comment(post, at=at, new_part=parts(root_part), summarise=False)
        child = make_comment(post, parent_slug=root.slug, at=at + timedelta(seconds=1),
                             new_part=parts("cccccccc"), summarise=False)
        grandchild = make_comment(post, parent_slug=child.slug, at=at + timedelta(seconds=2),
                                  new_part=parts("dddddddd"), summarise=False)
        second_child = make_comment(post, parent_slug=root.slug, at=at + timedelta(seconds=3),
                                    new_part=parts("cccccccd"), summarise=False)
        tree[root_part] = [root, child, grandchild, second_child]
    # A third sibling whose slug starts like a reply part, to rule out suffix mix-ups.
    tree["cccccccc"] = [make_comment(post, at=at, new_part=parts("cccccccc"), summarise=False)]
    return post, tree


def test_find_subthread_returns_the_comment_and_its_descendants_only(prefix_siblings):
    """find_subthread returns the comment and its descendants, never a sibling sharing a slug prefix."""
    post, tree = prefix_siblings
    for root_part in ("aaaaaaaa", "aaaaaaab"):
        root, child, grandchild, second_child = tree[root_part]
        assert store.find_subthread(comment=root) == [root, child, grandchild, second_child]
        assert store.find_subthread(comment=child) == [child, grandchild]
        assert store.find_subthread(comment=grandchild) == [grandchild]
        assert store.find_subthread(comment=second_child) == [second_child]
    assert store.find_subthread(comment=tree["cccccccc"][0]) == tree["cccccccc"]


def test_find_subthread_excludes_a_sibling_reply_sharing_a_slug_prefix(make_post, make_comment):
    """Sibling replies 'aaaaaaaa' and 'aaaaaaab' posted at one instant each get only their own sub-thread."""
    post = make_post()
    at = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
    root = make_comment(post, at=at, new_part=parts("rrrrrrrr"), summarise=False)
    a = make_comment(post, parent_slug=root.slug, at=at, new_part=parts("aaaaaaaa"), summarise=False)
    b = make_comment(post, parent_slug=root.slug, at=at, new_part=parts("aaaaaaab"), summarise=False)
    a_reply = make_comment(post, parent_slug=a.slug, at=at, new_part=parts("eeeeeeee"), summarise=False)
    b_reply = make_comment(post, parent_slug=b.slug, at=at, new_part=parts("eeeeeeee"), summarise=False)
    assert store.find_subthread(comment=a) == [a, a_reply]
    assert store.find_subthread(comment=b) == [b, b_reply]
    assert store.find_subthread(comment=root) == [root, a, a_reply, b, b_reply]


def test_replies_below_a_comment_exclude_the_comment_and_its_siblings(prefix_siblings):
    """find_page and count with below= see the comment's descendants only."""
    post, tree = prefix_siblings
    root, child, grandchild, second_child = tree["aaaaaaaa"]
    replies = store.find_page(discussion_id=post.id, order="threaded", limit=100, below=root)
    assert replies == [child, grandchild, second_child]
    assert store.count(discussion_id=post.id, below=root) == 3
    assert store.find_page(discussion_id=post.id, order="threaded", limit=100, below=child) == [grandchild]
    assert store.count(discussion_id=post.id, below=grandchild) == 0
    assert store.find_page(discussion_id=post.id, order="threaded", limit=100, below=grandchild) == []
    chrono = store.find_page(discussion_id=post.id, order="chronological", limit=100, below=root)
    assert chrono == [child, grandchild, second_child]


def test_replies_below_a_comment_page_by_cursor_within_the_subthread(make_post, make_comment):
    """Keyset pages of the replies below a comment stay inside its sub-thread."""
    post = make_post()
    made = build_tree(post, make_comment)
    below = made[0]
    expected = store.find_subthread(comment=below)[1:]
    assert len(expected) > 6
    pages = pages_until_empty(
        store.find_page(discussion_id=post.id, order="threaded", limit=4, below=below),
        lambda prev: store.find_page(discussion_id=post.id, order="threaded", limit=4, below=below,
                                     after=prev[-1].key("threaded")),
    )
    assert sum(pages, []) == expected


def test_find_ancestors_returns_the_comments_above_root_first(make_post, make_comment, commands):
    """A depth-4 comment's ancestors come back root first, in one query; a root has none."""
    post = make_post()
    made = build_tree(post, make_comment)
    deepest = made[7]  # 0 -> 1 -> 2 -> 3 -> 7
    assert deepest.depth == 4
    commands.reset()
    ancestors = store.find_ancestors(comment=deepest)
    assert commands.names == ["find"]
    assert ancestors == [made[0], made[1], made[2], made[3]]
    assert store.find_ancestors(comment=made[0]) == []
    assert store.find_ancestors(comment=made[39]) == [made[38]]


def test_count_and_count_before_give_sizes_and_positions_in_every_view(make_post, make_comment, mongo_db):
    """count is the discussion's size; count_before is each comment's index in each view."""
    post = make_post()
    made = build_tree(post, make_comment)
    other = make_post()
    make_comment(other)
    assert store.count(discussion_id=post.id) == len(PARENTS)
    assert store.count(discussion_id=other.id) == 1
    by_slug = {c.slug: c for c in made}
    for view in PATTERN_SORTS:
        for index, slug in enumerate(pattern_order(mongo_db, post, view)):
            key = by_slug[slug].key(view)
            assert store.count_before(discussion_id=post.id, order=view, key=key) == index, (view, slug)


def test_count_before_below_a_comment_counts_within_its_replies(make_post, make_comment):
    """count_before with below= positions a reply among its ancestor's replies only."""
    post = make_post()
    made = build_tree(post, make_comment)
    below = made[9]
    replies = store.find_subthread(comment=below)[1:]
    assert len(replies) >= 5
    for index, reply in enumerate(replies):
        key = reply.key("threaded")
        assert store.count_before(discussion_id=post.id, order="threaded", key=key, below=below) == index


# --- Depth bound ----------------------------------------------------------------------


def test_reply_past_the_depth_limit_is_attached_to_the_deepest_allowed_ancestor(
    make_post, make_comment, settings, mongo_db,
):
    """With COMMENTS_MAX_DEPTH=2 a reply to a depth-2 comment goes under the depth-1 ancestor, reattached."""
    settings.COMMENTS_MAX_DEPTH = 2
    post = make_post()
    root = make_comment(post)
    d1 = make_comment(post, parent_slug=root.slug)
    d2 = make_comment(post, parent_slug=d1.slug)
    assert d2.depth == 2

    posted = services.post_comment(post=post, text="Too deep", author=reader(), parent_slug=d2.slug)
    assert posted.reattached is True
    reply = posted.comment
    assert reply.depth == 2
    assert reply.parent_id == d1.id
    assert reply.parent_slug == d1.slug
    assert reply.full_slug.startswith(d1.full_slug + "/")
    assert mongo_db.comments.find_one({"_id": reply.id})["parent_id"] == d1.id


def test_reply_within_the_depth_limit_is_not_reattached(make_post, make_comment, settings):
    """A reply that fits under the limit goes under its parent and is not marked reattached."""
    settings.COMMENTS_MAX_DEPTH = 2
    post = make_post()
    root = make_comment(post)
    d1 = make_comment(post, parent_slug=root.slug)
    posted = services.post_comment(post=post, text="Fits", author=reader(), parent_slug=d1.slug)
    assert posted.reattached is False
    assert posted.comment.parent_id == d1.id and posted.comment.depth == 2


def test_replies_with_depth_limit_zero_become_top_level_comments(make_post, make_comment, settings):
    """With COMMENTS_MAX_DEPTH=0 a reply is stored as a top-level comment, marked reattached."""
    settings.COMMENTS_MAX_DEPTH = 0
    post = make_post()
    root = make_comment(post)
    posted = services.post_comment(post=post, text="Flat", author=reader(), parent_slug=root.slug)
    assert posted.reattached is True
    assert posted.comment.depth == 0 and posted.comment.parent_id is None


def test_full_slug_stays_under_1024_bytes_at_the_maximum_depth(make_post, make_comment, settings, mongo_db):
    """Replies stop at the ceiling depth however high the setting, with full_slug under 1024 bytes."""

    settings.COMMENTS_MAX_DEPTH = 1000
    post = make_post()
    comment = make_comment(post, summarise=False)
    for _ in range(slugs.DEPTH_CEILING + 3):
        comment = make_comment(post, parent_slug=comment.slug, summarise=False)
    deepest = max(mongo_db.comments.find({"discussion_id": post.id}), key=lambda d: len(d["full_slug"]))
    assert deepest["slug"].count("/") == slugs.DEPTH_CEILING - 1
    assert len(deepest["full_slug"].encode()) < 1024
    assert slugs.is_slug_path(deepest["slug"])
    assert comment.depth == slugs.DEPTH_CEILING - 1


# --- Refused parents ------------------------------------------------------------------


@pytest.mark.parametrize("parent_slug", ["zzzzzzzz", "zzzzzzzz/yyyyyyyy", "aaaaaaaa/zzzzzzzz"])
def test_reply_to_a_missing_parent_is_refused_and_writes_nothing(
    make_post, make_comment, mongo_db, parent_slug,
):
    """A well-formed parent slug naming no comment raises PARENT_NOT_FOUND and writes nothing."""
    post = make_post()
    make_comment(post, new_part=parts("aaaaaaaa"))
    before_docs = list(mongo_db.comments.find({}))
    before_post = mongo_db.posts.find_one({"_id": post.id})
    with pytest.raises(CommentError, match=re.escape(PARENT_NOT_FOUND)) as caught:
        services.post_comment(post=post, text="Orphan", author=reader(), parent_slug=parent_slug)
    assert caught.value.code == "bad_parent"
    assert list(mongo_db.comments.find({})) == before_docs
    assert mongo_db.posts.find_one({"_id": post.id}) == before_post


@pytest.mark.parametrize(
    "parent_slug",
    [".*", "a|b", "AAAAAAAA", "aaaaaaaa/", "aaaaaaa", "aaaaaaaa\n", "aaaaaaaa/../bbbbbbbb", "^aaaaaaaa",
     "aaaaaaa1", "/".join(["aaaaaaaa"] * 21)],
)
def test_reply_to_a_malformed_parent_is_refused_before_any_query(
    make_post, make_comment, mongo_db, commands, parent_slug,
):
    """A malformed parent slug raises PARENT_NOT_FOUND without sending MongoDB a single command."""
    post = make_post()
    make_comment(post, new_part=parts("aaaaaaaa"))
    before_docs = list(mongo_db.comments.find({}))
    commands.reset()
    with pytest.raises(CommentError, match=re.escape(PARENT_NOT_FOUND)) as caught:
        services.post_comment(post=post, text="Orphan", author=reader(), parent_slug=parent_slug)
    assert commands.names == []
    assert caught.value.code == "bad_parent"
    assert list(mongo_db.comments.find({})) == before_docs


def test_reply_to_a_comment_of_another_post_is_refused_and_writes_nothing(make_post, make_comment, mongo_db):
    """A reply naming a comment that belongs to another post raises PARENT_NOT_FOUND and stores nothing."""
    post, other = make_post(), make_post()
    foreign = make_comment(other)
    with pytest.raises(CommentError, match=re.escape(PARENT_NOT_FOUND)):
        services.post_comment(post=post, text="Wrong post", author=reader(), parent_slug=foreign.slug)
    assert mongo_db.comments.count_documents({}) == 1
    assert mongo_db.comments.count_documents({"discussion_id": post.id}) == 0
    assert posts.get_by_id(post.id).comment_count == 0


# --- Summary --------------------------------------------------------------------------


def test_post_summary_keeps_count_and_three_latest_after_each_comment(make_post, make_comment):
    """After every comment or reply the post carries the right count and the three newest comments."""
    post = make_post()
    made = []
    for i in range(6):
        parent_slug = made[0].slug if i in (2, 4) else None
        made.append(make_comment(post, text=f"Number {i}", parent_slug=parent_slug,
                                 author=reader(f"Reader {i}"), at=BASE + timedelta(minutes=i)))
        stored = posts.get_by_id(post.id)
        assert stored.comment_count == i + 1
        newest = made[::-1][:3]
        assert [c.slug for c in stored.latest_comments] == [c.slug for c in newest]
        assert [c.author_name for c in stored.latest_comments] == [c.author.name for c in newest]
        assert [c.excerpt for c in stored.latest_comments] == [c.text for c in newest]
        assert [c.posted for c in stored.latest_comments] == [c.posted for c in newest]


def test_refresh_summary_brings_a_bulk_loaded_post_up_to_date(make_post, make_comment):
    """Comments added with summarise=False leave the summary alone until refresh_summary recomputes it."""
    post = make_post()
    made = [make_comment(post, at=BASE + timedelta(minutes=i), summarise=False) for i in range(5)]
    assert posts.get_by_id(post.id).comment_count == 0
    assert services.refresh_summary(post_id=post.id) == 5
    stored = posts.get_by_id(post.id)
    assert stored.comment_count == 5
    assert [c.slug for c in stored.latest_comments] == [made[4].slug, made[3].slug, made[2].slug]


def test_summary_of_one_post_ignores_comments_on_other_posts(make_post, make_comment):
    """Each post's count and latest comments come from its own discussion only."""
    post, other = make_post(), make_post()
    mine = make_comment(post, at=BASE)
    make_comment(other, at=BASE + timedelta(minutes=1))
    make_comment(other, at=BASE + timedelta(minutes=2))
    stored = posts.get_by_id(post.id)
    assert stored.comment_count == 1
    assert [c.slug for c in stored.latest_comments] == [mine.slug]
    assert posts.get_by_id(other.id).comment_count == 2


# --- Lookups by slug ------------------------------------------------------------------


@pytest.mark.parametrize("slug", [".*", "^a", "a|b", "[a-z]{8}", "(?:x)", "\\", "aaaaaaaa.*", "$where", "{}"])
def test_find_by_slug_treats_regex_metacharacters_as_plain_text(make_post, make_comment, slug):
    """A slug full of regex metacharacters matches no comment and raises nothing."""
    post = make_post()
    make_comment(post, new_part=parts("aaaaaaaa"))
    make_comment(post, new_part=parts("bbbbbbbb"))
    assert store.find_by_slug(discussion_id=post.id, slug=slug) is None


def test_find_by_slug_finds_only_the_exact_slug_in_its_own_discussion(make_post, make_comment):
    """find_by_slug matches the whole slug path of one discussion, not a prefix."""
    post, other = make_post(), make_post()
    root = make_comment(post, new_part=parts("aaaaaaaa"))
    reply = make_comment(post, parent_slug=root.slug, new_part=parts("bbbbbbbb"))
    assert store.find_by_slug(discussion_id=post.id, slug="aaaaaaaa/bbbbbbbb") == reply
    assert store.find_by_slug(discussion_id=post.id, slug="bbbbbbbb") is None
    assert store.find_by_slug(discussion_id=other.id, slug="aaaaaaaa") is None


# --- Moderation: statuses, tallies, the queue's indexes ---------------------------------------


def test_the_moderation_queue_has_its_indexes_and_none_is_unique(mongo_db):
    """The queue's indexes exist and none is unique (sharding on {discussion_id, slug} stays possible)."""
    info = mongo_db.comments.index_information()
    expected = {
        "status_posted": [("status", 1), ("posted", -1)],
        "posted": [("posted", -1)],
        "flagged": [("flag_count", -1), ("posted", -1)],
        "author_email": [("author.email", 1), ("posted", -1)],
        "author_id": [("author.id", 1), ("posted", -1)],
        "ip": [("ip", 1), ("posted", -1)],
    }
    assert {name: info.get(name, {}).get("key") for name in expected} == expected
    assert not any(info[name].get("unique") for name in expected)


def test_a_document_without_a_status_counts_as_approved(make_post, make_comment, mongo_db):
    """Comments stored before moderation (or imported without a status) are approved for readers."""
    post = make_post()
    comment = make_comment(post)
    mongo_db.comments.update_one({"_id": comment.id}, {"$unset": {"status": ""}})
    assert store.find_by_id(comment.id).status == store.APPROVED
    assert store.count(discussion_id=post.id) == store.count_approved(discussion_id=post.id) == 1
    assert store.find_latest(discussion_id=post.id, limit=3)[0].id == comment.id


def test_tally_counts_entries_and_placeholders_in_one_command(make_post, make_comment, commands):
    """One aggregate gives what a listing holds and how many are placeholders, per viewer."""
    post = make_post()
    parent = make_comment(post)
    make_comment(post, parent_slug=parent.slug)
    pending = make_comment(post)
    store.set_status(ids=[parent.id], status=store.DELETED)
    store.set_placeholder(ids=[parent.id], placeholder=True)
    store.set_status(ids=[pending.id], status=store.PENDING)
    commands.reset()
    assert store.tally(discussion_id=post.id) == store.Tally(total=2, placeholders=1)
    assert commands.names == ["aggregate"]
    editor = store.Viewer(editor=True)
    assert store.tally(discussion_id=post.id, viewer=editor) == store.Tally(total=3, placeholders=1)


def test_a_subthread_changes_status_in_one_update_on_its_anchored_prefix(make_post, make_comment, commands):
    """set_subthread_status is one update_many; a sibling sharing the slug's first characters is untouched."""
    post = make_post()
    root = make_comment(post, new_part=parts("aaaaaaaa"))
    sibling = make_comment(post, new_part=parts("aaaaaaab"))
    child = make_comment(post, parent_slug=root.slug)
    commands.reset()
    assert store.set_subthread_status(comment=root, status=store.DELETED) == 2
    assert commands.names == ["update"]
    assert [store.find_by_id(c.id).status for c in (root, child, sibling)] == [
        store.DELETED, store.DELETED, store.APPROVED,
    ]


def test_find_duplicate_matches_author_text_place_and_time(make_post, make_comment):
    """The same author's same text under the same parent since `since`, and nothing else."""
    post = make_post()
    author = reader("Rosa")
    comment = make_comment(post, text="Same", author=author, at=BASE, ip="192.0.2.1")
    args = dict(discussion_id=post.id, parent_id=None, author=author, ip="192.0.2.1", text="Same")
    assert store.find_duplicate(**args, since=BASE - timedelta(seconds=1)).id == comment.id
    assert store.find_duplicate(**args, since=BASE + timedelta(seconds=1)) is None
    assert store.find_duplicate(**{**args, "text": "Other"}, since=BASE) is None
    assert store.find_duplicate(**{**args, "author": reader("Sam")}, since=BASE) is None
    assert store.find_duplicate(**{**args, "ip": "192.0.2.2"}, since=BASE) is None
