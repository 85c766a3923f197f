"""The `comment_erasures` collection: one document per erasure, written before any of
it is done. The only module that touches it.

    {_id, started, step: "comments" | "votes" | "addresses" | "done",
     user_id, emails,                 # whose data, until done (then removed)
     batch: [...], batch_key,         # what the step is changing now ([]: nothing)
     counts: {comments, votes, subscriptions, mail, addresses},
     lease, finished}

A step works in batches: the batch (comment or vote ids) is written first, then
changed, then cleared in the same update that adds its size to the counts, on the
condition that it is still that batch (`batch_key`). A run killed half-way leaves the
batch recorded; the next run changes it again (every change is idempotent) and counts
it once. A runner holds the erasure by a lease, so the request that starts it and the
worker that finishes it never run it at once; a runner that dies leaves a lease that
runs out after LEASE. Once done, the document keeps no personal data: its id, when it
started and finished, and how many of each thing went.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bson import ObjectId
from pymongo import ASCENDING, IndexModel, ReturnDocument
from pymongo.collection import Collection
from pymongo.database import Database

from infra.mongo import get_db

COMMENTS, VOTES, ADDRESSES, DONE = "comments", "votes", "addresses", "done"
STEPS = (COMMENTS, VOTES, ADDRESSES, DONE)
COUNTS = ("comments", "votes", "subscriptions", "mail", "addresses")
# How long a runner holds an erasure before another may take it over.
LEASE = timedelta(minutes=2)
INDEXES = [
    IndexModel([("finished", ASCENDING), ("started", ASCENDING)], name="finished_started"),
    IndexModel([("user_id", ASCENDING)], name="user_id", sparse=True),
]


def ensure_indexes(db: Database) -> list[str]:
    return db.comment_erasures.create_indexes(INDEXES)


def _erasures() -> Collection:
    return get_db().comment_erasures


def step_after(step: str) -> str:
    """The step that follows `step` (DONE stays DONE)."""
    return STEPS[min(STEPS.index(step) + 1, len(STEPS) - 1)]


@dataclass(frozen=True)
class Erasure:
    """An erasure as anyone may see it: no personal data. `finished`: when the last
    step ended (None: under way); `counts`: how many of each thing went (COUNTS)."""

    id: ObjectId
    started: datetime
    step: str
    finished: datetime | None
    counts: dict[str, int]

    @property
    def done(self) -> bool:
        return self.step == DONE

    @classmethod
    def from_doc(cls, doc: dict[str, Any]) -> Erasure:
        counts = doc.get("counts") or {}
        return cls(id=doc["_id"], started=doc["started"], step=doc["step"], finished=doc.get("finished"),
                   counts={name: int(counts.get(name, 0)) for name in COUNTS})


def start(*, user_id: int, emails: list[str], now: datetime | None = None) -> Erasure:
    """Record an erasure of this member's data (the one not finished yet, if a request
    sent twice started it already)."""
    doc = _erasures().find_one_and_update(
        {"user_id": int(user_id), "step": {"$ne": DONE}},
        {"$setOnInsert": {"started": now or datetime.now(UTC), "step": COMMENTS, "batch": [], "batch_key": None,
                          "counts": {name: 0 for name in COUNTS}, "lease": None, "finished": None},
         "$addToSet": {"emails": {"$each": sorted(set(emails))}}},
        upsert=True, return_document=ReturnDocument.AFTER,
    )
    assert doc is not None  # upserted
    return Erasure.from_doc(doc)


def find(erasure_id: ObjectId) -> Erasure | None:
    doc = _erasures().find_one({"_id": erasure_id})
    return Erasure.from_doc(doc) if doc else None


def take(erasure_id: ObjectId, *, now: datetime | None = None) -> dict[str, Any] | None:
    """Hold an unfinished erasure for LEASE (None: done, or another runner holds it)."""
    now = now or datetime.now(UTC)
    return _erasures().find_one_and_update(
        {"_id": erasure_id, "step": {"$ne": DONE}, "$or": [{"lease": None}, {"lease": {"$lte": now}}]},
        {"$set": {"lease": now + LEASE}}, return_document=ReturnDocument.AFTER,
    )


def release(doc: dict[str, Any]) -> None:
    """Let another runner take the erasure at once (this one stops)."""
    _erasures().update_one({"_id": doc["_id"], "lease": doc["lease"]}, {"$set": {"lease": None}})


def unfinished(*, now: datetime | None = None) -> list[ObjectId]:
    """The erasures not done that no runner holds, oldest first."""
    now = now or datetime.now(UTC)
    found = _erasures().find({"finished": None, "$or": [{"lease": None}, {"lease": {"$lte": now}}]}, {"_id": 1})
    return [doc["_id"] for doc in found.sort("started", ASCENDING)]


def set_batch(doc: dict[str, Any], items: list[Any]) -> dict[str, Any]:
    """Record the batch the step changes next; the erasure as it is now."""
    key = ObjectId()
    _erasures().update_one({"_id": doc["_id"], "batch": []}, {"$set": {"batch": items, "batch_key": key}})
    return {**doc, "batch": items, "batch_key": key}


def finish_batch(doc: dict[str, Any], *, counted: str) -> dict[str, Any]:
    """The recorded batch is changed: clear it, adding its size to `counted` once."""
    size = len(doc["batch"])
    _erasures().update_one({"_id": doc["_id"], "batch_key": doc["batch_key"]},
                           {"$set": {"batch": [], "batch_key": None}, "$inc": {f"counts.{counted}": size}})
    return {**doc, "batch": [], "batch_key": None}


def next_step(doc: dict[str, Any]) -> dict[str, Any]:
    """The step has nothing left: on to the next (only from this step)."""
    step = step_after(doc["step"])
    _erasures().update_one({"_id": doc["_id"], "step": doc["step"]}, {"$set": {"step": step}})
    return {**doc, "step": step}


def finish(doc: dict[str, Any], counts: dict[str, int], *, now: datetime | None = None) -> None:
    """The last step is done: add its counts, and the erasure forgets whose data it
    was (made only from that step, so a rerun counts nothing twice)."""
    _erasures().update_one(
        {"_id": doc["_id"], "step": doc["step"]},
        {"$set": {"step": DONE, "finished": now or datetime.now(UTC), "lease": None},
         "$inc": {f"counts.{k}": v for k, v in counts.items()},
         "$unset": {"user_id": "", "emails": "", "batch": "", "batch_key": ""}})
