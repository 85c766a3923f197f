"""Replies read before their parent, while an import waits for it: in memory up to a
limit, then every one of them in a scratch collection of the run's own (indexed by
parent and by id), so that a file of many orphans keeps the importer's memory flat
(comments/transfer/importing.py). A scratch collection left by a run that died is dropped by a
run a day later. Each reply has `id` and `parent` (its parent's id in the source);
the importer says how a reply becomes a document's fields and back (`dump`, `load`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from bson import ObjectId
from pymongo import ASCENDING
from pymongo.collection import Collection

from infra.mongo import get_db

SCRATCH_PREFIX = "comment_imports_waiting_"
SCRATCH_MAX_AGE = timedelta(days=1)
QUERY_BATCH = 500  # parent ids per query, scratch documents per scan


class WaitingReplies:
    """The replies read before their parent, by parent id: in memory up to `limit`,
    then all of them moved to a scratch collection of the run's own (indexed by parent
    and by id), which `drop` removes."""

    def __init__(self, *, limit: int, dump: Callable[[Any], dict], load: Callable[[dict], Any]):
        self.limit = limit
        self.dump, self.load = dump, load  # a reply to a scratch document's fields and back
        self.memory: dict[str, list[Any]] = {}
        self.held = 0
        self.scratch: Collection | None = None
        self.sequence = self.scan = 0  # the last scratch document written / looked at
        self.found = False  # an orphan root was found since the scan began

    def add(self, comment: Any) -> None:
        self.memory.setdefault(str(comment.parent), []).append(comment)
        self.held += 1
        if self.held >= self.limit:
            self._spill()

    def take(self, parent_ids: Iterable[str]) -> list[Any]:
        """The replies waiting for any of these parents, in the order they were read;
        they wait no longer."""
        parent_ids = list(dict.fromkeys(parent_ids))
        replies = [c for parent in parent_ids for c in self.memory.pop(parent, [])]
        self.held -= len(replies)
        if self.scratch is None:
            return replies
        for start in range(0, len(parent_ids), QUERY_BATCH):
            found = list(self.scratch.find({"parent": {"$in": parent_ids[start:start + QUERY_BATCH]}})
                         .sort("_id", ASCENDING))
            if found:
                self.scratch.delete_many({"_id": {"$in": [d["_id"] for d in found]}})
                replies += [self.load(d["comment"]) for d in found]
        return replies

    def orphan_roots(self) -> list[Any]:
        """Some waiting replies whose parent is not waiting itself (a parent that will
        never come), taken out; when every one left waits for another (a cycle), the
        first of them. Empty when nothing waits."""
        if self.scratch is None:
            waiting_ids = {c.id for replies in self.memory.values() for c in replies}
            roots = [parent for parent in self.memory if parent not in waiting_ids] or list(self.memory)[:1]
            return self.take(roots)
        self._spill()
        while True:
            after = self.scratch.find({"_id": {"$gt": self.scan}})
            chunk = list(after.sort("_id", ASCENDING).limit(QUERY_BATCH))
            if not chunk:
                first = self.scratch.find_one({}, sort=[("_id", ASCENDING)])
                if first is None:
                    return []
                self.scan, found, self.found = 0, self.found, False
                if found:
                    continue
                chunk = [first]  # a cycle: the first breaks it
                waiting: set[str] = set()
            else:
                self.scan = chunk[-1]["_id"]
                parents = list({d["parent"] for d in chunk})
                waiting = {d["id"] for d in self.scratch.find({"id": {"$in": parents}}, {"id": 1})}
            orphans = [d for d in chunk if d["parent"] not in waiting]
            if orphans:
                self.found = True
                self.scratch.delete_many({"_id": {"$in": [d["_id"] for d in orphans]}})
                return [self.load(d["comment"]) for d in orphans]

    def drop(self) -> None:
        """Forget every waiting reply (the scratch collection goes)."""
        self.memory.clear()
        self.held = 0
        if self.scratch is not None:
            self.scratch.drop()
            self.scratch = None

    def _spill(self) -> None:
        if not self.held:
            return
        if self.scratch is None:
            self.scratch = _new_scratch()
        documents = []
        for replies in self.memory.values():
            for comment in replies:
                self.sequence += 1
                documents.append({"_id": self.sequence, "parent": comment.parent, "id": comment.id,
                                  "comment": self.dump(comment)})
        self.scratch.insert_many(documents, ordered=False)
        self.memory.clear()
        self.held = 0


def _new_scratch() -> Collection:
    """A scratch collection for one run's waiting replies, indexed; those a run that
    died left behind (older than SCRATCH_MAX_AGE) are dropped first."""
    db = get_db()
    for name in db.list_collection_names():
        if name.startswith(SCRATCH_PREFIX) and ObjectId.is_valid(made := name.removeprefix(SCRATCH_PREFIX)):
            if ObjectId(made).generation_time < datetime.now(UTC) - SCRATCH_MAX_AGE:
                db.drop_collection(name)
    scratch = db[f"{SCRATCH_PREFIX}{ObjectId()}"]
    scratch.create_index("parent")
    scratch.create_index("id")
    return scratch
