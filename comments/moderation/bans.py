"""The `comment_bans` collection: bans of members by account, each with its reason and
end, and when and by whom it was lifted. The only module that touches it.

    {_id, user_id, reason, starts, ends (None: permanent), by, lifted (None), lifted_by}

A ban holds while it is not lifted and its end is still ahead (`Ban.active_at`): a
timed ban lifts itself when its end passes, with no job to run, because every reader
of the collection asks that rule with the time of the question. Lifting one early
(an editor's unban, or a new ban that replaces it) sets `lifted` and `lifted_by`;
nothing is ever deleted, so a member's documents are their ban history.

Bans of anonymous commenters (by IP address or e-mail address) stay on the blocklist
(comments/moderation/blocklist.py), and so do members' bans made before this
collection existed: permanent, without a reason, lifted from the blocklist page.
MongoDB, not Django's database, for the blocklist's reasons: the posting service
reads it wherever comments are written.

Index: `{user_id, starts}`: a member's bans newest first (their history, and the
few not lifted that the posting service checks).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone

from bson import ObjectId
from pymongo import ASCENDING, DESCENDING, IndexModel
from pymongo.database import Database

from infra.mongo import get_db

REASON_MAX_LENGTH = 500
INDEXES = [IndexModel([("user_id", ASCENDING), ("starts", DESCENDING)], name="user_starts")]


def ensure_indexes(db: Database) -> list[str]:
    return db.comment_bans.create_indexes(INDEXES)


@dataclass(frozen=True)
class Ban:
    """One ban of a member: why, from when, until when (None: for good), by whom, and
    when it was lifted early and by whom (None: it was not)."""

    id: ObjectId
    user_id: int
    reason: str
    starts: datetime
    ends: datetime | None
    by: str
    lifted: datetime | None = None
    lifted_by: str = ""

    @classmethod
    def from_doc(cls, doc: dict) -> Ban:
        ends, lifted = doc.get("ends"), doc.get("lifted")
        return cls(id=doc["_id"], user_id=int(doc["user_id"]), reason=str(doc.get("reason") or ""),
                   starts=_aware(doc["starts"]), ends=_aware(ends) if ends else None, by=str(doc.get("by") or ""),
                   lifted=_aware(lifted) if lifted else None, lifted_by=str(doc.get("lifted_by") or ""))

    @property
    def permanent(self) -> bool:
        return self.ends is None

    def active_at(self, now: datetime) -> bool:
        """Whether this ban holds at `now`: not lifted, and its end (if any) not reached."""
        return self.lifted is None and (self.ends is None or now < self.ends)

    def ended_at(self) -> datetime | None:
        """When it stopped holding: lifted early, or its end; None while it may still hold."""
        if self.lifted is not None:
            return self.lifted if self.ends is None else min(self.lifted, self.ends)
        return self.ends


def _aware(value: datetime) -> datetime:
    """A time as read back from MongoDB (naive UTC) made aware."""
    return value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)


def current(bans: Iterable[Ban], *, now: datetime) -> Ban | None:
    """Of a member's bans, the one that holds at `now` and lasts longest (a permanent
    one first), or None."""
    holding = [ban for ban in bans if ban.active_at(now)]
    return max(holding, key=lambda ban: (ban.ends is None, ban.ends or ban.starts), default=None)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def add(*, user_id: int, reason: str, ends: datetime | None, by: str, now: datetime | None = None) -> Ban:
    """Ban this member from `now` until `ends` (None: for good). A ban of theirs that
    still holds is lifted by this one (the new terms replace it), so one ban holds at
    a time and the history reads in order."""
    now = now or _now()
    lift(user_id=user_id, by=by, now=now)
    doc = {"user_id": int(user_id), "reason": str(reason)[:REASON_MAX_LENGTH], "starts": now, "ends": ends,
           "by": str(by), "lifted": None, "lifted_by": ""}
    doc["_id"] = get_db().comment_bans.insert_one(doc).inserted_id
    return Ban.from_doc(doc)


def lift(*, user_id: int, by: str, now: datetime | None = None) -> list[Ban]:
    """Lift this member's bans that hold at `now`; the ones lifted (none: not banned)."""
    now = now or _now()
    holding = [ban for ban in _not_lifted(user_id) if ban.active_at(now)]
    if holding:
        get_db().comment_bans.update_many({"_id": {"$in": [ban.id for ban in holding]}, "lifted": None},
                                          {"$set": {"lifted": now, "lifted_by": str(by)}})
    return holding


def _not_lifted(user_id: int) -> list[Ban]:
    cursor = get_db().comment_bans.find({"user_id": int(user_id), "lifted": None})
    return [Ban.from_doc(doc) for doc in cursor]


def active(*, user_id: int, now: datetime | None = None) -> Ban | None:
    """The ban that keeps this member from commenting at `now`, or None (one indexed query)."""
    return current(_not_lifted(user_id), now=now or _now())


def history(*, user_id: int) -> list[Ban]:
    """Every ban of this member, newest first."""
    return histories(user_ids=[user_id]).get(int(user_id), [])


def histories(*, user_ids: Iterable[int]) -> dict[int, list[Ban]]:
    """The ban history of each of these members that has one, newest first (one query)."""
    ids = sorted({int(user_id) for user_id in user_ids})
    if not ids:
        return {}
    found: dict[int, list[Ban]] = {}
    for doc in get_db().comment_bans.find({"user_id": {"$in": ids}}).sort(
            [("user_id", ASCENDING), ("starts", DESCENDING)]):
        ban = Ban.from_doc(doc)
        found.setdefault(ban.user_id, []).append(ban)
    return found


def banned_now(*, now: datetime | None = None, limit: int = 200) -> list[Ban]:
    """The bans that hold now, newest first (the blocklist page lists them)."""
    now = now or _now()
    cursor = get_db().comment_bans.find({"lifted": None}).sort("starts", DESCENDING).limit(limit)
    return [ban for ban in map(Ban.from_doc, cursor) if ban.active_at(now)]
