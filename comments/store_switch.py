"""Which comment store is in use: the setting COMMENTS_STORE, until `comments_migrate`
has moved the comments to another store and recorded the switch in MongoDB.

The record is the one document of the collection `comment_store`:

    {_id: "in_use", store: "buckets", frozen: false, moving_to: null, changed: <datetime>}

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
from datetime import datetime, timezone

from django.conf import settings
from django.utils.translation import gettext, gettext_noop

from infra.mongo import Unavailable, get_db

RECORD = "in_use"
MOVING = gettext_noop("Comments are being moved to another store; try again in a minute.")


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
        if _cache and time.monotonic() - _cache["read"] < settings.COMMENTS_STORE_RECHECK_SECONDS:
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
    """The name of the store the site reads and writes."""
    record = recorded()
    return record["store"] if record else settings.COMMENTS_STORE


def for_writing() -> str:
    """The store to write to; Moving while a migration's last pass runs."""
    record = recorded()
    if record and record.get("frozen"):
        raise Moving()
    return in_use()


def grace_seconds() -> float:
    """How long after a change every process has seen it and finished the writes it
    began before: the recheck interval plus one request's time budget."""
    return settings.COMMENTS_STORE_RECHECK_SECONDS + settings.MONGODB_REQUEST_BUDGET_MS / 1000


def _write(*, store: str, frozen: bool, moving_to: str | None) -> None:
    get_db().comment_store.update_one(
        {"_id": RECORD},
        {"$set": {"store": store, "frozen": frozen, "moving_to": moving_to, "changed": datetime.now(timezone.utc)}},
        upsert=True,
    )
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
