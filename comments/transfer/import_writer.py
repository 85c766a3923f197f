"""Storing an import's batches while the next one is read: one thread of its own writes
each batch (for comments/transfer/importing.py, one ordered `insert_many` through the
store's `insert_documents`, then its ledger entries: `store_batch`; for a JSON Lines
import, comments/transfer/backup.py, the insert alone), while the importer parses,
sanitises and renders the next; the database's work and Python's overlap, on two cores.

At most one batch is in flight: handing over the next waits for the one before, whose
outcome (how many went in, which were not stored) the engine then applies, in its own
thread, so the report is only ever changed there. An error in the writer (the server's,
or a run stopped) comes out of the next `submit` or of `wait`, as it would have come
out of the write itself.

Each batch is stored before it is recorded: a run killed at any point leaves at most
comments stored but not yet in the ledger, which the next run sends again and the store
refuses as duplicates (their `_id` and slug are the same on every run).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Generic, TypeVar

from bson import ObjectId

from comments.stores import get_store
from comments.transfer.import_ledger import Placed, record
from comments.transfer.import_records import SourceComment

# (the source comment, its flat document, where it went)
Placement = tuple[SourceComment, dict, Placed]
Batch = TypeVar("Batch")
Outcome = TypeVar("Outcome")


@dataclass(frozen=True)
class Stored:
    """What became of a batch: how many went in, and which were not stored at all
    (their slug is another comment's)."""

    placed: list[Placement]
    inserted: int
    missing: frozenset[ObjectId]


def store_batch(source: str, placed: list[Placement]) -> Stored:
    """Store the documents, then record in the ledger those the store holds. One
    insert for the batch; only when some did not go in (a run stopped before
    recording them stored them, or their slug is taken) are they looked for."""
    store = get_store()
    ids = [document["_id"] for _, document, _ in placed]
    inserted = store.insert_documents(documents=[document for _, document, _ in placed])
    missing = frozenset(set(ids) - {c.id for c in store.find_by_ids(ids=ids)}) if inserted < len(placed) \
        else frozenset()
    record(source=source, placed=[(comment.id, where) for comment, document, where in placed
                                  if document["_id"] not in missing])
    return Stored(placed=placed, inserted=inserted, missing=missing)


class Writer(Generic[Batch, Outcome]):
    """Stores batches one at a time with `write`, in a thread of its own (module
    docstring)."""

    def __init__(self, write: Callable[[Batch], Outcome]):
        self.write = write
        self._pool: ThreadPoolExecutor | None = None
        self._in_flight: Future[Outcome] | None = None

    def submit(self, batch: Batch) -> Outcome | None:
        """Start storing `batch`; the outcome of the batch before it (None: none),
        once it is stored."""
        done = self.wait()
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="import-writer")
        self._in_flight = self._pool.submit(self.write, batch)
        return done

    def wait(self) -> Outcome | None:
        """The outcome of the batch in flight (None: none), once it is stored."""
        in_flight, self._in_flight = self._in_flight, None
        return in_flight.result() if in_flight is not None else None

    def close(self) -> None:
        """Let the batch in flight finish (its outcome is dropped), then end the thread."""
        try:
            if self._in_flight is not None:
                self._in_flight.exception()
        finally:
            self._in_flight = None
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None
