"""Inserting into a collection with a unique secondary index when other writers may
insert the same key at the same moment (a form sent twice at once, a double-clicked
flag).

On MongoDB the later writer gets DuplicateKeyError. FerretDB v2 checks a unique
secondary index as a PostgreSQL exclusion constraint, and racing inserts of one key
can abort each other as a deadlock instead (a WriteError "deadlock detected", code
16908292, after PostgreSQL's deadlock_timeout, 1 s by default); the aborted insert was
rolled back whole. `insert_one_racing` then does not insert again at once: the writers
still in flight settle among themselves (the server aborts one writer of each cycle
it finds, a deadlock_timeout after the cycle formed) and the last of them stores the
key, so the aborted writer looks for the key for up to SETTLE_SECONDS. Stored, it
raises DuplicateKeyError, as MongoDB would have; still free after that (the writer
it lost to failed), it inserts again. Racers that went again while others were still
in flight only met them again: in CI runs eight of them, inserting again after short
pauses, used up nine tries with no winner. Documents that writers race to create by
design (rate slots, votes, slug claims, bucket pages) are keyed by `_id` instead, where
the later writer waits and gets DuplicateKeyError directly (docs/dev-database.md).
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from pymongo.collection import Collection
from pymongo.errors import BulkWriteError, DuplicateKeyError, OperationFailure
from pymongo.results import InsertOneResult

DEADLOCK = "deadlock detected"
DUPLICATE_KEY = 11000
# Tries in all. After each abort the writer looks for the key for a window of between
# half and all of SETTLE_SECONDS (racers aborted together do not insert again together),
# at intervals doubling from FIRST_LOOK_SECONDS to LONGEST_LOOK_SECONDS: long enough
# for eight racers to settle one deadlock_timeout (1 s) after another.
ATTEMPTS = 3
SETTLE_SECONDS = 10.0
FIRST_LOOK_SECONDS = 0.02
LONGEST_LOOK_SECONDS = 0.5
TAKEN = "E11000 duplicate key: {key} was stored by a concurrent writer (found after a deadlock abort)"


def aborted_as_deadlock(exc: OperationFailure) -> bool:
    """Whether the server aborted the write as a deadlock (nothing of it was stored):
    FerretDB's words, whatever the code (an insert's WriteError carries DocumentDB's
    own code, a findAndModify an InternalError)."""
    details = exc.details or {}
    return DEADLOCK in str(details.get("errmsg") or exc).lower()


def looks(window: float) -> list[float]:
    """The pauses before each look for the key in a window of `window` seconds: doubling
    from FIRST_LOOK_SECONDS, none longer than LONGEST_LOOK_SECONDS, summing to the window."""
    pauses: list[float] = []
    while (left := window - sum(pauses)) > 1e-9:
        pauses.append(min(left, LONGEST_LOOK_SECONDS, FIRST_LOOK_SECONDS * 2 ** len(pauses)))
    return pauses


def stored_meanwhile(collection: Collection, key: Mapping[str, Any]) -> bool:
    """Whether a writer still in flight stores `key` within the settling window."""
    for seconds in [0.0, *looks(random.uniform(SETTLE_SECONDS / 2, SETTLE_SECONDS))]:
        time.sleep(seconds)
        if collection.find_one(dict(key), {"_id": 1}) is not None:
            return True
    return False


def insert_one_racing(collection: Collection, document: Mapping[str, Any], *,
                      key: Mapping[str, Any]) -> InsertOneResult:
    """`collection.insert_one(document)`, where `key` selects what the unique index
    guards (say `{discussion_id, slug}`). DuplicateKeyError when that is taken, also
    when a deadlock abort hid it (the last abort too); any other failure, or an abort
    of the last attempt with the key still free, is raised as it came."""
    attempt = 1
    while True:
        try:
            return collection.insert_one(document)
        except OperationFailure as exc:
            if not aborted_as_deadlock(exc):
                raise
            if stored_meanwhile(collection, key):
                raise DuplicateKeyError(TAKEN.format(key=dict(key)), DUPLICATE_KEY) from exc
            if attempt == ATTEMPTS:
                raise
        attempt += 1


def insert_many_keeping(collection: Collection, documents: Sequence[Mapping[str, Any]]) -> int:
    """`collection.insert_many(documents, ordered=False)`, keeping a document whose key
    is there already as it is (its duplicate-key refusal is not an error); how many went
    in. Any other refusal is raised."""
    if not documents:
        return 0
    try:
        return len(collection.insert_many(documents, ordered=False).inserted_ids)
    except BulkWriteError as exc:
        if any(error.get("code") != DUPLICATE_KEY for error in exc.details.get("writeErrors", [])):
            raise
        return int(exc.details.get("nInserted", 0))
