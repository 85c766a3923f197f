"""The `discussion_state` collection: what the comments app keeps per discussion, one
document each, `_id` the discussion's id. The only module that touches it.

    {_id, counts: {approved, pending, spam, deleted, placeholders}, seq, applied: [intent ids],
     num_pages, opens}

- `counts`: the discussion's comments by status and its placeholders (comments/stores/counting.py),
  moved by comments/stores/counters.py exactly once per change;
- `seq`: a number every change to the discussion's comments raises (also those that
  move no counter: an edit, a vote, a rename). It is the version of the discussion's
  cached pages (comments/reading/fragments.py) and orders the host's copies of the summary.
  It starts from the clock in microseconds, so a state made again after a drop still
  counts on from above any number its discussion used before;
- `applied`: the ids of the intents whose deltas `counts` holds while their comments
  still carry them (comments/stores/counters.py);
- `num_pages`: the buckets store's page counter (the page new comments go to;
  storage-patterns.md keeps it on the discussion document), advanced by the
  conditional `{_id, num_pages: <page used>}` update of the pattern;
- `opens`: no later than the earliest `posted` of the discussion's comments (`$min`
  of every counted comment's, and a recount's), where a page 1 read in windows starts
  when no hint is cached (comments/stores/page_windows.py). Absent until a comment is counted;
- `branches`: a copy of the rules editors set on the discussion's branches
  (comments/moderation/branches.py owns them: `[{full_slug, locked, slow_seconds}]`), so a
  reader's page, which reads the state anyway, marks locked and slow branches with no
  query of its own. Absent until a rule is set;
- `unsettled`: the changes to the discussion's comments whose settling (their counting
  finished, placeholders, the host's summary: comments/stores/summaries.py) is not yet
  known done, `[{id, at, slugs}]`: pushed before the change is written, pulled once
  its settling completed; one left behind (the settling failed, ran out of time, or its
  process died) is settled again by `summaries.settle_overdue`. Absent until a change;
- `model`, `pk`: the model instance a discussion of the model host is (comments/model_host.py),
  so its id, derived from them, maps back to it. Absent for other hosts' discussions.

Every write is a single-document update: counters move only by `apply`, a
compare-and-set on `seq`, so two writers cannot both apply one change.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bson import ObjectId
from pymongo import ASCENDING, IndexModel, ReturnDocument, UpdateOne
from pymongo.collection import Collection
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError

from comments.stores.counting import Counts
from infra.mongo import get_db, replace_indexes
from infra.sharding import ShardKey

COLLECTION = "discussion_state"
# A state is a discussion's: a host whose discussion id is a model's integer key (the
# `_id: 1` issue 41 found) is refused before anything is written.
NOT_A_DISCUSSION_ID = "A discussion's id is an ObjectId, not {value!r} ({kind})."
# One discussion's state on one shard, by its own `_id` (infra/sharding.py).
SHARD_KEYS = (ShardKey(COLLECTION, {"_id": "hashed"}),)


def shard_keys() -> tuple[ShardKey, ...]:
    return SHARD_KEYS


# The states with a change left unsettled, for `summaries.settle_overdue` (few: sparse).
INDEXES = [IndexModel([("unsettled.at", ASCENDING)], name="unsettled_at", sparse=True)]


def ensure_indexes(db: Database) -> list[str]:
    """Every other read and write names the discussion by `_id`."""
    return replace_indexes(db[COLLECTION], INDEXES)


def _states() -> Collection:
    return get_db()[COLLECTION]


@dataclass(frozen=True)
class State:
    discussion_id: ObjectId
    counts: Counts
    seq: int
    applied: frozenset[ObjectId]
    num_pages: int
    opens: datetime | None = None
    # The discussion's branch rules, copied: (full_slug, locked, slow_seconds) each.
    branches: tuple[tuple[str, bool, int], ...] = ()
    # The changes not yet settled: (id, when noted, slugs) each.
    unsettled: tuple[tuple[ObjectId, datetime, tuple[str, ...]], ...] = ()

    @property
    def version(self) -> str:
        """The version of the discussion's cached pages (and API answers)."""
        return str(self.seq)

    @classmethod
    def from_doc(cls, doc: dict[str, Any]) -> State:
        return cls(discussion_id=doc["_id"], counts=Counts.from_doc(doc.get("counts")), seq=int(doc.get("seq") or 0),
                   applied=frozenset(doc.get("applied") or ()), num_pages=max(1, int(doc.get("num_pages") or 1)),
                   opens=doc.get("opens"),
                   branches=tuple((str(b["full_slug"]), bool(b.get("locked")), int(b.get("slow_seconds") or 0))
                                  for b in doc.get("branches") or ()),
                   unsettled=tuple((u["id"], u["at"], tuple(u.get("slugs") or ())) for u in doc.get("unsettled") or ()))


def first_seq() -> int:
    return time.time_ns() // 1000


def get(discussion_id: ObjectId) -> State | None:
    doc = _states().find_one({"_id": discussion_id})
    return None if doc is None else State.from_doc(doc)


def get_many(discussion_ids: Iterable[ObjectId]) -> dict[ObjectId, State]:
    ids = list(discussion_ids)
    return {doc["_id"]: State.from_doc(doc) for doc in _states().find({"_id": {"$in": ids}})} if ids else {}


def create(discussion_id: ObjectId, *, counts: Counts, num_pages: int, opens: datetime | None = None) -> State:
    """Store a first state (counted from the stored comments); the one stored first
    wins, whoever else creates it at once."""
    doc = {"_id": _checked(discussion_id), **_first(counts, num_pages=num_pages, opens=opens)}
    try:
        _states().insert_one(doc)
    except DuplicateKeyError:
        found = get(discussion_id)
        assert found is not None
        return found
    return State.from_doc(doc)


def _checked(discussion_id: ObjectId) -> ObjectId:
    """The id, refused (TypeError) unless an ObjectId: a state is never keyed by a pk."""
    if not isinstance(discussion_id, ObjectId):
        raise TypeError(NOT_A_DISCUSSION_ID.format(value=discussion_id, kind=type(discussion_id).__name__))
    return discussion_id


def _first(counts: Counts, *, num_pages: int, opens: datetime | None = None) -> dict[str, Any]:
    """A first state's fields: `counts`, no change applied yet."""
    return {"counts": counts.as_doc(), "seq": first_seq(), "applied": [], "num_pages": max(1, int(num_pages)),
            **({"opens": opens} if opens is not None else {})}


def name(discussion_id: ObjectId, *, model: str, pk: str) -> State:
    """Record the model instance this discussion is (made as a first state if there is
    none yet: no comments counted); the state."""
    key = {"_id": _checked(discussion_id)}
    doc = _states().find_one_and_update(
        key,
        {"$set": {"model": str(model), "pk": str(pk)}, "$setOnInsert": _first(Counts(), num_pages=1)},
        upsert=True, return_document=ReturnDocument.AFTER)
    assert doc is not None  # an upsert returning the document after
    return State.from_doc(doc)


def names(discussion_ids: Iterable[ObjectId]) -> dict[ObjectId, tuple[str, str]]:
    """The (model, pk) recorded for each of these discussions that has them."""
    ids = list(discussion_ids)
    if not ids:
        return {}
    found = _states().find({"_id": {"$in": ids}, "model": {"$exists": True}}, {"model": 1, "pk": 1})
    return {doc["_id"]: (str(doc["model"]), str(doc["pk"])) for doc in found}


def apply(discussion_id: ObjectId, *, intent_id: ObjectId, deltas: dict[str, int], if_seq: int,
          posted: datetime) -> State | None:
    """Move the counters by `deltas` and note `intent_id` as applied, if the state is
    still at `if_seq` and has not applied it, and keep `opens` no later than the
    comment's `posted`; the state after, or None."""
    return apply_many(discussion_id, intent_ids=[intent_id], deltas=deltas, if_seq=if_seq, posted=posted)


def apply_many(discussion_id: ObjectId, *, intent_ids: list[ObjectId], deltas: dict[str, int], if_seq: int,
               posted: datetime) -> State | None:
    """`apply` of several intents at once (their deltas summed), if the state is still
    at `if_seq` and has applied none of them; `posted`: the earliest of their comments'."""
    return _after(_states().find_one_and_update(
        {"_id": discussion_id, "seq": if_seq, "applied": {"$nin": list(intent_ids)}},
        {"$inc": {"seq": 1, **{f"counts.{key}": n for key, n in deltas.items()}},
         "$push": {"applied": {"$each": list(intent_ids)}}, "$min": {"opens": posted}},
        return_document=ReturnDocument.AFTER,
    ))


def note_opens(discussion_id: ObjectId, *, opens: datetime) -> None:
    """Keep `opens` no later than `opens` (a recount's earliest `posted`)."""
    _states().update_one({"_id": discussion_id}, {"$min": {"opens": opens}})


def set_counts(discussion_id: ObjectId, *, counts: Counts, if_seq: int) -> State | None:
    """Store recounted counters if the state is still at `if_seq` (a repair)."""
    return _after(_states().find_one_and_update(
        {"_id": discussion_id, "seq": if_seq},
        {"$set": {"counts": counts.as_doc()}, "$inc": {"seq": 1}},
        return_document=ReturnDocument.AFTER,
    ))


def forget(discussion_id: ObjectId, *, intent_ids: Iterable[ObjectId]) -> None:
    """Drop intents from `applied` once no comment carries them any more."""
    settled(discussion_id, note_ids=(), intent_ids=intent_ids)


def touch(discussion_ids: Iterable[ObjectId]) -> None:
    """Raise `seq` of these discussions (a change that moves no counter): an update of
    each by its `_id`, the shard key, so each goes to its discussion's shard alone (an
    `$in` is sent to every shard of a sharded cluster, and fails while any is lost)."""
    ids = list(dict.fromkeys(discussion_ids))
    if len(ids) == 1:
        _states().update_one({"_id": ids[0]}, {"$inc": {"seq": 1}})
    elif ids:
        _states().bulk_write([UpdateOne({"_id": each}, {"$inc": {"seq": 1}}) for each in ids], ordered=False)


def note_unsettled(discussion_id: ObjectId, *, note_id: ObjectId, at: datetime, slugs: list[str]) -> State | None:
    """Note a change about to be written whose settling is still to come; the state
    with the note (None: the discussion has no state to note it in)."""
    entry = {"id": note_id, "at": at, "slugs": list(slugs)}
    return _after(_states().find_one_and_update({"_id": discussion_id}, {"$push": {"unsettled": entry}},
                                                return_document=ReturnDocument.AFTER))


def settled(discussion_id: ObjectId, *, note_ids: Iterable[ObjectId],
            intent_ids: Iterable[ObjectId] = ()) -> None:
    """Drop these notes: their changes are settled; and, in the same update, these
    intents from `applied` (`forget`, once no comment carries them)."""
    notes, intents = list(note_ids), list(intent_ids)
    pulls: dict[str, Any] = {}
    if notes:
        pulls["unsettled"] = {"id": {"$in": notes}}
    if intents:
        pulls["applied"] = {"$in": intents}
    if pulls:
        _states().update_one({"_id": discussion_id}, {"$pull": pulls})


def unsettled_since(before: datetime) -> list[ObjectId]:
    """The discussions with a change noted before `before` and not yet settled."""
    return [doc["_id"] for doc in _states().find({"unsettled.at": {"$lte": before}}, {"_id": 1})]


def set_branches(discussion_id: ObjectId, *, branches: list[dict[str, Any]]) -> None:
    """Copy the discussion's branch rules here, as a new version of its pages."""
    _states().update_one({"_id": discussion_id}, {"$set": {"branches": branches}, "$inc": {"seq": 1}})


def advance_pages(discussion_id: ObjectId, *, from_page: int) -> bool:
    """Move `num_pages` from `from_page` to the next page unless another writer already
    has; whether this call did (the pattern's conditional `$inc`)."""
    result = _states().update_one({"_id": discussion_id, "num_pages": int(from_page)}, {"$inc": {"num_pages": 1}})
    return result.modified_count == 1


def set_pages(num_pages: dict[ObjectId, int]) -> None:
    """Set each discussion's `num_pages` outright (a migration or an import that wrote
    whole pages, or dropped them), in one bulk write."""
    if num_pages:
        _states().bulk_write([UpdateOne({"_id": discussion_id}, {"$set": {"num_pages": max(1, int(pages))}})
                              for discussion_id, pages in num_pages.items()], ordered=False)


def totals() -> Counts:
    """Every discussion's counters summed (one aggregation over the states)."""
    keys = Counts().as_doc()
    found = list(_states().aggregate([{"$group": {"_id": None, **{k: {"$sum": f"$counts.{k}"} for k in keys}}}]))
    return Counts.from_doc(found[0] if found else None)


def discussion_ids() -> Iterator[ObjectId]:
    for doc in _states().find({}, {"_id": 1}).sort("_id", 1):
        yield doc["_id"]


def drop(discussion_id: ObjectId) -> None:
    _states().delete_one({"_id": discussion_id})


def _after(doc: dict[str, Any] | None) -> State | None:
    return None if doc is None else State.from_doc(doc)
