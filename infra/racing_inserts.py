"""Inserting into a collection with a unique secondary index when other writers may
insert the same key at the same moment (a form sent twice at once, a double-clicked
flag).

On MongoDB the later writer gets DuplicateKeyError. FerretDB v2 checks a unique
secondary index as a PostgreSQL exclusion constraint, and racing inserts of one key
can abort each other as a deadlock instead (a WriteError "deadlock detected", code
16908292, after PostgreSQL's deadlock_timeout, 1 s by default); the aborted insert was
rolled back whole. `insert_one_racing` then looks for the key: stored by the writer it
lost to, it raises DuplicateKeyError, as MongoDB would have; not stored yet (that
writer still waits on another racer), it waits a little longer each time and inserts
again. Racers that went again at once would only deadlock again. Documents that
writers race to create by design (rate slots, votes, slug claims, bucket pages) are
keyed by `_id` instead, where the later writer waits and gets DuplicateKeyError
directly (docs/dev-database.md).
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
# Tries in all; the pauses between them grow from FIRST_PAUSE to LONGEST_PAUSE (about
# 5 s of pauses in all), past the server's deadlock checks of the racers still waiting.
ATTEMPTS = 9
FIRST_PAUSE_SECONDS = 0.05
LONGEST_PAUSE_SECONDS = 1.0
TAKEN = "E11000 duplicate key: {key} was stored by a concurrent writer (found after a deadlock abort)"


def aborted_as_deadlock(exc: OperationFailure) -> bool:
    """Whether the server aborted the write as a deadlock (nothing of it was stored):
    FerretDB's words, whatever the code (an insert's WriteError carries DocumentDB's
    own code, a findAndModify an InternalError)."""
    details = exc.details or {}
    return DEADLOCK in str(details.get("errmsg") or exc).lower()


def pause(attempt: int) -> float:
    """How long to wait after the `attempt`-th abort (from 1): doubling, with jitter."""
    longest = min(LONGEST_PAUSE_SECONDS, FIRST_PAUSE_SECONDS * 2 ** (attempt - 1))
    return random.uniform(longest / 2, longest)


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
            if collection.find_one(dict(key), {"_id": 1}) is not None:
                raise DuplicateKeyError(TAKEN.format(key=dict(key)), DUPLICATE_KEY) from exc
            if attempt == ATTEMPTS:
                raise
        time.sleep(pause(attempt))
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
