"""The `comment_flags` collection, readers' reports of comments, and
`comment_flag_counts`, how many each comment has. The only module that touches them.

    comment_flags:        {_id, comment_id, discussion_id, flagger, reason, note, at}
    comment_flag_counts:  {_id: comment_id, n}

`flagger` names who flagged: `user:<id>` for a logged-in reader, `ip:<address>`
otherwise. The unique index `{comment_id, flagger}` makes a second flag by the same
reader a no-op, even when two arrive at once; a flag it admits then `$inc`s the
comment's counter, which gives each flag its own number (comments.services.flag_comment
holds the comment at the flag numbered COMMENTS_FLAGS_TO_HOLD).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bson import ObjectId
from django.utils.translation import gettext_lazy as _
from pymongo import ASCENDING, IndexModel, ReturnDocument
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError

from infra.mongo import get_db
from infra.racing_inserts import insert_many_keeping, insert_one_racing

REASONS = {
    "spam": _("Spam or advertising"),
    "abuse": _("Abusive, hateful or harassing"),
    "off_topic": _("Off topic"),
    "other": _("Something else"),
}

INDEXES = [
    IndexModel([("comment_id", ASCENDING), ("flagger", ASCENDING)], unique=True, name="comment_flagger"),
]


def ensure_indexes(db: Database) -> list[str]:
    return db.comment_flags.create_indexes(INDEXES)


@dataclass(frozen=True)
class Flag:
    comment_id: ObjectId
    flagger: str
    reason: str
    note: str
    at: datetime

    @property
    def reason_label(self) -> str:
        return REASONS.get(self.reason, self.reason)


def add_flag(*, comment_id: ObjectId, discussion_id: ObjectId, flagger: str, reason: str, note: str,
             at: datetime) -> bool:
    """Record a flag; False if this flagger had flagged this comment already."""
    doc = {"comment_id": comment_id, "discussion_id": discussion_id, "flagger": str(flagger),
           "reason": str(reason), "note": str(note), "at": at}
    try:
        insert_one_racing(get_db().comment_flags, doc, key={"comment_id": comment_id, "flagger": doc["flagger"]})
    except DuplicateKeyError:
        return False
    return True


def add_flag_count(*, comment_id: ObjectId) -> int:
    """Count one more flag of this comment, atomically; the count with it.

    `$inc` of an existing counter, and an insert when there is none yet (its `_id`
    admits one; a writer it refuses `$inc`s the one that won). Not an upsert:
    FerretDB v2 loses increments when concurrent upserts create the same document.
    """
    counts = get_db().comment_flag_counts
    while True:
        doc = counts.find_one_and_update(
            {"_id": comment_id}, {"$inc": {"n": 1}}, return_document=ReturnDocument.AFTER
        )
        if doc is not None:
            return doc["n"]
        try:
            counts.insert_one({"_id": comment_id, "n": 1})
            return 1
        except DuplicateKeyError:
            continue


def flag_count(*, comment_id: ObjectId) -> int:
    """The comment's flag count as `add_flag_count` keeps it (0 before any flag)."""
    doc = get_db().comment_flag_counts.find_one({"_id": comment_id})
    return doc["n"] if doc else 0


def flag_counts(*, comment_ids: list[ObjectId]) -> dict[ObjectId, int]:
    """The flag counts of these comments that have any, by comment id: one query."""
    if not comment_ids:
        return {}
    found = get_db().comment_flag_counts.find({"_id": {"$in": list(comment_ids)}, "n": {"$gt": 0}})
    return {doc["_id"]: doc["n"] for doc in found}


def count_flags(*, comment_id: ObjectId) -> int:
    """How many flags of this comment are stored (one per flagger)."""
    return get_db().comment_flags.count_documents({"comment_id": comment_id})


def find_flags(*, comment_ids: list[ObjectId]) -> dict[ObjectId, list[Flag]]:
    """The flags of these comments, oldest first, by comment id: one query."""
    found: dict[ObjectId, list[Flag]] = defaultdict(list)
    if not comment_ids:
        return found
    cursor = get_db().comment_flags.find({"comment_id": {"$in": list(comment_ids)}}).sort("at", ASCENDING)
    for doc in cursor:
        found[doc["comment_id"]].append(Flag(
            comment_id=doc["comment_id"], flagger=doc["flagger"], reason=doc["reason"],
            note=doc.get("note", ""), at=doc["at"],
        ))
    return found


def clear_flags(*, comment_ids: list[ObjectId]) -> int:
    """Forget these comments' flags and counts (an editor has judged them); how many
    flags went."""
    if not comment_ids:
        return 0
    get_db().comment_flag_counts.delete_many({"_id": {"$in": list(comment_ids)}})
    return get_db().comment_flags.delete_many({"comment_id": {"$in": list(comment_ids)}}).deleted_count


def snapshot(*, comment_ids: list[ObjectId]) -> dict[str, Any]:
    """These comments' flags and counts as stored, to be put back by `put_back` (an
    editor's approval that is undone): {"flags": [documents], "counts": {id: n}}."""
    if not comment_ids:
        return {"flags": [], "counts": {}}
    docs = list(get_db().comment_flags.find({"comment_id": {"$in": list(comment_ids)}}))
    return {"flags": docs, "counts": {str(k): n for k, n in flag_counts(comment_ids=comment_ids).items()}}


def put_back(saved: dict[str, Any], *, comment_ids: list[ObjectId]) -> dict[ObjectId, int]:
    """Store again the flags `snapshot` saved of these comments (a reader who flagged
    one since keeps their new flag) and give each its count before, plus the flags of
    readers new since; each comment's count now. Idempotent: run again, it stores and
    counts the same."""
    wanted = set(comment_ids)
    old = [doc for doc in saved["flags"] if doc["comment_id"] in wanted]
    if old:
        # Put back before, or flagged again since by the same reader: kept as it is.
        insert_many_keeping(get_db().comment_flags, old)
    before = {(doc["comment_id"], doc["flagger"]) for doc in old}
    now: dict[ObjectId, int] = {comment_id: saved["counts"].get(str(comment_id), 0) for comment_id in wanted}
    stored = get_db().comment_flags.find({"comment_id": {"$in": list(wanted)}},
                                         {"comment_id": 1, "flagger": 1})
    for doc in stored:
        if (doc["comment_id"], doc["flagger"]) not in before:
            now[doc["comment_id"]] += 1
    counts = get_db().comment_flag_counts
    for comment_id, n in now.items():
        if n:
            counts.update_one({"_id": comment_id}, {"$set": {"n": n}}, upsert=True)
        else:
            counts.delete_one({"_id": comment_id})
    return now
