"""The approved replies to a member's comments (comments/reading/members.py
`replies_to`), in every comment store: the member's own replies to themselves are
left out by the query, so a page holds `limit` replies of others while there are more."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from comments.reading import members
from comments.records import CommentAuthor

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("each_store")]
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ROSA, IVO = CommentAuthor(id=41, name="Rosa"), CommentAuthor(id=42, name="Ivo")


def test_a_page_of_replies_is_full_though_the_member_answered_themselves_last(make_post, make_comment):
    post = make_post(title="Harbour")
    mine = make_comment(post, text="rosa", author=ROSA, at=START)
    for n, (text, who) in enumerate([("ivo one", IVO), ("ivo two", IVO), ("myself one", ROSA),
                                     ("myself two", ROSA)]):
        make_comment(post, text=text, author=who, parent_slug=mine.slug, at=START + timedelta(minutes=1 + n))

    first = members.replies_to(author_id=ROSA.id, cursor=None, limit=1)
    assert [c.text for c in first.comments] == ["ivo two"] and first.next_cursor is not None
    second = members.replies_to(author_id=ROSA.id, cursor=first.next_cursor, limit=1)
    assert [c.text for c in second.comments] == ["ivo one"] and second.next_cursor is None
