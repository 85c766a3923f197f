"""The `webhook_deliveries` collection: the webhooks' outbox and delivery log. The
only module that touches it.

    {_id, hook, event_id, event, created, subject: {...}, body: str | null,
     status: "due" | "sending" | "delivered" | "failed", due, attempts,
     claim, lease, log: [{at, code, error, ms}], expires}

One document per event and webhook, stored in the request that made the event (one
insert). `send_webhooks` claims due ones with single-document atomic updates (due ->
sending, with its claim id and a lease), writes the body once (`subject` says what it
is about; every retry sends the same bytes and the same event id, so receivers can
deduplicate), POSTs it (webhooks/sender.py: several at once, at most half of them
for one webhook), and records the attempt in `log`, conditioned on its claim:
delivered, due again after a back-off, or failed once the next try would fall past
WEBHOOKS_RETRY_HOURS after the event. A sender killed mid-attempt leaves a lease
that runs out, and another takes the delivery over. Finished deliveries leave after
KEEP (TTL on `expires`).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bson import ObjectId
from pymongo import ASCENDING, DESCENDING, IndexModel, ReturnDocument
from pymongo.database import Database

from infra.mongo import get_db

DUE, SENDING, DELIVERED, FAILED = "due", "sending", "delivered", "failed"
# The first retry's wait, doubled after each failure up to RETRY_MOST.
RETRY_FIRST = timedelta(seconds=30)
RETRY_MOST = timedelta(hours=1)
# How long a claimed delivery is its sender's before another may take it over.
LEASE = timedelta(minutes=5)
# Delivered and failed deliveries, with their log, are kept this long.
KEEP = timedelta(days=14)
INDEXES = [
    IndexModel([("status", ASCENDING), ("due", ASCENDING)], name="status_due"),
    IndexModel([("hook", ASCENDING), ("created", DESCENDING)], name="hook_created"),
    IndexModel([("expires", ASCENDING)], expireAfterSeconds=0, name="expires"),
]


def ensure_indexes(db: Database) -> list[str]:
    return db.webhook_deliveries.create_indexes(INDEXES)


@dataclass(frozen=True)
class Attempt:
    """One POST: when, the answer's status code (None: no HTTP answer), why it
    failed ("" when it did not), how long it took."""

    at: datetime
    code: int | None
    error: str
    ms: int

    @property
    def ok(self) -> bool:
        return self.code is not None and 200 <= self.code < 300


@dataclass(frozen=True)
class Delivery:
    id: ObjectId
    hook: ObjectId
    event_id: str
    event: str
    created: datetime
    subject: dict
    body: str | None
    status: str
    due: datetime
    attempts: tuple[Attempt, ...]
    claim: str | None = None

    @classmethod
    def from_doc(cls, doc: dict) -> Delivery:
        log = tuple(Attempt(at=a["at"], code=a.get("code"), error=a.get("error", ""), ms=a.get("ms", 0))
                    for a in doc.get("log") or ())
        return cls(id=doc["_id"], hook=doc["hook"], event_id=doc["event_id"], event=doc["event"],
                   created=doc["created"], subject=doc.get("subject") or {}, body=doc.get("body"),
                   status=doc["status"], due=doc["due"], attempts=log, claim=doc.get("claim"))


def retry_delay(failures: int) -> timedelta:
    """The wait after the `failures`-th failed attempt: 30 s, 1 min, 2 min, ... 1 h."""
    return min(RETRY_MOST, RETRY_FIRST * (2 ** min(20, max(0, failures - 1))))


def next_attempt(*, created: datetime, failures: int, now: datetime, window: timedelta) -> datetime | None:
    """When to try again after `failures` failed attempts, or None once that would
    be more than `window` after the event (the delivery is given up)."""
    due = now + retry_delay(failures)
    return due if due <= created + window else None


def enqueue(*, event: str, hook_ids: list[ObjectId], subjects: list[dict],
            now: datetime | None = None) -> int:
    """Store one `event` about each of `subjects` for each of these webhooks, due
    now, in one round trip; how many deliveries. Each subject is its own event (its
    own id, shared by its deliveries to the several webhooks)."""
    if not hook_ids or not subjects:
        return 0
    now = now or datetime.now(UTC)
    docs: list[dict] = []
    for subject in subjects:
        event_id = f"evt_{uuid.uuid4().hex}"
        docs += [{"_id": ObjectId(), "hook": hook, "event_id": event_id, "event": event, "created": now,
                  "subject": subject, "body": None, "status": DUE, "due": now, "log": []}
                 for hook in hook_ids]
    return len(get_db().webhook_deliveries.insert_many(docs).inserted_ids)


def claim_next(*, skip_hooks: list[ObjectId] | None = None, now: datetime | None = None) -> Delivery | None:
    """Take the delivery due first (or one whose sender's lease ran out) for this
    sender alone, passing over those of `skip_hooks` (webhooks with their share in
    flight); None when nothing else is due."""
    now = now or datetime.now(UTC)
    takeable: dict = {"$or": [{"status": DUE, "due": {"$lte": now}},
                              {"status": SENDING, "lease": {"$lte": now}}]}
    if skip_hooks:
        takeable["hook"] = {"$nin": list(skip_hooks)}
    doc = get_db().webhook_deliveries.find_one_and_update(
        takeable, {"$set": {"status": SENDING, "claim": uuid.uuid4().hex, "lease": now + LEASE}},
        sort=[("due", ASCENDING)], return_document=ReturnDocument.AFTER,
    )
    return Delivery.from_doc(doc) if doc else None


def keep_body(delivery: Delivery, body: str) -> str:
    """Store the body of a delivery's first attempt, so that every retry sends the
    same bytes; the body stored (another sender's, had one written it already)."""
    deliveries = get_db().webhook_deliveries
    deliveries.update_one({"_id": delivery.id, "body": None}, {"$set": {"body": body}})
    doc = deliveries.find_one({"_id": delivery.id}, {"body": 1})
    return str(doc["body"]) if doc and doc.get("body") is not None else body


def record(delivery: Delivery, attempt: Attempt, *, window: timedelta, now: datetime | None = None) -> str:
    """Log `attempt` and settle the delivery: delivered, due again later, or failed
    for good; its status now. Nothing changes if another sender holds it now."""
    now = now or datetime.now(UTC)
    entry = {"at": attempt.at, "code": attempt.code, "error": attempt.error, "ms": attempt.ms}
    if attempt.ok:
        status, due = DELIVERED, None
    else:
        failures = 1 + sum(1 for a in delivery.attempts if not a.ok)
        due = next_attempt(created=delivery.created, failures=failures, now=now, window=window)
        status = DUE if due is not None else FAILED
    changes: dict = {"status": status}
    if due is not None:
        changes["due"] = due
    else:
        changes["expires"] = now + KEEP
    get_db().webhook_deliveries.update_one(
        {"_id": delivery.id, "claim": delivery.claim, "status": SENDING},
        {"$set": changes, "$push": {"log": entry}, "$unset": {"claim": "", "lease": ""}},
    )
    return status


def for_hook(*, hook_id: ObjectId, limit: int = 50) -> list[Delivery]:
    """A webhook's newest deliveries with their attempts, for the dashboard."""
    cursor = get_db().webhook_deliveries.find({"hook": hook_id}).sort("created", DESCENDING).limit(limit)
    return [Delivery.from_doc(doc) for doc in cursor]


def forget_hook(*, hook_id: ObjectId) -> int:
    """Remove every delivery of a webhook that is removed; how many."""
    return get_db().webhook_deliveries.delete_many({"hook": hook_id}).deleted_count


def count(*, status: str) -> int:
    return get_db().webhook_deliveries.count_documents({"status": status})
