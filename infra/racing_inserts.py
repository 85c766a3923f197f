"""Inserting into a collection with a unique secondary index when other writers may
insert the same key at the same moment (a form sent twice at once, a double-clicked
flag).

On MongoDB the later writer gets DuplicateKeyError. FerretDB v2 checks a unique
secondary index as a PostgreSQL exclusion constraint, and racing inserts of one key
can abort each other as a deadlock instead (a WriteError "deadlock detected", code
16908292, after PostgreSQL's deadlock_timeout, 1 s by default); the aborted insert
was rolled back whole. `insert_one_racing` inserts again after such an abort: by then
the writer it lost to has stored its document, so the retry answers DuplicateKeyError,
as MongoDB would have. Documents that writers race to create by design (rate slots,
votes, slug claims, bucket pages) are keyed by `_id` instead, where the later writer
waits and gets DuplicateKeyError directly (docs/dev-database.md).
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from typing import Any

from pymongo.collection import Collection
from pymongo.errors import OperationFailure
from pymongo.results import InsertOneResult

DEADLOCK = "deadlock detected"
# Each abort settles one pair of racers, so a handful of tries covers a burst.
ATTEMPTS = 5
# A short random pause before the next try, so that two aborted racers do not meet again.
PAUSE_SECONDS = 0.02


def aborted_as_deadlock(exc: OperationFailure) -> bool:
    """Whether the server aborted the write as a deadlock (nothing of it was stored):
    FerretDB's words, whatever the code (an insert's WriteError carries DocumentDB's
    own code, a findAndModify an InternalError)."""
    details = exc.details or {}
    return DEADLOCK in str(details.get("errmsg") or exc).lower()


def insert_one_racing(collection: Collection, document: Mapping[str, Any]) -> InsertOneResult:
    """`collection.insert_one(document)`, inserted again after a deadlock abort; any
    other failure (DuplicateKeyError included) is raised as it came."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return collection.insert_one(document)
        except OperationFailure as exc:
            if attempt == ATTEMPTS or not aborted_as_deadlock(exc):
                raise
        time.sleep(random.uniform(0, PAUSE_SECONDS * attempt))
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises
