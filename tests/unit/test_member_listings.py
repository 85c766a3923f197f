"""The pure parts of a member's pages: their cursors (comments/reading/members.py)
round-trip and refuse what was altered or is another listing's, a query of replies
selects by parent."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from bson import ObjectId
from django.core import signing

from comments.reading import cursors, members
from comments.reading.cursors import BadCursor
from comments.records import Comment, CommentAuthor
from comments.stores import Query

WHEN = datetime(2026, 11, 29, 20, 41, 7, 123456, tzinfo=UTC)
OID = ObjectId("65a1b2c3d4e5f60718293a4c")


def comment(*, parent_id: ObjectId | None = None) -> Comment:
    return Comment(id=OID, discussion_id=ObjectId(), parent_id=parent_id, slug="s", full_slug="s", thread="s",
                   posted=WHEN, author=CommentAuthor(id=7, name="Rosa"), text="", html="")


def test_a_cursor_gives_back_the_key_of_its_comment():
    token = members.encode(scope="own:7", comment=comment())
    assert members.decode(token, scope="own:7") == (WHEN, OID)


@pytest.mark.parametrize("scope", ["own:8", "public:7", "replies:7"])
def test_a_cursor_of_another_listing_is_refused(scope):
    """Another member's, or the same member's other list's."""
    with pytest.raises(BadCursor):
        members.decode(members.encode(scope="own:7", comment=comment()), scope=scope)


def test_a_discussion_views_cursor_is_no_members_cursor_nor_the_reverse():
    """Both are signed alike (comments/reading/cursors.py): each names what it is of."""
    view_cursor = cursors.encode(view="chronological", scope="own:7", key=(WHEN, OID), page=2)
    with pytest.raises(BadCursor):
        members.decode(view_cursor, scope="own:7")
    with pytest.raises(BadCursor):
        cursors.decode(members.encode(scope="own:7", comment=comment()), view="chronological", scope="own:7")


@pytest.mark.parametrize("data", [
    {"s": "own:7"}, {"s": "own:7", "k": ["x", str(OID)]}, {"s": "own:7", "k": [WHEN.isoformat(), "nope"]},
    {"s": "own:7", "k": [WHEN.isoformat()]}, {"s": "own:7", "k": [1, 2]}, ["own:7"],
])
def test_a_signed_cursor_that_is_malformed_is_refused(data):
    with pytest.raises(BadCursor):
        members.decode(signing.dumps(data, salt=cursors.SALT), scope="own:7")


def test_an_altered_cursor_is_refused():
    token = members.encode(scope="own:7", comment=comment())
    with pytest.raises(BadCursor):
        members.decode(token[:-2] + ("AA" if not token.endswith("AA") else "BB"), scope="own:7")


def test_a_query_of_replies_selects_by_parent():
    mine, other = ObjectId(), ObjectId()
    query = Query(parents=frozenset({mine}))
    assert query.conditions() == {"parent_id": {"$in": [mine]}}
    assert query.matches(comment(parent_id=mine)) and not query.matches(comment(parent_id=other))
    assert not query.matches(comment())
    assert Query(parents=frozenset()).is_empty()


def test_a_query_can_leave_out_a_members_own_comments():
    query = Query(not_by=7)
    assert query.conditions() == {"author.id": {"$ne": 7}}
    assert not query.matches(comment()) and Query(not_by=8).matches(comment())
