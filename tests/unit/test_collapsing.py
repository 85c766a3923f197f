"""Which comments of a page may be collapsed with their replies, and how many each hides:
comments/reading/collapsing.py over slugs alone."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

from bson import ObjectId

from comments import slugs
from comments.reading.collapsing import mark_branches
from comments.reading.listings import Shown
from comments.records import Comment, CommentAuthor

BASE = Comment(
    id=ObjectId(), discussion_id=ObjectId("aaaaaaaaaaaaaaaaaaaaaaaa"), parent_id=None, slug="aa",
    full_slug="2026.01.01.00.00.00.000000:aa", thread="2026", posted=datetime(2026, 1, 1, tzinfo=timezone.utc),
    author=CommentAuthor(id=None, name="Ann", email=""), text="Hi", html="<p>Hi</p>", status="approved",
)


def page(*paths: str) -> list[Shown]:
    """Shown comments with these slug paths ("a/b": b answers a), in this order."""
    return [Shown(replace(BASE, slug=slugs.SEPARATOR.join(path.split("/")))) for path in paths]


def marks(shown: list[Shown]) -> list[tuple[int, int]]:
    return [(item.replies_here, item.closes) for item in shown]


def test_each_comment_counts_the_replies_that_follow_it_at_every_depth():
    shown = mark_branches(page("a", "a/b", "a/b/c", "a/b/d", "a/e", "f", "g", "g/h"), view="threaded")
    assert marks(shown) == [(4, 0), (2, 0), (0, 0), (0, 1), (0, 1), (0, 0), (1, 0), (0, 1)]
    assert [len(item.closing) for item in shown] == [c for _, c in marks(shown)]


def test_a_last_reply_closes_every_branch_it_ends_and_a_page_opening_mid_thread_opens_none():
    # The page opens with replies whose parent is on the page before.
    shown = mark_branches(page("a/b", "a/b/c", "a/b/c/d", "a/e"), view="threaded")
    assert marks(shown) == [(2, 0), (1, 0), (0, 2), (0, 0)]


def test_the_flat_view_collapses_nothing():
    shown = page("a", "a/b", "f")
    assert mark_branches(shown, view="chronological") == shown
