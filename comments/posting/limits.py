"""The `comment_rate_slots` collection: the counts behind the posting rate limits
(comments/posting/antispam.py). The only module that touches it.

    {_id: "<key>/<window>/<slot>", key, window, slot, expires}

A counted action takes the next free slot, 1 to the limit, of its key (say
`post:ip:192.0.2.1`) in the current fixed window. The slot is the document's `_id`,
so exactly one writer has each slot, so no more than `limit` actions are admitted per
key and window however many workers or machines race, and the counts outlive any
process. No transaction and no `$inc` upsert is needed (FerretDB v2 has no
transactions and can lose concurrent upserted increments), and no compound unique
index (FerretDB v2 aborts racing inserts into one as deadlocks; `_id` answers
DuplicateKeyError, as on MongoDB).

Why it stays exact: a writer reads the highest slot taken (c), then inserts c+1,
c+2, ... until one is free. Slots are only ever added, each one directly above slots
already taken, so the slots of a window are always 1..n with no gap: a writer that
finds every slot up to the limit taken is refused only when `limit` actions really
were admitted. Documents go when their window is over (TTL on `expires`); queries
name the window, so one not yet deleted never counts.
"""

from __future__ import annotations

from datetime import UTC, datetime

from pymongo import ASCENDING, DESCENDING, IndexModel
from pymongo.collection import Collection
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError

from infra.mongo import get_db

KEY_WINDOW_SLOT = "key_window_slot"
INDEXES = [
    IndexModel([("key", ASCENDING), ("window", ASCENDING), ("slot", DESCENDING)], name=KEY_WINDOW_SLOT),
    IndexModel([("expires", ASCENDING)], expireAfterSeconds=0, name="expires"),
]


def ensure_indexes(db: Database) -> list[str]:
    return db.comment_rate_slots.create_indexes(INDEXES)


def take_slot(*, key: str, window: int, limit: int, expires: float) -> bool:
    """Count one action of `key` in fixed window number `window`: True if it is among
    the first `limit` of that window, False (nothing stored) once `limit` were.
    `expires` (a Unix time after the window's end) is when the count may be deleted."""
    slots = get_db().comment_rate_slots
    slot = _highest_slot(slots, key=str(key), window=int(window)) + 1
    until = datetime.fromtimestamp(expires, tz=UTC)
    while slot <= limit:
        try:
            slots.insert_one({"_id": f"{key}/{window}/{slot}", "key": str(key), "window": int(window),
                              "slot": slot, "expires": until})
        except DuplicateKeyError:  # another worker took it a moment ago
            slot += 1
        else:
            return True
    return False


def _highest_slot(slots: Collection, *, key: str, window: int) -> int:
    """The highest slot taken in this window (0 for none), read from the index."""
    doc = slots.find_one({"key": key, "window": window}, {"slot": 1, "_id": 0},
                         sort=[("slot", DESCENDING)], hint=KEY_WINDOW_SLOT)
    return doc["slot"] if doc else 0
