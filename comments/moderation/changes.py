"""Editors' changes to comments that complete or converge: the `comment_changes`
collection. The only module that touches it.

    {_id, action, editor, at, status,
     changes: [{id, discussion_id, slug, was}],   # every comment it changes, and its status before
                                                  # (dismiss_flags: also `flags`, how many it had)
     applied: <how many of `changes` are applied>, settled: [<discussion ids settled>],
     done: bool, keys: [[kind, value]] (a ban's blocklist entries), restored: bool,
     undoes: <the undo's id> (an editor's undo: comments/moderation/undo.py)}

An action (approve, spam, delete, remove a thread, ban, restore what a ban changed,
dismiss the flags of approved comments) is first recorded whole, then applied in batches of BATCH comments, then each
discussion it touched is settled (placeholders, then the post's count and latest
comments: `summaries.settle`). Progress is written back after every step and every
step is idempotent, so whatever stops an action half-way (a request out of its time
budget, a worker restarted, the database gone for a moment) leaves a record that
`finish_pending()` completes: `repair_summaries` runs it, so does `make run`'s
background loop, and so does the next try of the same action. An editor is never
told that a recorded action failed: it is applied, or it is being applied.

No transactions (the servers we support may have none): the record is the
write-ahead log.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any

from bson import ObjectId
from django.utils.translation import gettext, gettext_noop
from pymongo import ASCENDING, IndexModel
from pymongo.database import Database
from pymongo.errors import PyMongoError

from comments import signals
from comments.errors import Refused
from comments.moderation import flags
from comments.records import APPROVED, DELETED, Comment
from comments.stores import counters, get_store, summaries
from infra import mongo
from infra.mongo import get_db

BATCH = 500
# More than this in one action is refused before anything changes (the record is one
# document, and MongoDB's documents are at most 16 MB).
MAX_CHANGES = 50_000
TOO_MANY = gettext_noop("This would change {count} comments at once; the most one action may change is {limit}.")
# An unfinished action younger than this may still be running in its request.
STALE_AFTER = timedelta(seconds=60)

INDEXES = [IndexModel([("done", ASCENDING), ("at", ASCENDING)], name="done_at"),
           IndexModel([("changes.id", ASCENDING), ("at", ASCENDING)], name="changes_id_at")]
# Records that decide nothing about a comment (its discussion settled later, recorded by
# releases before comments/stores/summaries.py noted unsettled changes on the discussion;
# its branch locked or slowed: comments/moderation/branches.py): `decided_since` skips them.
NOT_DECISIONS = ("settle", "lock", "unlock", "slow", "unslow")
# The action that clears readers' flags from comments an editor approves as they are.
DISMISS_FLAGS = "dismiss_flags"

logger = logging.getLogger(__name__)


def ensure_indexes(db: Database) -> list[str]:
    return db.comment_changes.create_indexes(INDEXES)


class TooMany(Refused):
    """An action too large to record; nothing was changed. The message is for editors."""

    def __init__(self, count: int):
        super().__init__(gettext(TOO_MANY).format(count=count, limit=MAX_CHANGES), "too_many")


@dataclass(frozen=True)
class Progress:
    """Where an action stands after a request's share of the work: how many comments it
    changes, and whether it is done (False: the rest is being finished)."""

    total: int
    done: bool
    # Approving: of the comments chosen, the approved ones whose flags it dismissed.
    dismissed: int = 0
    # The ids of the records this action wrote (none when it changed nothing).
    records: tuple[ObjectId, ...] = ()


NOTHING = Progress(total=0, done=True)


def _entry(comment: Comment) -> dict:
    return {"id": comment.id, "discussion_id": comment.discussion_id, "slug": comment.slug,
            "was": comment.status}


def check_size(count: int) -> None:
    """TooMany if one action would change `count` comments, more than MAX_CHANGES."""
    if count > MAX_CHANGES:
        raise TooMany(count)


def record(*, action: str, status: str, comments: Iterable[Comment], editor: str = "",
           keys: Iterable[tuple[str, str]] = (), dismissed: Mapping[ObjectId, int] | None = None,
           detail: Mapping[str, Any] | None = None) -> dict | None:
    """Record an action that gives `comments` `status` (those that have it already are
    left out); the record, or None when there is nothing to change. TooMany when it
    would change more than MAX_CHANGES comments (then nothing is recorded).
    `dismissed`: for DISMISS_FLAGS, the flags each comment has (every one is recorded).
    `detail`: more fields of the record (an undo's `undoes`)."""
    if dismissed is None:
        changes = [_entry(c) for c in comments if c.status != status]
    else:
        changes = [{**_entry(c), "flags": dismissed[c.id]} for c in comments]
    check_size(len(changes))
    if not changes:
        return None
    doc = {"action": action, "editor": str(editor), "at": datetime.now(timezone.utc), "status": status,
           "changes": changes, "applied": 0, "settled": [], "done": False,
           "keys": [list(k) for k in keys], "restored": False, **dict(detail or {})}
    # Under a short budget of its own: a record that outlived its request's deadline
    # could be written without the editor hearing of it, and then applied unannounced.
    doc["_id"] = mongo.outside_request_budget(lambda: get_db().comment_changes.insert_one(doc)).inserted_id
    return doc


def note(*, action: str, comment: Comment, editor: str = "", detail: Mapping[str, Any] | None = None) -> dict:
    """Record an action that changes no comment's status (locking a branch, its slow
    mode): done as it is recorded, kept in the history with `detail`."""
    doc = {"action": action, "editor": str(editor), "at": datetime.now(timezone.utc), "status": comment.status,
           "changes": [_entry(comment)], "applied": 1, "settled": [], "done": True, "keys": [],
           "restored": False, **dict(detail or {})}
    doc["_id"] = get_db().comment_changes.insert_one(doc).inserted_id
    return doc


def _forget_flags(ids: list[ObjectId]) -> None:
    """An editor has judged these comments: readers' flags start counting again from none."""
    flags.clear_flags(comment_ids=ids)
    get_store().set_flag_count(ids=ids, flag_count=0)


def _apply_batch(doc: dict, batch: list[dict]) -> None:
    ids = [c["id"] for c in batch]
    status = doc["status"]
    if doc["action"] == DISMISS_FLAGS:
        _forget_flags(ids)  # Their status stays: nothing a reader sees changes.
        return
    # One conditional change per comment, each moving its discussion's counters once
    # (comments/stores/counters.py); a rerun finds them changed and moves nothing.
    # remove_thread: the whole sub-thread goes, nothing inside it stands as a placeholder.
    store = get_store()
    counters.set_status(store.find_by_ids(ids=ids), store=store, status=status,
                        placeholder=False if doc["action"] == "remove_thread" else None)
    if status == APPROVED:
        _forget_flags(ids)
    # Approved ones are now visible to readers: their subscribers hear of them
    # (comments/notifications/notify.py). Keyed by (subscription, comment) in the outbox, so a batch
    # run again enqueues nothing twice.
    # An undo (comments/moderation/undo.py) says so: an approval undone drops the mail it
    # queued, and a comment an undo approves again tells nobody a second time.
    signals.comment_status_changed.send(sender=Comment, comment_ids=ids, status=status,
                                        undone=bool(doc.get("undoes")))


def run(doc: dict) -> Progress:
    """Apply what is left of a recorded action, then settle what is left to settle;
    the progress is stored after each step. Outages (the request's budget spent, the
    database gone) stop it where it is and are not raised: the record keeps the rest
    for the next run. Anything else is a bug and is raised."""
    collection = get_db().comment_changes
    changes, applied = doc["changes"], doc["applied"]
    try:
        while applied < len(changes):
            batch = changes[applied:applied + BATCH]
            _apply_batch(doc, batch)
            applied += len(batch)
            collection.update_one({"_id": doc["_id"], "applied": {"$lt": applied}}, {"$set": {"applied": applied}})
        by_discussion: dict[ObjectId, list[str]] = {}
        for change in changes:
            by_discussion.setdefault(change["discussion_id"], []).append(change["slug"])
        settled = set(doc["settled"])
        for discussion_id, changed in by_discussion.items():
            if discussion_id in settled:
                continue
            summaries.settle(discussion_id=discussion_id, slugs=changed)
            collection.update_one({"_id": doc["_id"]}, {"$addToSet": {"settled": discussion_id}})
        collection.update_one({"_id": doc["_id"]}, {"$set": {"done": True}})
    except (PyMongoError, counters.Contended) as exc:
        if isinstance(exc, PyMongoError) and not mongo.is_outage(exc):
            raise
        logger.warning("Moderation action %s stopped after %d of %d comments (%s); it will be finished.",
                       doc["_id"], applied, len(changes), exc.__class__.__name__)
        return Progress(total=len(changes), done=False)
    return Progress(total=len(changes), done=True)


def apply(*, action: str, status: str, comments: Iterable[Comment], editor: str = "",
          keys: Iterable[tuple[str, str]] = (), dismissed: Mapping[ObjectId, int] | None = None,
          detail: Mapping[str, Any] | None = None) -> Progress:
    """Record an action (`record`), then run it (as far as this request's budget goes).
    Actions cut short before it are finished first: an editor who tries again after a
    timeout finishes the job, even when their action has nothing left to change."""
    comments = list(comments)
    # Including ones still running in another request: running a step twice is harmless.
    finish_pending(older_than=timedelta(0))
    doc = record(action=action, status=status, comments=comments, editor=editor, keys=keys,
                 dismissed=dismissed, detail=detail)
    return NOTHING if doc is None else replace(run(doc), records=(doc["_id"],))


def dismiss_flags(*, comments: Iterable[Comment], editor: str = "") -> Progress:
    """Record that `editor` dismissed the readers' flags of these approved comments
    (with how many each has), then clear them: their flag counts are back to none and
    the queue's flagged tab leaves them. Comments with no flag are left out."""
    comments = [c for c in comments if c.status == APPROVED]
    counted = flags.flag_counts(comment_ids=[c.id for c in comments])
    dismissed = {c.id: max(c.flag_count, counted.get(c.id, 0)) for c in comments}
    flagged = [c for c in comments if dismissed[c.id]]
    if not flagged:
        return NOTHING
    return apply(action=DISMISS_FLAGS, status=APPROVED, comments=flagged, editor=editor, dismissed=dismissed)


def unfinished(*, older_than: timedelta = STALE_AFTER, now: datetime | None = None) -> list[dict]:
    """The recorded actions not yet done and older than `older_than` (younger ones may
    still be running in their request), oldest first."""
    since = (now or datetime.now(timezone.utc)) - older_than
    return list(get_db().comment_changes.find({"done": False, "at": {"$lte": since}}).sort("at", ASCENDING))


def finish_pending(*, older_than: timedelta = STALE_AFTER) -> int:
    """Run every unfinished action; how many are done now."""
    finished = 0
    for doc in unfinished(older_than=older_than):
        finished += run(doc).done
    return finished


def find_records(*, ids: Iterable[ObjectId]) -> list[dict]:
    """These recorded actions, in the order asked (one missing is left out)."""
    wanted = list(ids)
    found = {doc["_id"]: doc for doc in get_db().comment_changes.find({"_id": {"$in": wanted}})}
    return [found[i] for i in wanted if i in found]


def decided_since(*, comment_ids: Iterable[ObjectId], after: datetime,
                  besides: Iterable[ObjectId]) -> set[ObjectId]:
    """Of these comments, those a recorded action other than `besides` decided on after
    `after` (branch rules and settling aside: NOT_DECISIONS); one query on `changes_id_at`."""
    ids = list(comment_ids)
    if not ids:
        return set()
    found = get_db().comment_changes.find(
        {"changes.id": {"$in": ids}, "at": {"$gt": after}, "_id": {"$nin": list(besides)},
         "action": {"$nin": list(NOT_DECISIONS)}}, {"changes.id": 1})
    wanted = set(ids)
    return {change["id"] for doc in found for change in doc["changes"] if change["id"] in wanted}


def latest_ban(*, keys: Iterable[tuple[str, str]]) -> dict | None:
    """The latest recorded ban that recorded any of these blocklist entries."""
    wanted = [list(k) for k in keys]
    if not wanted:
        return None
    return get_db().comment_changes.find_one(
        {"action": "ban", "keys": {"$in": wanted}}, sort=[("at", -1)]
    )


def restorable(ban: dict) -> list[Comment]:
    """The comments a ban changed that still have the status it gave them, each to go
    back to the status it had (a comment an editor changed since is left alone)."""
    was = {c["id"]: c["was"] for c in ban["changes"]}
    current = get_store().find_by_ids(ids=list(was))
    return [c for c in current if c.status == ban["status"] and was[c.id] != ban["status"]]


def restore(*, ban: dict, editor: str = "") -> Progress:
    """Give the comments a ban changed back the status they had before it, as actions
    of their own (one per earlier status), and note on the ban that it was restored."""
    was = {c["id"]: c["was"] for c in ban["changes"]}
    groups: dict[str, list[Comment]] = {}
    for comment in restorable(ban):
        groups.setdefault(was[comment.id], []).append(comment)
    parts = [apply(action="restore", status=status, comments=comments, editor=editor)
             for status, comments in groups.items()]
    get_db().comment_changes.update_one({"_id": ban["_id"]}, {"$set": {"restored": True}})
    return Progress(total=sum(p.total for p in parts), done=all(p.done for p in parts))


def deleted_by_author(comment: Comment) -> bool:
    """A comment its author took back (text emptied): never approved back."""
    return comment.status == DELETED and not comment.text
