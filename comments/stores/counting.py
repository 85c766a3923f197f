"""The arithmetic of a discussion's counters: what one comment counts for, how a
change moves the counters, and a recount from stored comments. Pure: no I/O
(comments/stores/counters.py does the writes). And `Counting`, what a comment store is
made with to move the counters with its changes (counters.py is the one).

A comment counts once under its status (`approved`, `pending`, `spam`, `deleted`)
and, when it is hidden but stands as a placeholder for approved replies, once under
`placeholders`. A reader's listing holds the approved comments and the placeholders
(`listed`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Protocol, TypeVar

from bson import ObjectId

from comments.records import APPROVED, HIDDEN, Comment, Intent

KEYS = ("approved", "pending", "spam", "deleted", "placeholders")
# What a comment is as far as counting goes: (status, placeholder).
Shape = tuple[str, bool]


@dataclass(frozen=True)
class Counts:
    """A discussion's comments by status, and its placeholders."""

    approved: int = 0
    pending: int = 0
    spam: int = 0
    deleted: int = 0
    placeholders: int = 0

    @property
    def stored(self) -> int:
        """How many comments the discussion holds, of every status."""
        return self.approved + self.pending + self.spam + self.deleted

    @property
    def listed(self) -> int:
        """How many entries a reader's listing of the whole discussion holds."""
        return self.approved + self.placeholders

    def as_doc(self) -> dict[str, int]:
        return {f.name: int(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any] | None) -> Counts:
        doc = doc or {}
        return cls(**{key: int(doc.get(key) or 0) for key in KEYS})

    def moved(self, deltas: Mapping[str, int]) -> Counts:
        return Counts(**{key: getattr(self, key) + int(deltas.get(key, 0)) for key in KEYS})


def shape_of(doc: Mapping[str, Any]) -> Shape:
    """A stored comment's shape (a comment stored without a status is approved)."""
    return (str(doc.get("status") or APPROVED), bool(doc.get("placeholder")))


def counted(shape: Shape | None) -> dict[str, int]:
    """What one comment of this shape adds to the counters (nothing for None: a
    comment not yet inserted)."""
    if shape is None:
        return {}
    status, placeholder = shape
    found = {status: 1}
    if placeholder and status in HIDDEN:
        found["placeholders"] = 1
    return found


def deltas(was: Shape | None, now: Shape | None) -> dict[str, int]:
    """How the counters move when one comment goes from `was` to `now` (no zeros)."""
    moved: dict[str, int] = {}
    for key, n in counted(now).items():
        moved[key] = moved.get(key, 0) + n
    for key, n in counted(was).items():
        moved[key] = moved.get(key, 0) - n
    return {key: n for key, n in moved.items() if n}


def counted_shape(doc: Mapping[str, Any], *, applied: Iterable[Any] = ()) -> Shape | None:
    """The shape a stored comment counts as in counters that have applied the intents
    `applied`: its own, unless it carries an intent not applied yet, then the shape
    it had before that change (None: inserted but not counted yet)."""
    intent = Intent.from_doc(doc.get("intent"))
    if intent is not None and intent.id not in set(applied):
        return intent.was
    return shape_of(doc)


def recount(docs: Iterable[Mapping[str, Any]], *, applied: Iterable[Any] = ()) -> Counts:
    """The counters as they should stand for these stored comments, given the intents
    the counters have applied (`counted_shape`)."""
    done = set(applied)
    totals = dict.fromkeys(KEYS, 0)
    for doc in docs:
        for key, n in counted(counted_shape(doc, applied=done)).items():
            totals[key] = totals.get(key, 0) + n
    return Counts(**{key: totals[key] for key in KEYS})


Store = TypeVar("Store", contravariant=True)


class Counting(Protocol[Store]):
    """What moves a discussion's counters with each change of a comment's status,
    placeholder or text that a comment store makes, in that store (`store`): a store is
    made with it (comments/stores/base.py: CommentStore takes a Counting[CommentStore];
    comments.stores.get_store hands over comments/stores/counters.py). Generic in the
    store so that this module need not import the stores, which import it."""

    def change(self, comment: Comment, *, store: Store, status: str | None = None, placeholder: bool | None = None,
               fields: dict[str, Any] | None = None, only_from: str | None = None) -> Comment | None: ...

    def set_status(self, comments: Iterable[Comment], *, store: Store, status: str, blank: bool = False,
                   placeholder: bool | None = None) -> int: ...

    def set_placeholder(self, comments: Iterable[Comment], *, store: Store, placeholder: bool) -> int: ...

    def num_pages(self, discussion_id: ObjectId, *, store: Store) -> int: ...
