"""Moving every discussion's comments from one store to another (`comments_migrate`).

Discussion by discussion, the comments are copied as flat documents (the stores'
`iter_documents` and `insert_documents`, the same as backups), then verified: the
target must hold exactly the comments copied (every field) and list them in every
view's order, for readers and for editors. That order is worked out in Python from
the comments themselves (`containers.in_python`, which the stores' listings are tested
against), not read from the source store again. A verified discussion is recorded in
the collection `comment_migrations` with a fingerprint of its comments, so a run that
was interrupted starts again where it stopped; a discussion copied only in part is
cleared and copied again.

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
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from bson import ObjectId

from comments.records import ORDERS, READERS, Comment, Viewer
from comments.stores import CommentStore, Query, get_store, store_switch
from comments.stores.containers import in_python
from comments.transfer.import_writer import Writer
from infra.mongo import get_db

BATCH = 500
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
    mismatches: list[str] = field(default_factory=list)


Progress = Callable[[int], None]


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
    and for editors: each view whole (one query in the documents store, not the
    windows of a reader's page)."""
    listed = {}
    for order in ORDERS:
        for who, viewer in VIEWERS:
            page = store.find_page(discussion_id=discussion_id, order=order, limit=None, viewer=viewer)
            listed[f"{order} view for {who}"] = [c.slug for c in page]
    return listed


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


def _verified(key: str) -> dict | None:
    """The record of this key's verified copy (`count`: its comments; `views_checked_on`:
    the fingerprint of the comments its views were verified on, if any), if there is one."""
    return get_db().comment_migrations.find_one({"_id": key})


def _mark_verified(key: str, count: int, views_checked_on: str) -> None:
    get_db().comment_migrations.update_one(
        {"_id": key},
        {"$set": {"count": count, "verified": datetime.now(UTC), "views_checked_on": views_checked_on}},
        upsert=True,
    )


def _copy_and_verify(source: CommentStore, target: CommentStore, discussion_id: ObjectId, report: Report) -> None:
    """Copy one discussion and verify the copy against what was copied (readers may
    have written to the source since: the frozen last pass finds that and copies the
    discussion again)."""
    copied = [Comment.from_doc(doc) for doc in copy_discussion(source, target, discussion_id)]
    found = verify(copied, target, discussion_id)
    if found:
        message = MISMATCH.format(discussion_id=discussion_id, what=", ".join(found))
        report.mismatches.append(message)
        raise MigrationError(message)
    report.comments += len(copied)
    _mark_verified(_key(report.source, report.target, discussion_id), len(copied), fingerprint(copied))


def migrate(
    *, target: str, source: str | None = None, progress: Progress = lambda n: None,
    sleep: Callable[[float], None] = time.sleep, discussions: Iterable[ObjectId] | None = None,
    last_pass: Callable[[], None] = lambda: None,
) -> Report:
    """Copy and verify every discussion from `source` (the store in use) to `target`,
    then switch the site to `target`. Resumable; MigrationError if a copy does not
    verify (the site stays on `source`). `progress(n)` is told of each discussion done,
    `last_pass()` when writes freeze for the last pass."""
    source = source or store_switch.in_use()
    if source == target:
        raise MigrationError(SAME_STORE.format(name=target))
    old, new = get_store(source), get_store(target)
    new.ensure_indexes(get_db())
    ids = list(discussions) if discussions is not None else old.discussion_ids()
    report = Report(source=source, target=target, discussions=len(ids))
    had_record = store_switch.begin(source=source, target=target)
    try:
        for discussion_id in ids:
            earlier = _verified(_key(source, target, discussion_id))
            if earlier is not None:
                report.resumed += 1
                report.comments += earlier["count"]
            else:
                _copy_and_verify(old, new, discussion_id, report)
                report.copied += 1
            progress(1)
    except BaseException:
        store_switch.abandon(source=source, had_record=had_record)
        raise
    last_pass()
    _last_pass(old, new, report, sleep)
    return report


def _last_pass(old: CommentStore, new: CommentStore, report: Report,
               sleep: Callable[[float], object]) -> None:
    """Freeze writes, wait until every process has seen it, recopy what changed since
    its copy (and any discussion that got its first comment meanwhile), switch."""
    store_switch.freeze(source=report.source, target=report.target)
    began = time.monotonic()
    try:
        sleep(store_switch.grace_seconds())
        for discussion_id in old.discussion_ids():
            earlier = _verified(_key(report.source, report.target, discussion_id)) or {}
            if differences(old, new, discussion_id, earlier.get("views_checked_on")):
                report.comments -= earlier.get("count", 0)  # its copy is replaced, not added to
                _copy_and_verify(old, new, discussion_id, report)
                report.recopied += 1
    except BaseException:
        store_switch.thaw(source=report.source)
        raise
    store_switch.switch(target=report.target)
    report.paused_seconds = time.monotonic() - began
    get_db().comment_migrations.delete_many({"_id": {"$regex": "^" + re.escape(f"{report.source}:{report.target}:")}})
