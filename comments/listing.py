"""Listings worked out in Python from comments already read: the one place where the
stores that keep comments inside bigger documents (comments/embedded.py and
comments/buckets.py) order, filter, page and count them. Pure: no I/O.

A store reads the documents it needs (or, for buckets, the few fields a listing
needs) and this module does the rest, with the same results as the
one-document-per-comment store's indexed queries (tests/integration/comments/test_comment_stores.py
compares them).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import cmp_to_key
from typing import Any

from bson import ObjectId

from comments.records import (
    DELETED,
    HIDDEN,
    ORDERS,
    SPAM,
    Comment,
    QueueFilter,
    Tally,
    Viewer,
    in_queue,
    is_listed_for,
    is_placeholder_for,
    queue_order,
)

Order = Sequence[tuple[str, int]]


def field_value(comment: Comment, field: str) -> Any:
    """A comment's value of one sort field (by its stored name)."""
    return comment.id if field == "_id" else getattr(comment, field)


def sort(comments: Iterable[Comment], order: Order) -> list[Comment]:
    """The comments in `order` (stable sorts, last field first)."""
    ordered = list(comments)
    for field, direction in reversed(order):
        ordered.sort(key=lambda c: field_value(c, field), reverse=direction < 0)
    return ordered


def first(comments: Iterable[Comment], *, order: Order, limit: int) -> list[Comment]:
    """The first `limit` comments in `order` (as `sort(...)[:limit]`), holding no more
    than `limit` of them at a time: a page out of a long stream of comments."""
    if limit <= 0:
        return []

    def before(a: Comment, b: Comment) -> int:
        return compare(a, [field_value(b, field) for field, _ in order], order)

    return heapq.nsmallest(limit, comments, key=cmp_to_key(before))


def compare(comment: Comment, key: Sequence[Any], order: Order) -> int:
    """-1, 0 or 1 as `comment` sorts before, at or after `key` in `order`."""
    for (field, direction), wanted in zip(order, key):
        value = field_value(comment, field)
        if value != wanted:
            return (1 if value > wanted else -1) * (1 if direction > 0 else -1)
    return 0


def below(comments: Iterable[Comment], parent: Comment | None) -> list[Comment]:
    """The replies at any depth under `parent` (all the comments when None)."""
    if parent is None:
        return list(comments)
    prefix = parent.full_slug + "/"
    return [c for c in comments if c.discussion_id == parent.discussion_id and c.full_slug.startswith(prefix)]


def subthread(comments: Iterable[Comment], comment: Comment) -> list[Comment]:
    """The comment and all its descendants, threaded."""
    return sort(
        [c for c in comments if c.full_slug == comment.full_slug or c.full_slug.startswith(comment.full_slug + "/")],
        ORDERS["threaded"],
    )


def listed(comments: Iterable[Comment], *, parent: Comment | None, viewer: Viewer) -> list[Comment]:
    """What a listing of the discussion (or of the replies under `parent`) shows `viewer`."""
    return [c for c in below(comments, parent) if is_listed_for(viewer, c)]


def page(
    comments: Iterable[Comment], *, order: str, limit: int, skip: int = 0, after: tuple | None = None,
    before: tuple | None = None, parent: Comment | None = None, viewer: Viewer,
) -> list[Comment]:
    """A page as the stores' `find_page` gives it: `skip` and `limit` in `order`,
    after the key `after` or (the page read backwards) before the key `before`."""
    rows = sort(listed(comments, parent=parent, viewer=viewer), ORDERS[order])
    if after is not None:
        rows = [c for c in rows if compare(c, after, ORDERS[order]) > 0]
    elif before is not None:
        rows = [c for c in rows if compare(c, before, ORDERS[order]) < 0][::-1]
        return rows[skip:skip + limit][::-1]
    return rows[skip:skip + limit]


def tally(comments: Iterable[Comment], *, parent: Comment | None, viewer: Viewer) -> Tally:
    rows = listed(comments, parent=parent, viewer=viewer)
    placeholders = sum(is_placeholder_for(viewer, status=c.status, placeholder=c.placeholder) for c in rows)
    return Tally(total=len(rows), placeholders=placeholders)


def count_before(
    comments: Iterable[Comment], *, order: str, key: tuple, parent: Comment | None, viewer: Viewer
) -> int:
    return sum(compare(c, key, ORDERS[order]) < 0 for c in listed(comments, parent=parent, viewer=viewer))


def approved(comments: Iterable[Comment]) -> list[Comment]:
    return [c for c in comments if c.status not in HIDDEN]


def latest(comments: Iterable[Comment], *, limit: int) -> list[Comment]:
    """The newest approved comments, newest first."""
    return sort(approved(comments), [("posted", -1), ("_id", -1)])[:limit]


def duplicate(
    comments: Iterable[Comment], *, parent_id: ObjectId | None, author, ip: str | None, text: str, since: datetime
) -> Comment | None:
    """The newest comment with this text by this author in the same place since
    `since`, not spam or deleted (the stores' `find_duplicate`)."""
    def same_author(c: Comment) -> bool:
        if author.id is not None:
            return c.author.id == int(author.id)
        return (c.author.id is None and c.author.name == author.name and c.author.email == author.email
                and c.ip == ip)

    found = [
        c for c in comments
        if c.posted >= since and c.parent_id == parent_id and c.text == text
        and c.status not in (SPAM, DELETED) and same_author(c)
    ]
    return sort(found, [("posted", -1)])[0] if found else None


def queue(comments: Iterable[Comment], *, tab: str, filters: QueueFilter) -> list[Comment]:
    """A moderation queue tab, in its order (the caller slices the page)."""
    return sort([c for c in comments if in_queue(tab, filters, c)], queue_order(tab))


def newest_first(comments: Iterable[Comment]) -> list[Comment]:
    return sort(comments, [("posted", -1), ("_id", -1)])
