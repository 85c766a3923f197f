"""What a comment store selects: a `Query` says which comments (a discussion, the
replies below a comment or a whole sub-thread, what a viewer is shown, ids, slugs, a
commenter, a moderation queue tab, a possible duplicate, statuses left out), in what
order, from which key, and which slice. Pure: no I/O.

It says which comments once, as a MongoDB filter on a comment's own fields
(`conditions`, which the documents and buckets stores send; `selection` with the
discussion too). The embedded store, which unpacks comments in Python, evaluates
that same filter on each comment's stored form with infra/matching.py (`matcher`,
`matches`), then orders and slices in Python (`compare`, `field_value`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from bson import ObjectId

from comments import keyset, slugs
from comments.records import (
    DELETED,
    PENDING,
    QUEUE_TABS,
    SPAM,
    Comment,
    CommentAuthor,
    Commenter,
    QueueFilter,
    Viewer,
    commenter_conditions,
    filter_conditions,
    visible_to,
)
from infra import matching

Order = tuple[tuple[str, int], ...]
NO_TAB = "no queue tab {tab!r}"
# The statuses a duplicate of a new comment may have: not spam or deleted.
NOT_DUPLICATES = frozenset({SPAM, DELETED})
# What each queue tab lists, before its filters (records.filter_conditions). Flag counts
# and scores are whole numbers: `>= 1` and `<= -1` are the documents store's partial
# indexes' `> 0` and `< 0` in a form DocumentDB reads them by (documents.py says why).
TAB_CONDITIONS: dict[str, dict[str, Any]] = {
    "pending": {"status": PENDING},
    "spam": {"status": SPAM},
    "flagged": {"flag_count": {"$gte": 1}, "status": {"$nin": [SPAM, DELETED]}},
    "recent": {},
    "downvoted": {"score": {"$lte": -1}, "status": {"$nin": [SPAM, DELETED]}},
}
# The comments of logged-in members (whose author copies find_member_authors lists).
MEMBERS: dict[str, Any] = {"author.id": {"$ne": None}}


def reverse(order: Order) -> Order:
    """`order` read backwards (a page before a key is read so, then flipped)."""
    return tuple(keyset.reverse(order))


def differing(fields: dict[str, Any]) -> dict[str, Any]:
    """The comments whose stored values are not all `fields` (dotted paths): those a
    change would write (its modified count)."""
    return {"$or": [{path: {"$ne": value}} for path, value in fields.items()]}


@dataclass(frozen=True)
class Duplicate:
    """A comment just posted again: same text, same author, same place, since `since`."""

    parent_id: ObjectId | None
    author: CommentAuthor
    ip: str | None
    text: str
    since: datetime

    def conditions(self) -> dict[str, Any]:
        same: dict[str, Any] = {"posted": {"$gte": self.since}, "parent_id": self.parent_id, "text": str(self.text)}
        if self.author.id is not None:
            same["author.id"] = int(self.author.id)
        else:
            same.update({"author.id": None, "author.name": str(self.author.name),
                         "author.email": str(self.author.email), "ip": self.ip})
        return same


@dataclass(frozen=True)
class Query:
    """Which comments, in what order, which slice (module docstring). Empty fields
    select everything; `after` is a key of `order` (Comment.key): only what sorts
    strictly after it."""

    discussion_id: ObjectId | None = None
    discussion_ids: frozenset[ObjectId] | None = None
    below: Comment | None = None
    subthread: Comment | None = None
    viewer: Viewer | None = None
    exclude: frozenset[str] = frozenset()
    ids: frozenset[ObjectId] | None = None
    slugs: frozenset[str] | None = None
    commenter: Commenter | None = None
    tab: str | None = None
    filters: QueueFilter = field(default_factory=QueueFilter)
    duplicate: Duplicate | None = None
    # Only replies to these comments (their `parent_id`): a member's replies page.
    parents: frozenset[ObjectId] | None = None
    # Not the comments of this member (their account id): the replies page leaves out
    # a member's replies to themselves.
    not_by: int | None = None
    # Only top-level comments; only the comments of these threads (`thread` keys).
    roots: bool = False
    threads: frozenset[str] | None = None
    # Only a comment whose tallies are still (up, down): a ranking key set for them.
    tallies: tuple[int, int] | None = None
    # Only editors' picks (True) or only others (False).
    picked: bool | None = None
    order: Order = ()
    after: tuple[Any, ...] | None = None
    skip: int = 0
    limit: int | None = None

    def __post_init__(self) -> None:
        if self.tab is not None and self.tab not in QUEUE_TABS:
            raise ValueError(NO_TAB.format(tab=self.tab))

    def discussions(self) -> list[ObjectId] | None:
        """The discussions the comments are in; None: any."""
        found: set[ObjectId] | None = None
        for scope in (
            {self.discussion_id} if self.discussion_id is not None else None,
            set(self.discussion_ids) if self.discussion_ids is not None else None,
            {self.filters.discussion_id} if self.filters.discussion_id is not None else None,
        ):
            if scope is not None:
                found = scope if found is None else found & scope
        return None if found is None else sorted(found)

    def is_empty(self) -> bool:
        """Whether the query cannot match anything (no ids, no slugs, no discussion)."""
        return (self.ids is not None and not self.ids) or (self.slugs is not None and not self.slugs) or (
            self.parents is not None and not self.parents) or (
            self.threads is not None and not self.threads) or (
            self.discussions() == []) or self.limit is not None and self.limit <= 0

    def unsliced(self) -> Query:
        return replace(self, skip=0, limit=None)

    def conditions(self) -> dict[str, Any]:
        """The MongoDB condition on a comment's own fields (the discussion left out:
        each store scopes that its own way)."""
        parts: list[dict[str, Any]] = []
        if self.viewer is not None:
            parts.append(visible_to(self.viewer))
        if self.exclude:
            parts.append({"status": {"$nin": sorted(self.exclude)}})
        if self.ids is not None:
            parts.append({"_id": {"$in": sorted(self.ids)}})
        if self.slugs is not None:
            parts.append({"slug": {"$in": sorted(self.slugs)}})
        if self.below is not None:
            parts.append({"full_slug": {"$regex": slugs.replies_regex(self.below.full_slug)}})
        if self.subthread is not None:
            parts.append({"full_slug": {"$regex": slugs.subtree_regex(self.subthread.full_slug)}})
        if self.commenter is not None:
            either = [{path: condition} for path, condition in commenter_conditions(self.commenter)]
            parts.append(either[0] if len(either) == 1 else {"$or": either})
        if self.tab is not None:
            parts.append(dict(TAB_CONDITIONS[self.tab]))
            parts.extend({path: condition} for path, condition in filter_conditions(self.filters))
        if self.duplicate is not None:
            parts.append(self.duplicate.conditions())
        if self.parents is not None:
            parts.append({"parent_id": {"$in": sorted(self.parents)}})
        if self.not_by is not None:
            parts.append({"author.id": {"$ne": int(self.not_by)}})
        if self.roots:
            parts.append({"parent_id": None})
        if self.threads is not None:
            parts.append({"thread": {"$in": sorted(self.threads)}})
        if self.tallies is not None:
            parts.append({"votes.up": int(self.tallies[0]), "votes.down": int(self.tallies[1])})
        if self.picked is not None:
            parts.append({"picked": True} if self.picked else {"picked": {"$ne": True}})
        if self.after is not None:
            parts.append(keyset.after(self.order, self.after))
        return all_of(parts)

    def selection(self) -> dict[str, Any]:
        """`conditions` with the discussion: everything the query selects by, as one
        MongoDB filter."""
        discussions = self.discussions()
        scope = [] if discussions is None else [{"discussion_id": {"$in": discussions}}]
        return all_of([*scope, self.conditions()])

    def matcher(self) -> Callable[[Comment], bool]:
        """`selection` as a Python predicate on comments (infra/matching.py on each
        comment's stored form): compiled once, for the comments of a listing."""
        selection = self.selection()
        selected, fields = matching.compile_filter(selection), matching.top_fields(selection)
        return lambda comment: selected(comment.to_doc(fields))

    def matches(self, comment: Comment) -> bool:
        """Whether the query selects `comment` (its slice aside)."""
        return self.matcher()(comment)


def all_of(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Conditions that must all hold, merged into one query (`$and` only for those
    whose fields would collide)."""
    merged: dict[str, Any] = {}
    rest: list[dict[str, Any]] = []
    for part in parts:
        if merged.keys() & part.keys():
            rest.append(part)
        else:
            merged.update(part)
    return {**merged, "$and": rest} if rest else merged


def field_value(comment: Comment, name: str) -> Any:
    """A comment's value of one sort field (by its stored name)."""
    return comment.id if name == "_id" else getattr(comment, name)


def compare(comment: Comment, key: Sequence[Any], order: Sequence[tuple[str, int]]) -> int:
    """-1, 0 or 1 as `comment` sorts before, at or after `key` in `order`."""
    for (name, direction), wanted in zip(order, key):
        value = field_value(comment, name)
        if value != wanted:
            return (1 if value > wanted else -1) * (1 if direction > 0 else -1)
    return 0
