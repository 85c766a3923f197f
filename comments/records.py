"""What every comment store hands out and takes in: the typed records, statuses and
orders shared by the three stores (comments/stores/documents.py, embedded.py, buckets.py).
Pure: no I/O.

Besides the records, this module holds the rules that say which comments a listing
shows (`visible_to`), which ones a moderation queue's filters or a commenter match,
each written once, as a MongoDB filter on a comment's stored fields: the documents
and buckets stores send them, and Python evaluates them on a comment's stored form
(`Comment.to_doc`) with infra/matching.py (`Viewer.sees`, and the `Query` of
comments/stores/queries.py in the stores that keep comments inside bigger documents).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bson import ObjectId
from pymongo import ASCENDING, DESCENDING

from comments import slugs
from infra import folding, matching
from infra.frozen import evolved, made

APPROVED, PENDING, SPAM, DELETED = "approved", "pending", "spam", "deleted"
STATUSES = (APPROVED, PENDING, SPAM, DELETED)
# What readers never see (except as a placeholder, or their own pending comments).
HIDDEN = (PENDING, SPAM, DELETED)

# The orders the views page through; the last field of each makes keys unique.
ORDERS: dict[str, list[tuple[str, int]]] = {
    "threaded": [("full_slug", ASCENDING)],
    "chronological": [("posted", ASCENDING), ("_id", ASCENDING)],
    "newest": [("thread", DESCENDING), ("full_slug", ASCENDING)],
}

# The ranked views' orders of top-level comments (comments/reading/ranked.py pages them): an
# editor's pick first, then the lower bound of the Wilson score interval ("best") or
# the net score ("top"); ties newer first.
RANKED_ORDERS: dict[str, list[tuple[str, int]]] = {
    "best": [("picked", DESCENDING), ("rank", DESCENDING), ("posted", DESCENDING), ("_id", DESCENDING)],
    "top": [("score", DESCENDING), ("posted", DESCENDING), ("_id", DESCENDING)],
}
# The vote fields every new comment starts with (a comment stored before votes existed
# gets them from `repair_votes`; imports get them in CommentStore.insert_documents).
VOTE_DEFAULTS: dict[str, Any] = {"votes": {"up": 0, "down": 0}, "score": 0, "rank": 0.0, "picked": False}

QUEUE_TABS = ("pending", "flagged", "spam", "recent", "downvoted")
NEWEST = [("posted", DESCENDING), ("_id", DESCENDING)]


class SlugTaken(Exception):
    """Another comment of the discussion already has this slug; draw a new part."""


class DiscussionFull(Exception):
    """The store cannot take another comment in this discussion (the embedded store
    near MongoDB's 16 MB document limit). The message says what an operator can do."""


@dataclass(frozen=True)
class CommentAuthor:
    id: int | None
    name: str
    email: str = ""
    # One of the site's staff (an author or editor) when they wrote it: a badge says so.
    staff: bool = False


@dataclass(frozen=True)
class Viewer:
    """Whose eyes a listing is for, and the one place that says who sees what.
    Everyone sees approved comments and placeholders; a commenter also sees their own
    pending comments (by the ids their browser session holds, or by their user id when
    logged in); editors see every pending comment. Spam and deleted comments are never
    shown whole, only as placeholders for their approved replies.

    The rule is written once, as the MongoDB filter `visible_to` (from `sees_status`
    and the viewer's own ids and user id), which the stores send or evaluate in
    Python; `sees` evaluates it on one comment (tests/unit/test_viewer.py holds the rule)."""

    user_id: int | None = None
    own: frozenset = field(default_factory=frozenset)
    editor: bool = False
    # The e-mail addresses this browser confirmed by following their confirmation link.
    confirmed: frozenset = field(default_factory=frozenset)

    @property
    def shared(self) -> bool:
        """Whether this viewer sees what every reader sees: not an editor (who sees what
        awaits moderation), not logged in and without comments of their own from this
        browser (who may see their pending comments and Edit links)."""
        return not self.editor and self.user_id is None and not self.own

    def owns(self, comment: Comment) -> bool:
        """Whether this viewer wrote `comment`: their user id, or their browser's token."""
        if self.user_id is not None and comment.author.id == int(self.user_id):
            return True
        return comment.id in self.own

    def sees_status(self, status: str) -> bool:
        """Whether this viewer sees comments of `status` whoever wrote them: those not
        hidden, and for an editor pending ones too."""
        return status not in HIDDEN or (self.editor and status == PENDING)

    def sees(self, comment: Comment) -> bool:
        """Whether a listing shows `comment` to this viewer, and whether they may open
        its page: its status is seen (`sees_status`), it stands as a placeholder for
        its replies, or it is pending and theirs (`visible_to`, evaluated)."""
        shown = visible_to(self)
        return matching.matches(shown, comment.to_doc(matching.top_fields(shown)))

    def sees_placeholder(self, *, status: str, placeholder: bool) -> bool:
        """Whether a listed comment is drawn as a placeholder for this viewer: a hidden
        one with approved replies, except a pending one for an editor, who sees it whole."""
        return placeholder and status in HIDDEN and not (self.editor and status == PENDING)

    def sees_whole(self, comment: Comment) -> bool:
        """Whether this viewer sees `comment`'s text and author, not only its place (a
        placeholder, or an ancestor of their own pending reply)."""
        if self.sees_placeholder(status=comment.status, placeholder=comment.placeholder):
            return False
        return comment.status not in HIDDEN or (
            comment.status == PENDING and (self.editor or self.owns(comment))
        )


READERS = Viewer()


@dataclass(frozen=True)
class Intent:
    """A change of one comment's (status, placeholder) stored on the comment with the
    change itself, until the discussion's counters have moved by it (comments/stores/counters.py).
    `was` is None for a comment that was just inserted."""

    id: ObjectId
    was: tuple[str, bool] | None
    now: tuple[str, bool]

    def as_doc(self) -> dict[str, Any]:
        return {"id": self.id, "was": list(self.was) if self.was else None, "now": list(self.now)}

    @classmethod
    def from_doc(cls, doc: Any) -> Intent | None:
        if not isinstance(doc, dict) or not isinstance(doc.get("id"), ObjectId):
            return None
        was, now = doc.get("was"), doc.get("now") or (APPROVED, False)
        return cls(id=doc["id"], was=(str(was[0]), bool(was[1])) if was else None,
                   now=(str(now[0]), bool(now[1])))


@dataclass(frozen=True)
class Comment:
    id: ObjectId
    discussion_id: ObjectId
    parent_id: ObjectId | None
    slug: str
    full_slug: str
    thread: str
    posted: datetime
    author: CommentAuthor
    text: str
    html: str
    # The key of the form that posted it (idempotent posting); None for imports.
    form_key: str | None = None
    status: str = APPROVED
    # Not approved, but with approved replies: shown as "[deleted]" to keep the thread.
    placeholder: bool = False
    # For moderation only; never shown to readers.
    ip: str | None = None
    # When its author last edited it.
    edited: datetime | None = None
    flag_count: int = 0
    # Readers' votes (comments/votes/collection.py keeps them), the net score, the ranking key of
    # the best view (scores.wilson_lower_bound) and whether an editor featured it.
    votes_up: int = 0
    votes_down: int = 0
    score: int = 0
    rank: float = 0.0
    picked: bool = False
    # A change of status or placeholder whose counters are not yet moved (comments/stores/counters.py).
    intent: Intent | None = None

    @property
    def approved(self) -> bool:
        return self.status == APPROVED

    @property
    def depth(self) -> int:
        return slugs.depth(self.slug)

    @property
    def anchor(self) -> str:
        return slugs.anchor(self.slug)

    @property
    def parent_slug(self) -> str | None:
        return slugs.parent_slug(self.slug)

    def for_readers(self) -> Comment:
        """This comment without what is for moderation only: its author's e-mail, its IP
        address and its form's key (a copy, as every comment a page draws is)."""
        if self.ip is None and self.form_key is None and not self.author.email:
            return self
        return evolved(self, author=evolved(self.author, email=""), ip=None, form_key=None)

    def key(self, order: str) -> tuple:
        """This comment's position in one of ORDERS (what a cursor stores)."""
        values = {"_id": self.id, "full_slug": self.full_slug, "posted": self.posted, "thread": self.thread,
                  "rank": self.rank, "score": self.score, "picked": self.picked}
        return tuple(values[field] for field, _ in (ORDERS.get(order) or RANKED_ORDERS[order]))

    def to_doc(self, fields: Iterable[str] | None = None) -> dict[str, Any]:
        """The comment's stored fields, as records.new_document names them and
        `from_doc` reads them back (what a MongoDB filter on a comment is evaluated on);
        only the top-level `fields` named, when given (matching.top_fields of a filter)."""
        names = STORED_FIELDS if fields is None else fields
        return {name: STORED_FIELDS[name](self) for name in names if name in STORED_FIELDS}

    @classmethod
    def from_doc(cls, doc: dict) -> Comment:
        """A comment from its stored fields (the same in every store; an embedded
        comment has its discussion's id passed in)."""
        author, votes, intent = doc.get("author") or {}, doc.get("votes") or {}, doc.get("intent")
        return made(  # cls(...) without its frozen __init__: fifty-one a page
            cls, id=doc["_id"], discussion_id=doc["discussion_id"], parent_id=doc.get("parent_id"), slug=doc["slug"],
            full_slug=doc["full_slug"], thread=doc.get("thread") or slugs.thread_key(doc["full_slug"]),
            posted=doc["posted"],
            author=made(CommentAuthor, id=author.get("id"), name=author.get("name", ""),
                        email=author.get("email", ""), staff=bool(author.get("staff"))),
            text=doc["text"], html=doc.get("html", ""), form_key=doc.get("form_key"),
            status=doc.get("status") or APPROVED, placeholder=bool(doc.get("placeholder")), ip=doc.get("ip"),
            edited=doc.get("edited"), flag_count=doc.get("flag_count", 0),
            votes_up=int(votes.get("up") or 0), votes_down=int(votes.get("down") or 0),
            score=int(doc.get("score") or 0), rank=float(doc.get("rank") or 0.0), picked=bool(doc.get("picked")),
            intent=Intent.from_doc(intent) if intent is not None else None,
        )


# Each stored top-level field of a comment, from its record (Comment.to_doc).
STORED_FIELDS: dict[str, Callable[[Comment], Any]] = {
    "_id": lambda c: c.id, "discussion_id": lambda c: c.discussion_id, "parent_id": lambda c: c.parent_id,
    "slug": lambda c: c.slug, "full_slug": lambda c: c.full_slug, "thread": lambda c: c.thread,
    "posted": lambda c: c.posted,
    "author": lambda c: {"id": c.author.id, "name": c.author.name, "email": c.author.email,
                         **({"staff": True} if c.author.staff else {})},
    "text": lambda c: c.text, "html": lambda c: c.html, "form_key": lambda c: c.form_key,
    "status": lambda c: c.status, "placeholder": lambda c: c.placeholder, "ip": lambda c: c.ip,
    "edited": lambda c: c.edited, "flag_count": lambda c: c.flag_count,
    "votes": lambda c: {"up": c.votes_up, "down": c.votes_down}, "score": lambda c: c.score,
    "rank": lambda c: c.rank, "picked": lambda c: c.picked,
}


def new_document(
    *, discussion_id: ObjectId, parent: Comment | None, slug: str, full_slug: str, posted: datetime,
    author: CommentAuthor, text: str, html: str, form_key: str | None, status: str, ip: str | None,
    intent: Intent | None = None, comment_id: ObjectId | None = None,
) -> dict:
    """The stored fields of a new comment, the same in every store (with `intent`: the
    counters' note that it is not counted yet, comments/stores/counters.py; `comment_id`: the
    id chosen for it beforehand, else a new one)."""
    return {
        **({"intent": intent.as_doc()} if intent else {}),
        "_id": comment_id or ObjectId(),
        "discussion_id": discussion_id,
        "parent_id": parent.id if parent else None,
        "slug": slug,
        "full_slug": full_slug,
        "thread": slugs.thread_key(full_slug),
        "posted": posted,
        "author": {"id": author.id, "name": author.name, "email": author.email,
                   **({"staff": True} if author.staff else {})},
        "text": text,
        "html": html,
        "form_key": form_key,
        "status": status,
        "ip": ip,
        **{name: dict(value) if isinstance(value, dict) else value for name, value in VOTE_DEFAULTS.items()},
    }


@dataclass(frozen=True)
class Tally:
    """What a listing holds: `total` entries, of which `placeholders` stand in for
    comments that are not shown (a "[deleted]" with replies)."""

    total: int
    placeholders: int

    @classmethod
    def from_groups(cls, groups: Iterable[dict], viewer: Viewer) -> Tally:
        """The tally of a listing from a server's counts grouped by status and
        placeholder (`{_id: {s: status, p: placeholder}, n: count}`)."""
        total = placeholders = 0
        for group in groups:
            total += group["n"]
            status = group["_id"].get("s") or APPROVED
            if viewer.sees_placeholder(status=status, placeholder=bool(group["_id"].get("p"))):
                placeholders += group["n"]
        return cls(total=total, placeholders=placeholders)

    @property
    def comments(self) -> int:
        return self.total - self.placeholders


@dataclass(frozen=True)
class QueueFilter:
    """The moderation queue's filters; empty ones match everything."""

    discussion_id: ObjectId | None = None
    name: str = ""
    email: str = ""
    ip: str = ""


@dataclass(frozen=True)
class Commenter:
    """Comments by a member, or from any of these IP addresses: whom a ban reaches."""

    user_id: int | None = None
    ips: tuple[str, ...] = ()


def by_commenter(*, user_id: int | None = None, ips: Iterable[str] = ()) -> Commenter:
    """Comments by a member, or from any of these IP addresses."""
    commenter = Commenter(
        user_id=int(user_id) if user_id is not None else None,
        ips=tuple(str(i) for i in ips if i),
    )
    if commenter.user_id is None and not commenter.ips:
        raise ValueError("a commenter needs a user id or an IP address")
    return commenter


def exactly(value: str) -> dict:
    """A MongoDB condition: a case-insensitive whole-value match, literal (never a pattern)."""
    return {"$regex": "^" + re.escape(str(value)) + "$", "$options": "i"}


def visible_to(viewer: Viewer) -> dict:
    """The condition a comment meets to be listed for `viewer`: `Viewer.sees` as a
    MongoDB query (pending comments it owns by id or by its user id)."""
    shown: list[dict] = [{"status": {"$nin": list(HIDDEN)}}, {"placeholder": True}]
    if viewer.sees_status(PENDING):
        shown.append({"status": PENDING})
    else:
        if viewer.own:
            shown.append({"status": PENDING, "_id": {"$in": sorted(viewer.own)}})
        if viewer.user_id is not None:
            shown.append({"status": PENDING, "author.id": int(viewer.user_id)})
    return {"$or": shown}


def commenter_conditions(commenter: Commenter) -> list[tuple[str, Any]]:
    """(comment field, MongoDB condition) pairs, any of which finds `commenter`'s
    comments: the one rule each store turns into its query (its own field paths)."""
    either: list[tuple[str, Any]] = []
    if commenter.user_id is not None:
        either.append(("author.id", int(commenter.user_id)))
    either += [("ip", str(ip)) for ip in commenter.ips]
    return either


def filter_conditions(filters: QueueFilter) -> list[tuple[str, Any]]:
    """(comment field, MongoDB condition) pairs that all hold for the comments a queue's
    name, e-mail and IP filters match (the discussion filter is each store's own)."""
    conditions: list[tuple[str, Any]] = []
    if filters.name:
        # Typed with or without diacritics, either side ("nguyen" finds "Nguyễn"), and
        # literally: folding.pattern escapes everything the editor typed.
        conditions.append(("author.name", {"$regex": folding.pattern(str(filters.name)), "$options": "i"}))
    if filters.email:
        conditions.append(("author.email", exactly(filters.email)))
    if filters.ip:
        conditions.append(("ip", str(filters.ip)))
    return conditions


def queue_order(tab: str) -> list[tuple[str, int]]:
    """How a queue tab sorts: newest first; the flagged tab most flagged first, the
    down-voted tab lowest net score first."""
    if tab == "downvoted":
        return [("score", ASCENDING)] + NEWEST
    return [("flag_count", DESCENDING)] + NEWEST if tab == "flagged" else NEWEST
