"""How many replies wait behind a "Continue this thread" link, counted among a page's
own comments: comments/reading/cut_counts.py over records alone."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

from bson import ObjectId

from comments import slugs
from comments.reading.cut_counts import replies_on_page
from comments.records import DELETED, PENDING, READERS, Comment, CommentAuthor, Viewer

BASE = Comment(
    id=ObjectId(), discussion_id=ObjectId("aaaaaaaaaaaaaaaaaaaaaaaa"), parent_id=None, slug="aa",
    full_slug="2026.01.01.00.00.00.000000:aa", thread="2026", posted=datetime(2026, 1, 1, tzinfo=timezone.utc),
    author=CommentAuthor(id=None, name="Ann", email=""), text="Hi", html="<p>Hi</p>", status="approved",
)


def page(*paths: str, **changes) -> list[Comment]:
    """Comments with these slug paths ("a/b": b answers a), in this order."""
    return [replace(BASE, slug=slugs.SEPARATOR.join(path.split("/")), **changes) for path in paths]


def test_the_replies_below_a_comment_are_counted_at_every_depth_and_no_others():
    comments = page("a", "a/b", "a/b/c", "a/b/d", "a/e", "ab", "ab/f", "g")
    assert replies_on_page("a/b", comments, next_slug="h", viewer=READERS) == 2
    assert replies_on_page("a", comments, next_slug=None, viewer=READERS) == 4
    # "ab" begins with "a" but answers nothing.
    assert replies_on_page("ab", comments, next_slug=None, viewer=READERS) == 1


def test_replies_that_may_run_past_the_page_are_left_to_the_store():
    comments = page("a", "a/b", "a/b/c")
    assert replies_on_page("a/b", comments, next_slug="a/b/d", viewer=READERS) == 0
    assert replies_on_page("a/b", comments, next_slug="a/b/c/x", viewer=READERS) == 0
    assert replies_on_page("a/b", comments, next_slug="a/e", viewer=READERS) == 1


def test_placeholders_are_not_counted_as_the_store_tally_leaves_them_out():
    comments = [*page("a", "a/b"), *page("a/b/c", status=DELETED, placeholder=True), *page("a/b/c/d"),
                *page("a/b/e", status=PENDING, placeholder=True)]
    assert replies_on_page("a/b", comments, next_slug=None, viewer=READERS) == 1
    # An editor sees a pending comment whole.
    assert replies_on_page("a/b", comments, next_slug=None, viewer=Viewer(editor=True)) == 2
