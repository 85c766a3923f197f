"""One writer at a time per comment container, on servers that need it.

The embedded and buckets stores change comments inside bigger documents (a
discussion, a page of comments) with `$push` and `$set`. MongoDB applies each update
of one document atomically, so two readers replying at once both land, and there
this module does nothing. FerretDB v1 (the dev and test database) applies an update
by reading the document, changing it and writing the whole of it back without a
lock, so one of two concurrent updates can be lost. On such a server a writer first
takes a short lease on the container: a document of the collection `comment_locks`
whose `_id` names the container. The `_id` index, which FerretDB does enforce, lets
one writer in; the others wait, and a lease left by a dead process expires.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

from pymongo.errors import DuplicateKeyError, ExecutionTimeout

from cms.mongo import get_db, updates_are_atomic

LEASE = timedelta(seconds=10)
WAIT_SECONDS = 5.0
BUSY = "Another writer held this discussion for too long; try again."


class Busy(ExecutionTimeout):
    """The lease could not be had in time (a timeout: the site answers 503, and the
    reader's text is kept)."""

    def __init__(self, message: str = BUSY):
        super().__init__(message)


@contextmanager
def holding(container: str) -> Iterator[None]:
    """Run the block as the only writer of `container` (a name such as
    "discussions:<id>"), when the server does not make single updates atomic."""
    if updates_are_atomic():
        yield
        return
    token = _acquire(container)
    try:
        yield
    finally:
        get_db().comment_locks.delete_one({"_id": container, "token": token})


def _acquire(container: str) -> str:
    locks = get_db().comment_locks
    token = secrets.token_hex(8)
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        now = datetime.now(timezone.utc)
        try:
            locks.insert_one({"_id": container, "token": token, "expires": now + LEASE})
            return token
        except DuplicateKeyError:
            held = locks.find_one({"_id": container})
            if held is not None and held["expires"] <= now:
                locks.delete_one({"_id": container, "token": held["token"]})
                continue
        if time.monotonic() > deadline:
            raise Busy()
        time.sleep(random.uniform(0.002, 0.01))
