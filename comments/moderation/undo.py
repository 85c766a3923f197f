"""Undoing an editor's queue action (approve, spam, delete; one comment or many) for
UNDO_WINDOW after it: the `comment_undos` collection. The only module that touches it.

    {_id, editor_id, editor, action, at, expires, records: [<comment_changes ids>],
     flags: {"flags": [...], "counts": {...}} | None (an approval's: what it cleared),
     state: "ready" | "undoing" | "undone",
     plan: [{id, was, status}], skipped, noted, undone_at}

`act` does the action (comments/moderation/queue.py), then records what undoing it
needs: the ids of the `comment_changes` records it wrote (each comment with its
status before) and, for an approval, the readers' flags it cleared. The editor gets
a signed token naming the record and themselves (`make_token`).

`undo` works once, for that editor, within UNDO_WINDOW: it puts back only the comments
still as the action left them and on which nobody decided since (a later decision,
even the same editor's, is never clobbered), through `changes.apply` (action
`undo`, recorded in the moderation history with `undoes`), so the counters and the
posts' summaries move back as for any action. No transactions: the record is claimed
(`ready` -> `undoing`, with its plan) by one atomic update, and every step after is
idempotent, so an undo cut short is finished by pressing the button again (or by
`repair_summaries`, for the status changes it recorded).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from django.core import signing
from django.utils.translation import gettext_noop
from pymongo import ASCENDING, IndexModel, ReturnDocument
from pymongo.database import Database
from pymongo.errors import DocumentTooLarge, PyMongoError

from comments.errors import Refused
from comments.moderation import changes, flags, queue as moderation
from comments.stores import get_store
from infra import mongo
from infra.mongo import get_db

# How long after an action its undo works.
UNDO_WINDOW = timedelta(minutes=10)
# How long a record is kept after its window (then TTL removes it; the undo itself
# stays in the moderation history).
KEEP = timedelta(days=1)
UNDOABLE = ("approve", "spam", "delete")
READY, UNDOING, UNDONE = "ready", "undoing", "undone"
SALT = "comments.moderation.undo"

BROKEN = gettext_noop("This undo button is broken or was changed; nothing was undone.")
NOT_YOURS = gettext_noop("Only the editor who did this action can undo it; nothing was undone.")
EXPIRED = gettext_noop(
    "An action can be undone for ten minutes only; this one is older, and nothing was undone.")
ALREADY = gettext_noop("This action was undone already.")
CHANGED = gettext_noop(
    "Every comment of this action was changed since by a later decision; nothing was undone.")
STILL_APPLYING = gettext_noop("This action is still being applied; try again in a minute.")
# What each refusal answers (its `code` -> the HTTP status).
STATUS = {"broken": 400, "not_yours": 403, "expired": 410, "already": 409, "changed": 409, "applying": 503}

INDEXES = [IndexModel([("expires", ASCENDING)], expireAfterSeconds=0, name="expires")]

logger = logging.getLogger(__name__)


def ensure_indexes(db: Database) -> list[str]:
    return db.comment_undos.create_indexes(INDEXES)


class UndoRefused(Refused):
    """An undo that must not be; nothing was changed. `message` is the untranslated
    text (gettext it where shown)."""

    @property
    def status(self) -> int:
        return STATUS[self.code]


@dataclass(frozen=True)
class Undone:
    """What an undo put back: `restored` comments; `skipped`, those left as a later
    decision made them; `done`: False while the rest is finished in the background."""

    restored: int
    skipped: int
    done: bool = True


# --- Pure: the token, the window, the plan ------------------------------------------------


def make_token(*, undo_id: ObjectId, editor_id: int) -> str:
    """The signed token of an undo record for the editor who acted."""
    return signing.dumps({"u": str(undo_id), "e": editor_id}, salt=SALT, compress=False)


def read_token(token: str, *, editor_id: int) -> ObjectId:
    """The undo record a token names; UndoRefused when it is broken or another editor's."""
    try:
        data = signing.loads(str(token), salt=SALT)
        undo_id, signed_for = ObjectId(data["u"]), data["e"]
    except (signing.BadSignature, InvalidId, KeyError, TypeError, ValueError):
        raise UndoRefused(BROKEN, "broken") from None
    if signed_for != editor_id:
        raise UndoRefused(NOT_YOURS, "not_yours")
    return undo_id


def expired(at: datetime, *, now: datetime) -> bool:
    """Whether an action done at `at` is past its undo window at `now`."""
    return now - at > UNDO_WINDOW


def plan_of(records: Iterable[Mapping[str, Any]], *, current: Mapping[ObjectId, str],
            decided: set[ObjectId]) -> list[dict]:
    """What undoing an action's records puts back: each comment they changed that still
    has the status they gave it (`current`: each comment's status now; a comment gone
    is left out) and on which nobody decided since (`decided`), with its status before
    (`was`) and after (`status`: the same for flags dismissed from an approved one)."""
    plan: list[dict] = []
    seen: set[ObjectId] = set()
    for record in records:
        for change in record["changes"]:
            comment_id = change["id"]
            if comment_id in seen or comment_id in decided or current.get(comment_id) != record["status"]:
                continue
            seen.add(comment_id)
            plan.append({"id": comment_id, "was": change["was"], "status": record["status"]})
    return plan


# --- Acting, undoable -------------------------------------------------------------------------


def act(*, action: str, comment_ids: Iterable[ObjectId], editor: str, editor_id: int | None,
        now: datetime | None = None) -> tuple[changes.Progress, str | None]:
    """Do a queue action (one of UNDOABLE) as `moderation.moderate` does, and record how
    to undo it; its progress and the undo's token (None when it changed nothing, or
    the record could not be written: the action stands, without an undo)."""
    ids = list(comment_ids)
    saved = flags.snapshot(comment_ids=ids) if action == "approve" else None
    progress = moderation.moderate(action=action, comment_ids=ids, editor=editor)
    if not progress.records or editor_id is None:
        return progress, None
    now = now or datetime.now(UTC)
    doc = {"editor_id": editor_id, "editor": str(editor), "action": action, "at": now,
           "expires": now + UNDO_WINDOW + KEEP, "records": list(progress.records), "flags": saved,
           "state": READY}
    try:
        undo_id = mongo.outside_request_budget(lambda: get_db().comment_undos.insert_one(doc)).inserted_id
    except (DocumentTooLarge, PyMongoError) as exc:
        # Too many flags to keep in one record, or the database gone: the action stands.
        if isinstance(exc, PyMongoError) and not mongo.is_outage(exc):
            raise
        logger.warning("The %s of %d comments cannot be undone (%s).", action, progress.total,
                       exc.__class__.__name__)
        return progress, None
    return progress, make_token(undo_id=undo_id, editor_id=editor_id)


# --- Undoing ------------------------------------------------------------------------------


def undo(*, token: str, editor_id: int, editor: str, now: datetime | None = None) -> Undone:
    """Undo the action a token names (see the module's docstring); UndoRefused, with
    nothing changed, when the token is broken or another editor's, the action is past
    its window, undone already, or every comment of it was decided on since."""
    now = now or datetime.now(UTC)
    undo_id = read_token(token, editor_id=editor_id)
    doc = get_db().comment_undos.find_one({"_id": undo_id})
    if doc is None:
        raise UndoRefused(EXPIRED, "expired")  # Removed after its window.
    if doc["editor_id"] != editor_id:
        raise UndoRefused(NOT_YOURS, "not_yours")
    if doc["state"] == UNDONE:
        raise UndoRefused(ALREADY, "already")
    if doc["state"] == READY:
        if expired(doc["at"], now=now):
            raise UndoRefused(EXPIRED, "expired")
        doc = _claim(doc, now=now)
    return _carry_out(doc, editor=editor, now=now)


def _finished_records(doc: dict) -> list[dict]:
    """The action's records, finished first if one was cut short; UndoRefused while one
    cannot be (undoing half an action would leave the rest to be applied after)."""
    records = changes.find_records(ids=doc["records"])
    if all(record["done"] for record in records):
        return records
    if not all(changes.run(record).done for record in records if not record["done"]):
        raise UndoRefused(STILL_APPLYING, "applying")
    return changes.find_records(ids=doc["records"])


def _claim(doc: dict, *, now: datetime) -> dict:
    """Work out what to put back and take the record for this undo (one atomic update:
    of two presses at once, one claims it); the record as claimed."""
    records = _finished_records(doc)
    ids = [change["id"] for record in records for change in record["changes"]]
    current = {c.id: c.status for c in get_store().find_by_ids(ids=ids)}
    since = min((record["at"] for record in records), default=doc["at"])
    decided = changes.decided_since(comment_ids=ids, after=since, besides=doc["records"])
    plan = plan_of(records, current=current, decided=decided)
    if not plan:
        raise UndoRefused(CHANGED, "changed")
    claimed = get_db().comment_undos.find_one_and_update(
        {"_id": doc["_id"], "state": READY},
        {"$set": {"state": UNDOING, "plan": plan, "skipped": len(set(ids)) - len(plan), "started": now}},
        return_document=ReturnDocument.AFTER,
    )
    if claimed is None:  # Another press claimed it first: go on with its plan, or say it is done.
        claimed = get_db().comment_undos.find_one({"_id": doc["_id"]})
        if claimed is None or claimed["state"] == UNDONE:
            raise UndoRefused(ALREADY, "already")
    return claimed


def _carry_out(doc: dict, *, editor: str, now: datetime) -> Undone:
    """Put back what the claimed record's plan says; each step may run again."""
    plan = doc["plan"]
    groups: dict[tuple[str, str], list[ObjectId]] = {}
    for entry in plan:
        if entry["was"] != entry["status"]:
            groups.setdefault((entry["status"], entry["was"]), []).append(entry["id"])
    done = True
    for (status, was), ids in groups.items():
        # Those still as the action left them: on a second run, the rest are put back already.
        still = [c for c in get_store().find_by_ids(ids=ids) if c.status == status]
        done = changes.apply(action="undo", status=was, comments=still, editor=editor,
                             detail={"undoes": doc["_id"]}).done and done
    if doc.get("flags"):
        _put_back_flags(doc, plan, editor=editor)
    get_db().comment_undos.update_one({"_id": doc["_id"], "state": UNDOING},
                                      {"$set": {"state": UNDONE, "undone_at": now}})
    return Undone(restored=len(plan), skipped=doc.get("skipped", 0), done=done)


def _put_back_flags(doc: dict, plan: list[dict], *, editor: str) -> None:
    """The readers' flags an approval cleared, back on the comments put back, their
    counts as before; a comment whose status the undo leaves (its flags dismissed) is
    noted in the history once."""
    counts = flags.put_back(doc["flags"], comment_ids=[entry["id"] for entry in plan])
    by_count: dict[int, list[ObjectId]] = {}
    for comment_id, n in counts.items():
        by_count.setdefault(n, []).append(comment_id)
    for n, ids in by_count.items():
        get_store().set_flag_count(ids=ids, flag_count=n)
    if doc.get("noted"):
        return
    kept = [entry["id"] for entry in plan if entry["was"] == entry["status"]]
    for comment in get_store().find_by_ids(ids=kept):
        changes.note(action="undo", comment=comment, editor=editor, detail={"undoes": doc["_id"]})
    get_db().comment_undos.update_one({"_id": doc["_id"]}, {"$set": {"noted": True}})

