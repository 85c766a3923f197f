"""The `webhooks` collection: the webhooks editors made in the dashboard. The only
module that touches it.

    {_id, url, events: ["comment.posted", ...], secret, active, created, created_by}

The secret signs every delivery, so it is kept as it is (not a digest, as API tokens
are); the dashboard shows it once, when the webhook is made. Finding the webhooks
that hear an event is one query on the `events` index, made in the request that
stored the event.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from bson import ObjectId
from pymongo import ASCENDING, IndexModel
from pymongo.database import Database

from infra.ids import parse_id
from infra.mongo import get_db
from webhooks.signing import new_secret

# The events a webhook may hear, in the order the dashboard lists them; all but
# comment.voted are on for a new webhook (votes come in bursts).
EVENTS = ("comment.posted", "comment.approved", "comment.held", "comment.flagged", "comment.deleted",
          "comment.voted")
DEFAULT_EVENTS = EVENTS[:-1]
# What the dashboard's "send a test event" button sends; no webhook subscribes to it.
TEST_EVENT = "webhook.test"
INDEXES = [IndexModel([("events", ASCENDING), ("active", ASCENDING)], name="events_active")]


def ensure_indexes(db: Database) -> list[str]:
    return db.webhooks.create_indexes(INDEXES)


@dataclass(frozen=True)
class Hook:
    id: ObjectId
    url: str
    events: tuple[str, ...]
    active: bool
    created: datetime
    created_by: str
    secret: str = field(repr=False)

    @classmethod
    def from_doc(cls, doc: dict) -> Hook:
        return cls(id=doc["_id"], url=doc["url"], events=tuple(doc.get("events") or ()),
                   active=bool(doc.get("active")), created=doc["created"],
                   created_by=doc.get("created_by", ""),
                   secret=doc["secret"])


def _events(events: list[str] | tuple[str, ...]) -> list[str]:
    unknown = set(events) - set(EVENTS)
    if unknown:
        raise ValueError(f"unknown events: {sorted(unknown)}")
    return [event for event in EVENTS if event in events]


def create_hook(*, url: str, events: list[str] | tuple[str, ...], created_by: str, active: bool = True,
                now: datetime | None = None) -> Hook:
    """A new webhook (on unless `active` is False) with a new secret (Hook.secret: show it once)."""
    doc = {"_id": ObjectId(), "url": url, "events": _events(events), "secret": new_secret(),
           "active": bool(active),
           "created": now or datetime.now(UTC), "created_by": str(created_by)}
    get_db().webhooks.insert_one(doc)
    return Hook.from_doc(doc)


def update_hook(*, hook_id: ObjectId, url: str, events: list[str] | tuple[str, ...], active: bool) -> bool:
    """Change a webhook's URL, events and whether it is on; False if it is gone."""
    result = get_db().webhooks.update_one(
        {"_id": hook_id}, {"$set": {"url": url, "events": _events(events), "active": bool(active)}}
    )
    return result.matched_count == 1


def delete_hook(*, hook_id: ObjectId) -> bool:
    """Remove a webhook (its deliveries are the caller's to remove); False if gone."""
    return get_db().webhooks.delete_one({"_id": hook_id}).deleted_count == 1


def get_hook(hook_id: object) -> Hook | None:
    """The webhook `hook_id` spells, or None (also for anything that is not an id)."""
    oid = parse_id(hook_id)
    doc = get_db().webhooks.find_one({"_id": oid}) if oid is not None else None
    return Hook.from_doc(doc) if doc else None


def all_hooks() -> list[Hook]:
    """Every webhook, oldest first, for the dashboard."""
    return [Hook.from_doc(doc) for doc in get_db().webhooks.find({}).sort("_id", ASCENDING)]


def listening(event: str) -> list[Hook]:
    """The active webhooks that hear `event`."""
    return [Hook.from_doc(doc) for doc in get_db().webhooks.find({"events": event, "active": True})]
