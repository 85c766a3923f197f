"""Which comment store is in use, the one place that says it (`in_use()`): the
setting COMMENTS_STORE, until `comments_migrate` has moved the comments to another
store and recorded the switch in MongoDB. comments.stores.get_store(), the page cache,
sharding, the system checks and migrations all ask here.

The record is the one document of the collection `comment_store`:

    {_id: "in_use", store: "buckets", frozen: false, moving_to: null, changed: <datetime>}

While a migration copies, `moving_to` names its target, which takes the copies; once
a switch is recorded, a store that is neither in use nor a migration's target takes
no writes.

While `rebalance_shards` moves shards, `held` stops every comment write, whatever the
store (`hold`, `release`: comments/transfer/shard_moves.py).

While a migration makes its last pass, it sets `frozen`: the store in use takes no
writes (posting answers 503 and keeps the reader's text), so that nothing is written
to the old store after its last copy. Every process reads the record at most once per
COMMENTS_STORE_RECHECK_SECONDS, so pages cost no extra command; the migration waits
that long (plus a request's time budget) after freezing before it makes its last
copy, and every process has seen the switch that long after it.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

from django.utils.translation import gettext, gettext_noop
from pymongo.errors import PyMongoError

from comments import conf
from infra import mongo
from infra.mongo import Unavailable, get_db

RECORD = "in_use"
MOVING = gettext_noop("Comments are being moved to another store; try again in a minute.")
SHARDS_MOVING = gettext_noop("Comments are being moved between database servers; try again in a minute.")


class Moving(Unavailable):
    """The comment store is frozen for the last pass of a migration (a short outage
    for writers: 503, the reader's text kept)."""

    def __init__(self, message: str | None = None):
        super().__init__(message or gettext(MOVING))


_cache: dict = {}
_lock = threading.Lock()


def recorded() -> dict | None:
    """The switch record, read at most once per COMMENTS_STORE_RECHECK_SECONDS."""
    with _lock:
        if _cache and time.monotonic() - _cache["read"] < conf.get().store_recheck_seconds:
            return _cache["record"]
    record = get_db().comment_store.find_one({"_id": RECORD})
    with _lock:
        _cache.update(record=record, read=time.monotonic())
    return record


def forget() -> None:
    """Read the record afresh next time (tests, and the migration itself)."""
    with _lock:
        _cache.clear()


def in_use() -> str:
    """The name of the store the site reads and writes. While MongoDB is unreachable,
    the setting: nothing can be read or written then, but a cached page can be served."""
    try:
        record = recorded()
    except PyMongoError as exc:
        if not mongo.is_outage(exc):
            raise
        return conf.get().store
    return record["store"] if record else conf.get().store


def check_writable(name: str) -> None:
    """Moving if the store `name` takes no writes now: it is frozen for a migration's
    last pass, or a switch was recorded and `name` is neither the store in use nor a
    migration's target. (A writer that chose the store in use just before a switch is
    refused, not let into the old store after its last copy.)"""
    record = recorded()
    if not record:
        return
    if record.get("held"):
        raise Moving(gettext(SHARDS_MOVING))
    if record.get("frozen") and record.get("store") == name:
        raise Moving()
    if name not in (record.get("store"), record.get("moving_to")):
        raise Moving()


def hold() -> None:
    """Hold every comment write, whatever the store (`held`: shards of the collections
    are moving, and DocumentDB may lose a write that reaches a shard being copied:
    comments/transfer/shard_moves.py). A record made for the hold says so, for
    `release` to remove it."""
    get_db().comment_store.update_one(
        {"_id": RECORD},
        {"$set": {"held": True, "changed": datetime.now(UTC)},
         "$setOnInsert": {"store": in_use(), "frozen": False, "moving_to": None, "made_for_hold": True}},
        upsert=True,
    )
    forget()


def release() -> bool:
    """Take comment writes again after `hold`, the record as it was before it (none, if
    the hold made it); whether writes were held."""
    found = get_db().comment_store.find_one_and_update(
        {"_id": RECORD, "held": True}, {"$set": {"held": False, "changed": datetime.now(UTC)}})
    if found is not None and found.get("made_for_hold"):
        get_db().comment_store.delete_one({"_id": RECORD, "made_for_hold": True, "held": False})
    forget()
    return found is not None


def grace_seconds() -> float:
    """How long after a change every process has seen it and finished the writes it
    began before: the recheck interval plus one request's time budget."""
    return conf.get().store_recheck_seconds + mongo.request_budget()


def _write(*, store: str, frozen: bool, moving_to: str | None) -> None:
    get_db().comment_store.update_one(
        {"_id": RECORD},
        {"$set": {"store": store, "frozen": frozen, "moving_to": moving_to, "changed": datetime.now(UTC)},
         "$unset": {"made_for_hold": ""}},  # a migration's record now: `release` keeps it
        upsert=True,
    )
    forget()


def begin(*, source: str, target: str) -> bool:
    """A migration from `source` (in use) to `target` starts: `target` takes its copies.
    Whether a record was there before (`abandon` puts things back)."""
    had_record = recorded() is not None
    _write(store=source, frozen=False, moving_to=target)
    return had_record


def abandon(*, source: str, had_record: bool) -> None:
    """A migration stopped before its last pass: as before `begin`."""
    if had_record:
        thaw(source=source)
    else:
        get_db().comment_store.delete_one({"_id": RECORD})
        forget()


def freeze(*, source: str, target: str) -> None:
    """Stop writes to `source` (in use) while the comments move to `target`."""
    _write(store=source, frozen=True, moving_to=target)


def thaw(*, source: str) -> None:
    """Take writes on `source` again (a migration stopped before its switch)."""
    _write(store=source, frozen=False, moving_to=None)


def switch(*, target: str) -> None:
    """Make `target` the store in use, taking writes."""
    _write(store=target, frozen=False, moving_to=None)
