"""The `comment_flags` collection: readers' reports of comments. The only module
that touches it.

    {_id, comment_id, discussion_id, flagger, reason, note, at}

`flagger` names who flagged: `user:<id>` for a logged-in reader, `ip:<address>`
otherwise. The unique index `{comment_id, flagger}` makes a second flag by the same
reader a no-op, even when two arrive at once (a unique index holds where two
concurrent `$inc`s of one document could lose one on FerretDB v1). The comment's
`flag_count` is then recounted from here and `$set` (comments.services.flag_comment).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from bson import ObjectId
from pymongo import ASCENDING, IndexModel
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError

from cms.mongo import create_indexes, get_db

REASONS = {
    "spam": "Spam or advertising",
    "abuse": "Abusive, hateful or harassing",
    "off_topic": "Off topic",
    "other": "Something else",
}

INDEXES = [
    IndexModel([("comment_id", ASCENDING), ("flagger", ASCENDING)], unique=True, name="comment_flagger"),
]


def ensure_indexes(db: Database) -> list[str]:
    return create_indexes(db.comment_flags, INDEXES)


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
        get_db().comment_flags.insert_one(doc)
    except DuplicateKeyError:
        return False
    return True


def count_flags(*, comment_id: ObjectId) -> int:
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
    """Forget these comments' flags (an editor has judged them); how many went."""
    if not comment_ids:
        return 0
    return get_db().comment_flags.delete_many({"comment_id": {"$in": list(comment_ids)}}).deleted_count
