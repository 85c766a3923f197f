"""The `notification_outbox` collection: mail to be sent, written by posting and
moderation, delivered by `send_notifications`. The only module that touches it.

    {_id: "<key>", batch: "<what goes out as one mail>", kind, to, data: {...},
     status: "due" | "sending" | "sent" | "dropped", due, created, attempts,
     claim, lease, sent_at, expires}

One document per thing to tell (a reply for a subscription, a confirmation, ...);
its `_id` is a key naming it (say `reply:<subscription>:<comment>`), so enqueueing
the same thing twice (a moderation action re-run after an interruption, a form sent
again) stores it once. Items of one `batch` share their `due` time: the first one
opens the batch `window` seconds ahead and later ones join it, so they go out as one
mail.

No transactions: a sender claims a batch with single-document atomic updates
(status due -> sending, with its own claim id and a lease), sends it, then marks
what it claimed sent. A sender killed between sending and marking leaves a lease
that expires, and the batch is claimed and sent again: at most one duplicate per
kill, none otherwise. A failed send goes back to due, later each time (back-off).
Sent and dropped items leave after KEEP (TTL on `expires`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bson import ObjectId
from pymongo import ASCENDING, DESCENDING, IndexModel, ReturnDocument
from pymongo.database import Database

from infra.mongo import get_db
from infra.racing_inserts import insert_many_keeping

DUE, SENDING, SENT, DROPPED = "due", "sending", "sent", "dropped"
# How long a claimed batch is a sender's before another may take it over.
LEASE = timedelta(minutes=5)
# Back-off after failed sends: BACKOFF_FIRST, doubled each time, at most BACKOFF_MOST.
BACKOFF_FIRST = timedelta(seconds=30)
BACKOFF_MOST = timedelta(hours=1)
# Sent and dropped mail is kept this long (what was sent to whom, for a while).
KEEP = timedelta(days=14)
INDEXES = [
    IndexModel([("status", ASCENDING), ("due", ASCENDING)], name="status_due"),
    IndexModel([("batch", ASCENDING), ("status", ASCENDING)], name="batch_status"),
    IndexModel([("claim", ASCENDING)], name="claim"),
    IndexModel([("expires", ASCENDING)], expireAfterSeconds=0, name="expires"),
]


def ensure_indexes(db: Database) -> list[str]:
    return db.notification_outbox.create_indexes(INDEXES)


@dataclass(frozen=True)
class Item:
    key: str
    batch: str
    kind: str
    to: str
    data: dict
    status: str
    due: datetime
    attempts: int

    @classmethod
    def from_doc(cls, doc: dict) -> Item:
        return cls(key=doc["_id"], batch=doc["batch"], kind=doc["kind"], to=doc["to"], data=doc.get("data") or {},
                   status=doc["status"], due=doc["due"], attempts=doc.get("attempts", 0))


@dataclass(frozen=True)
class Claimed:
    """A batch a sender holds: send it, then `mark_sent`, `drop` or `retry_later`."""

    claim: str
    items: list[Item]

    @property
    def attempts(self) -> int:
        return max(item.attempts for item in self.items)


def enqueue(*, key: str, batch: str, kind: str, to: str, data: dict | None = None, window: float = 0,
            now: datetime | None = None) -> bool:
    """Store one thing to tell `to`, due with its batch (or `window` seconds from now
    when it opens one); False when `key` was enqueued before (nothing changes)."""
    return enqueue_all([{"key": key, "batch": batch, "kind": kind, "to": to, "data": data}],
                       window=window, now=now) == 1


def enqueue_all(entries: list[dict], *, window: float = 0, now: datetime | None = None) -> int:
    """`enqueue` for several things at once (each a dict of its key, batch, kind, to
    and data), in two round trips however many: posting a comment tells every
    follower of its discussion. How many were new."""
    if not entries:
        return 0
    now = now or datetime.now(UTC)
    outbox = get_db().notification_outbox
    opens = now + timedelta(seconds=max(0.0, window))
    due = {entry["batch"]: opens for entry in entries}
    # The open batches' due times, earliest last so that it is the one kept.
    for doc in outbox.find({"batch": {"$in": list(due)}, "status": DUE}, {"batch": 1, "due": 1},
                           sort=[("due", DESCENDING)]):
        due[doc["batch"]] = doc["due"]
    docs = [{"_id": e["key"], "batch": e["batch"], "kind": e["kind"], "to": e["to"], "data": e.get("data") or {},
             "status": DUE, "due": due[e["batch"]], "created": now, "attempts": 0} for e in entries]
    return insert_many_keeping(outbox, docs)  # Keys enqueued before are kept as they are.


def _takeable(now: datetime) -> dict:
    """Due now, or claimed by a sender whose lease ran out (it was killed or stuck)."""
    return {"$or": [{"status": DUE, "due": {"$lte": now}}, {"status": SENDING, "lease": {"$lte": now}}]}


def claim_next(*, now: datetime | None = None) -> Claimed | None:
    """Take the next batch that is due, whole (its items that are due or whose lease
    ran out), for this sender alone; None when nothing is due."""
    now = now or datetime.now(UTC)
    outbox = get_db().notification_outbox
    claim = uuid.uuid4().hex
    taking = {"$set": {"status": SENDING, "claim": claim, "lease": now + LEASE}}
    first = outbox.find_one_and_update(_takeable(now), taking, sort=[("due", ASCENDING), ("_id", ASCENDING)],
                                       return_document=ReturnDocument.AFTER)
    if first is None:
        return None
    # Each sibling is taken by one atomic update: another sender cannot take it too.
    outbox.update_many(
        {"batch": first["batch"], "$or": [{"status": DUE}, {"status": SENDING, "lease": {"$lte": now}}]}, taking
    )
    items = [Item.from_doc(doc) for doc in outbox.find({"claim": claim, "status": SENDING}).sort("_id", 1)]
    return Claimed(claim=claim, items=items)


def mark_sent(claimed: Claimed, *, now: datetime | None = None) -> int:
    """The batch went out: never send it again. How many items this marked."""
    return _finish(claimed, SENT, now)


def drop(claimed: Claimed, *, now: datetime | None = None) -> int:
    """Nothing of the batch is to be sent any more (deleted replies, an unsubscribed address)."""
    return _finish(claimed, DROPPED, now)


def _finish(claimed: Claimed, status: str, now: datetime | None) -> int:
    now = now or datetime.now(UTC)
    result = get_db().notification_outbox.update_many(
        {"claim": claimed.claim, "status": SENDING},
        {"$set": {"status": status, "sent_at": now, "expires": now + KEEP}, "$unset": {"lease": ""}},
    )
    return result.modified_count


def backoff(attempts: int) -> timedelta:
    """How long to wait after the `attempts`-th failed send."""
    return min(BACKOFF_MOST, BACKOFF_FIRST * (2 ** max(0, attempts - 1)))


def retry_later(claimed: Claimed, *, now: datetime | None = None) -> datetime:
    """Sending failed (the SMTP server down): due again after a back-off; when."""
    now = now or datetime.now(UTC)
    due = now + backoff(claimed.attempts + 1)
    get_db().notification_outbox.update_many(
        {"claim": claimed.claim, "status": SENDING},
        {"$set": {"status": DUE, "due": due}, "$inc": {"attempts": 1}, "$unset": {"lease": "", "claim": ""}},
    )
    return due


def forget(*, to: Iterable[str] = (), comment_ids: Iterable[ObjectId] = ()) -> int:
    """Delete every item, whatever its status, sent or to send to these addresses or
    about these comments (an erased account's); how many went. No index serves
    `data.comment`: the outbox holds KEEP's worth of mail, and this reads it once."""
    either: list[dict] = []
    if addresses := list(to):
        either.append({"to": {"$in": addresses}})
    if ids := list(comment_ids):
        either.append({"data.comment": {"$in": ids}})
    return get_db().notification_outbox.delete_many({"$or": either}).deleted_count if either else 0


def drop_due(*, kinds: Iterable[str], comment_ids: Iterable[ObjectId], now: datetime | None = None) -> int:
    """Never send the items of these kinds about these comments that are still waiting
    (an approval undone: what it told is no longer so); those sent or being sent stay
    as they are. How many it dropped."""
    ids = list(comment_ids)
    if not ids:
        return 0
    now = now or datetime.now(UTC)
    result = get_db().notification_outbox.update_many(
        {"status": DUE, "kind": {"$in": list(kinds)}, "data.comment": {"$in": ids}},
        {"$set": {"status": DROPPED, "sent_at": now, "expires": now + KEEP}},
    )
    return result.modified_count


def count(*, status: str) -> int:
    return get_db().notification_outbox.count_documents({"status": status})
