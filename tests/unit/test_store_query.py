"""The comment stores' `Query` (comments/stores/queries.py) without a server: its
MongoDB half merges conditions without losing one, and its Python half slices and
orders as the server does. Pure: these tests use no database fixture (the suite's
autouse fixtures still open the session's database)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from bson import ObjectId
from hypothesis import given
from hypothesis import strategies as st

from comments.records import ORDERS, PENDING, READERS, Comment, CommentAuthor, QueueFilter, by_commenter
from comments.stores import Query
from comments.stores.containers import in_python, sort, tally_of
from comments.stores.queries import NO_TAB, all_of

BASE = datetime(2026, 4, 1, 12, 0, tzinfo=UTC)
ROSA = CommentAuthor(id=None, name="Rosa", email="rosa@example.com")


def comment(slug: str = "s", *, at: int = 0, flags: int = 0, status: str = "approved", **fields) -> Comment:
    return Comment(id=ObjectId(), discussion_id=fields.pop("discussion_id", ObjectId()), parent_id=None,
                   slug=slug, full_slug=slug, thread=slug, posted=BASE + timedelta(seconds=at), author=ROSA,
                   text="", html="", flag_count=flags, status=status, **fields)


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=30), st.integers(0, 35),
       st.integers(0, 5))
def test_a_slice_in_python_is_that_slice_of_the_sorted_list(keys, limit, skip):
    """A query's slice worked out in Python (a heap holding skip + limit comments) is
    that slice of the sorted list, ties in input order."""
    comments = [comment(at=posted, flags=flags) for flags, posted in keys]
    order = (("flag_count", -1), ("posted", -1))
    query = Query(order=order, skip=skip, limit=limit)
    assert in_python(iter(comments), query) == sort(comments, order)[skip:skip + limit]


def test_conditions_on_one_field_are_kept_apart_not_overwritten():
    """Two conditions on `$or` (a viewer's and a commenter's) both hold: the second goes to `$and`."""
    merged = all_of([{"$or": [{"a": 1}]}, {"b": 2}, {"$or": [{"c": 3}]}])
    assert merged == {"$or": [{"a": 1}], "b": 2, "$and": [{"$or": [{"c": 3}]}]}
    query = Query(viewer=READERS, commenter=by_commenter(user_id=7, ips=["192.0.2.1"]))
    conditions = query.conditions()
    assert len(conditions["$or"]) == 2 and len(conditions["$and"][0]["$or"]) == 2


def test_a_member_alone_is_a_plain_condition():
    """One commenter field is a plain condition (what an arrayFilter may hold), not an `$or`."""
    assert Query(commenter=by_commenter(user_id=7)).conditions() == {"author.id": 7}


def test_a_query_that_cannot_match_is_empty():
    assert Query(ids=frozenset()).is_empty()
    assert Query(slugs=frozenset()).is_empty()
    assert Query(limit=0).is_empty()
    one, other = ObjectId(), ObjectId()
    assert Query(discussion_id=one, filters=QueueFilter(discussion_id=other)).is_empty()
    assert not Query(discussion_id=one, filters=QueueFilter(discussion_id=one)).is_empty()
    assert not Query().is_empty()


def test_an_unknown_queue_tab_is_refused():
    with pytest.raises(ValueError, match=NO_TAB.format(tab="archive")):
        Query(tab="archive")


def test_a_key_selects_what_sorts_strictly_after_it_in_python():
    """`after` in Python: the comments past the key in the order, not the one at it."""
    comments = [comment(f"{n}", at=n) for n in range(5)]
    order = tuple(ORDERS["chronological"])
    key = comments[2].key("chronological")
    assert in_python(comments, Query(order=order, after=key)) == comments[3:]


def test_the_python_tally_counts_placeholders_for_the_viewer():
    """A hidden comment kept as a placeholder is listed and counted as one; a pending one is not listed."""
    rows = [comment("a"), comment("b", status="deleted", placeholder=True), comment("c", status=PENDING)]
    assert tally_of(rows, Query(viewer=READERS)).total == 2
    assert tally_of(rows, Query(viewer=READERS)).placeholders == 1


def test_a_comment_s_stored_form_reads_back_as_the_same_comment():
    """What the Python side of a filter is evaluated on (Comment.to_doc) is what the
    stores store: from_doc reads it back unchanged."""
    member = Comment(id=ObjectId(), discussion_id=ObjectId(), parent_id=ObjectId(), slug="a/b", full_slug="x:a/x:b",
                     thread="x", posted=BASE, author=CommentAuthor(id=7, name="Bảo", email="b@example.com", staff=True),
                     text="t", html="<p>t</p>", form_key="k", status=PENDING, placeholder=True, ip="192.0.2.1",
                     edited=BASE, flag_count=2, votes_up=3, votes_down=1, score=2, rank=0.3, picked=True)
    for c in (member, comment("s")):
        assert Comment.from_doc(c.to_doc()) == c
        assert c.to_doc(["status", "author", "unknown"]) == {"status": c.status, "author": c.to_doc()["author"]}


def test_a_comment_for_readers_drops_only_what_is_for_moderation():
    """Comment.for_readers is the comment without its author's e-mail, its IP and its
    form's key, every other field equal; the stored comment keeps them."""
    member = Comment(id=ObjectId(), discussion_id=ObjectId(), parent_id=None, slug="a", full_slug="x:a", thread="x",
                     posted=BASE, author=CommentAuthor(id=7, name="Bảo", email="b@example.com", staff=True),
                     text="t", html="<p>t</p>", form_key="k", ip="192.0.2.1", edited=BASE, flag_count=2, votes_up=3)
    public = member.for_readers()
    assert public == Comment(**{**vars(member), "author": CommentAuthor(id=7, name="Bảo", staff=True),
                                "ip": None, "form_key": None})
    assert (member.author.email, member.ip, member.form_key) == ("b@example.com", "192.0.2.1", "k")
    assert public.for_readers() is public and hash(public) == hash(public.for_readers())


def test_a_query_selects_its_discussion_in_python_too():
    """The discussion, which each store scopes its own way on the server, is part of
    what Query.matches evaluates."""
    here, there = ObjectId(), ObjectId()
    mine = comment("a", discussion_id=here)
    assert Query(discussion_id=here).matches(mine) and not Query(discussion_id=there).matches(mine)
    assert not Query(filters=QueueFilter(discussion_id=there), tab="recent").matches(mine)
    assert Query(discussion_ids=frozenset({there, here})).matches(mine)
