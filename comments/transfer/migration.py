"""Moving every discussion's comments from one store to another (`comments_migrate`).

Discussion by discussion, the comments are copied as flat documents (the stores'
`iter_documents` and `insert_documents`, the same as backups), then verified: the
target must hold exactly the comments copied (every field) and list them in every
view's order, for readers and for editors. That order is worked out in Python from
the comments themselves (`containers.in_python`, which the stores' listings are tested
against), not read from the source store again. A verified discussion is recorded in
the collection `comment_migrations` with a fingerprint of its comments, so a run that
was interrupted starts again where it stopped; a discussion copied only in part is
cleared and copied again. WORKERS discussions are copied and verified at once, each in
a thread (`in_threads`; the last pass compares them so too); a copy is recorded in the
caller's thread, so a run stopped there has recorded none it did not report.

The site keeps running on the source store meanwhile, so a busy discussion changes
while it is copied; comments written to the source since its copy are left to the
last pass. The last pass freezes writes (comments/stores/store_switch.py), waits until
every process has seen that, compares every discussion's comments in both stores
again, exactly, and copies again (and verifies) any that changed since its copy, then
records the switch. Nothing is switched until every discussion is verified; the
source store's data is left where it was. While writes are frozen nobody can post, so
the last pass lists no discussion that still holds exactly the comments its views were
verified on (the fingerprint says so): about one read of each discussion from each store.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import time
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

from bson import ObjectId

from comments.records import ORDERS, READERS, Comment, Viewer
from comments.stores import CommentStore, Query, get_store, store_switch
from comments.stores.containers import in_python
from comments.transfer.import_writer import Writer
from infra.mongo import get_db

BATCH = 500
# Discussions copied and checked at once, each in a thread (`comments_migrate --workers`):
# a copy waits on the database about half its time (docs/benchmarks.md).
WORKERS = 4
EDITORS = Viewer(editor=True)
VIEWERS = (("readers", READERS), ("editors", EDITORS))
SAME_STORE = "The comments are already in the {name!r} store."
MISMATCH = "Discussion {discussion_id}: {what} differ after copying; nothing was switched."


class MigrationError(Exception):
    """The migration cannot go on; the message says why. Nothing was switched."""


@dataclass
class Report:
    source: str
    target: str
    discussions: int = 0
    copied: int = 0  # discussions copied in this run
    resumed: int = 0  # discussions a previous run had verified already
    recopied: int = 0  # discussions changed during the migration, copied again in the last pass
    comments: int = 0
    paused_seconds: float = 0.0  # how long comment writes were frozen for the last pass


@dataclass(frozen=True)
class Copied:
    """A discussion copied and verified: its comments, and their fingerprint."""

    count: int
    views_checked_on: str


Progress = Callable[[int], None]
T = TypeVar("T")


def _key(source: str, target: str, discussion_id: ObjectId) -> str:
    return f"{source}:{target}:{discussion_id}"


def snapshot(store: CommentStore, discussion_id: ObjectId) -> list[Comment]:
    """Every comment of one discussion in a store, in posting order, as records (so
    that stores which leave out empty fields compare equal)."""
    return [Comment.from_doc(doc) for doc in store.iter_documents(discussion_id=discussion_id)]


def fingerprint(comments: list[Comment]) -> str:
    """A digest of these comments, every field of every one, in order: what a verified
    copy's views were checked on (kept in its record for the last pass)."""
    return hashlib.sha256(repr(comments).encode()).hexdigest()


def listings(store: CommentStore, discussion_id: ObjectId) -> dict[str, list[str]]:
    """The slugs of every view of one discussion as a store lists them, for readers
    and for editors: each view whole (`list_slugs`: the listing's query, one in the
    documents store, reading the slugs alone)."""
    return {f"{order} view for {who}": store.list_slugs(discussion_id=discussion_id, order=order,
                                                        viewer=viewer)
            for order in ORDERS for who, viewer in VIEWERS}


def views(comments: list[Comment], discussion_id: ObjectId) -> dict[str, list[str]]:
    """The slugs of every view of these comments, for readers and for editors, as every
    store must list them: worked out in Python (`containers.in_python`, what the
    embedded store lists and what the documents store's queries are tested against)."""
    return {
        f"{order} view for {who}": [c.slug for c in in_python(comments, Query(
            discussion_id=discussion_id, viewer=viewer, order=tuple(ORDERS[order])))]
        for order in ORDERS for who, viewer in VIEWERS
    }


def _compared(wanted: list[Comment], got: list[Comment]) -> list[str]:
    if len(wanted) != len(got):
        return [f"counts ({len(wanted)} and {len(got)})"]
    return ["comments"] if wanted != got else []


def verify(comments: list[Comment], target: CommentStore, discussion_id: ObjectId) -> list[str]:
    """What differs between `comments` (one discussion's, as read from the source) and
    the target's copy of them (nothing: []): the target must hold exactly them, every
    field, and list them in every view's order."""
    found = _compared(comments, snapshot(target, discussion_id))
    if found:
        return found
    wanted, got = views(comments, discussion_id), listings(target, discussion_id)
    return [view for view in wanted if wanted[view] != got[view]]


def differences(source: CommentStore, target: CommentStore, discussion_id: ObjectId,
                views_checked_on: str | None = None) -> list[str]:
    """What differs between the two stores' copies of one discussion (nothing: []).
    Exact: for a discussion nobody writes to (the frozen last pass). `views_checked_on`:
    the fingerprint of the comments whose views were verified already; when both stores
    hold exactly those, their views are not read again."""
    held = snapshot(source, discussion_id)
    if views_checked_on is not None and fingerprint(held) == views_checked_on:
        return _compared(held, snapshot(target, discussion_id))
    return verify(held, target, discussion_id)


def copy_discussion(source: CommentStore, target: CommentStore, discussion_id: ObjectId) -> list[dict]:
    """Copy one discussion, replacing whatever part of it the target holds; returns
    the comment documents that went in. Each batch is inserted (one ordered
    `insert_many` in the documents store) by the writer's thread while the next is
    read (comments/transfer/import_writer.py)."""
    target.drop_discussion(discussion_id=discussion_id)
    copied, batch = [], []
    writer: Writer[list[dict], int] = Writer(lambda documents: target.insert_documents(documents=documents))
    try:
        for doc in source.iter_documents(discussion_id=discussion_id, batch_size=BATCH):
            batch.append(doc)
            if len(batch) == BATCH:
                writer.submit(batch)
                copied += batch
                batch = []
        writer.submit(batch)
        writer.wait()
    finally:
        writer.close()
    return copied + batch


def _of_this_move(source: str, target: str) -> dict:
    """The filter of the records of this move's verified copies (their keys' prefix)."""
    return {"_id": {"$regex": "^" + re.escape(f"{source}:{target}:")}}


def _verified(source: str, target: str) -> dict[str, dict]:
    """The records of this move's verified copies by key (`count`: its comments;
    `views_checked_on`: the fingerprint of the comments its views were verified on),
    in one query."""
    return {doc["_id"]: doc for doc in get_db().comment_migrations.find(_of_this_move(source, target))}


def _mark_verified(key: str, count: int, views_checked_on: str) -> None:
    get_db().comment_migrations.update_one(
        {"_id": key},
        {"$set": {"count": count, "verified": datetime.now(UTC), "views_checked_on": views_checked_on}},
        upsert=True,
    )


def _copied(source: CommentStore, target: CommentStore, discussion_id: ObjectId) -> Copied:
    """Copy one discussion and verify the copy against what was copied (readers may
    have written to the source since: the frozen last pass finds that and copies the
    discussion again); MigrationError if it does not verify."""
    copied = [Comment.from_doc(doc) for doc in copy_discussion(source, target, discussion_id)]
    found = verify(copied, target, discussion_id)
    if found:
        raise MigrationError(MISMATCH.format(discussion_id=discussion_id, what=", ".join(found)))
    return Copied(count=len(copied), views_checked_on=fingerprint(copied))


def _record(key: str, copied: Copied, report: Report) -> None:
    report.comments += copied.count
    _mark_verified(key, copied.count, copied.views_checked_on)


def in_threads(work: Callable[[ObjectId], T], ids: Iterable[ObjectId],
               workers: int) -> Generator[tuple[ObjectId, T], None, None]:
    """(id, work(id)) for each of `ids`, as each is done, `workers` at a time, each in a
    thread of its own; an error of `work` is raised here. Closed early (an error, the
    caller stopped), it starts no more and waits for those under way. Not
    `Executor.map`, which makes a future for every discussion before the first is done."""
    waiting = iter(ids)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="migrate") as pool:
        running = {pool.submit(work, i): i for i in itertools.islice(waiting, workers)}
        try:
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    yield running.pop(future), future.result()
                    running.update({pool.submit(work, i): i for i in itertools.islice(waiting, 1)})
        finally:
            for future in running:
                future.cancel()


def migrate(
    *, target: str, source: str | None = None, progress: Progress = lambda n: None,
    sleep: Callable[[float], None] = time.sleep, discussions: Iterable[ObjectId] | None = None,
    last_pass: Callable[[], None] = lambda: None, workers: int = WORKERS,
) -> Report:
    """Copy and verify every discussion from `source` (the store in use) to `target`,
    then switch the site to `target`. Resumable; MigrationError if a copy does not
    verify (the site stays on `source`). `progress(n)` is told of each discussion done,
    `last_pass()` when writes freeze for the last pass. `workers`: how many discussions
    are copied and checked at once, each in a thread; a copy is recorded as verified
    in the caller's thread, before `progress` hears of it."""
    source = source or store_switch.in_use()
    if source == target:
        raise MigrationError(SAME_STORE.format(name=target))
    old, new = get_store(source), get_store(target)
    new.ensure_indexes(get_db())
    ids = list(discussions) if discussions is not None else old.discussion_ids()
    report = Report(source=source, target=target, discussions=len(ids))
    had_record = store_switch.begin(source=source, target=target)
    try:
        todo, verified = [], _verified(source, target)
        for discussion_id in ids:
            earlier = verified.get(_key(source, target, discussion_id))
            if earlier is None:
                todo.append(discussion_id)
                continue
            report.resumed += 1
            report.comments += earlier["count"]
            progress(1)
        with closing(in_threads(lambda i: _copied(old, new, i), todo, workers)) as copies:
            for discussion_id, copied in copies:
                _record(_key(source, target, discussion_id), copied, report)
                report.copied += 1
                progress(1)
    except BaseException:
        store_switch.abandon(source=source, had_record=had_record)
        raise
    last_pass()
    _last_pass(old, new, report, sleep, workers)
    return report


def _last_pass(old: CommentStore, new: CommentStore, report: Report,
               sleep: Callable[[float], object], workers: int) -> None:
    """Freeze writes, wait until every process has seen it, recopy what changed since
    its copy (and any discussion that got its first comment meanwhile), switch. The
    discussions are compared (and copied again) `workers` at a time."""
    store_switch.freeze(source=report.source, target=report.target)
    began = time.monotonic()
    verified = _verified(report.source, report.target)

    def again(discussion_id: ObjectId) -> tuple[int, Copied] | None:
        """(the comments its earlier copy counted, the new copy) if it changed, else None."""
        earlier = verified.get(_key(report.source, report.target, discussion_id), {})
        if not differences(old, new, discussion_id, earlier.get("views_checked_on")):
            return None
        return earlier.get("count", 0), _copied(old, new, discussion_id)

    try:
        sleep(store_switch.grace_seconds())
        with closing(in_threads(again, old.discussion_ids(), workers)) as compared:
            for discussion_id, changed in compared:
                if changed is not None:
                    report.comments -= changed[0]  # its copy is replaced, not added to
                    _record(_key(report.source, report.target, discussion_id), changed[1], report)
                    report.recopied += 1
    except BaseException:
        store_switch.thaw(source=report.source)
        raise
    store_switch.switch(target=report.target)
    report.paused_seconds = time.monotonic() - began
    get_db().comment_migrations.delete_many(_of_this_move(report.source, report.target))
