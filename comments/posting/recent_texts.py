"""The `comment_recent_texts` collection: who is posting which text where, for
COMMENTS_DUPLICATE_WINDOW seconds. The only module that touches it.

    {_id: <sha256 of discussion, parent, author and text>, expires: <datetime>,
     comment: <the _id its comment is stored under>, claimed: <datetime>}

The duplicate check ("the same text by the same author in the same place moments
ago gives back the earlier comment") reads the comments; two forms carrying the same
text sent at the same moment both read before either writes, and both would store.
So before storing, a poster claims the text here: `_id` is unique, so of posters
racing with the same text exactly one claims it; the others wait for its comment and
give that back. The claim names the comment's `_id` (chosen before it is stored), so
a waiter tells a comment being stored from one deleted or removed since, whose text
is free again (`take_over`). A TTL index removes claims after they expire; an
expired claim still lying there is taken over.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from bson import ObjectId
from pymongo import ASCENDING, IndexModel
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError

from comments.records import CommentAuthor
from infra.mongo import get_db

INDEXES = [IndexModel([("expires", ASCENDING)], expireAfterSeconds=0, name="expires_ttl")]
# Takeovers of an expired claim that another poster takes over at the same moment.
ATTEMPTS = 3


def ensure_indexes(db: Database) -> list[str]:
    return db.comment_recent_texts.create_indexes(INDEXES)


def key(*, discussion_id: ObjectId, parent_id: ObjectId | None, author: CommentAuthor, ip: str | None,
        text: str) -> str:
    """What makes two comments the same: place, author (a member by account, anyone
    else by name, e-mail and address) and text."""
    who = f"user:{int(author.id)}" if author.id is not None else f"anon:{author.name}\x00{author.email}\x00{ip or ''}"
    parts = [str(discussion_id), str(parent_id or ""), who, text]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


@dataclass(frozen=True)
class Held:
    """Another poster's claim on a text: the comment it is stored as, and when it was
    claimed (None for either: not known, a claim from before they were recorded)."""

    comment_id: ObjectId | None
    claimed: datetime | None


def claim(claim_key: str, *, comment_id: ObjectId, now: datetime, window: timedelta) -> Held | None:
    """Claim `claim_key` until `now + window` for the comment to be stored as
    `comment_id`: None once this poster holds it, else the claim someone holds still."""
    claims = get_db().comment_recent_texts
    fields = {"expires": now + window, "comment": comment_id, "claimed": now}
    for _ in range(ATTEMPTS):
        try:
            claims.insert_one({"_id": claim_key, **fields})
            return None
        except DuplicateKeyError:
            # Expired but not yet removed (the TTL monitor runs about once a minute):
            # take it over, unless another poster does so first.
            taken = claims.update_one({"_id": claim_key, "expires": {"$lte": now}}, {"$set": fields})
            if taken.modified_count == 1:
                return None
            held = claims.find_one({"_id": claim_key}, {"comment": 1, "claimed": 1})
            if held is not None:
                return Held(comment_id=held.get("comment"), claimed=held.get("claimed"))
    return Held(comment_id=None, claimed=None)


def take_over(claim_key: str, *, held: Held, comment_id: ObjectId, now: datetime,
              window: timedelta) -> Held | None:
    """Claim a text whose claim `held` is spent (its comment deleted or removed since,
    or never stored): None once this poster holds it, else the claim of the poster who
    took it over first."""
    fields = {"expires": now + window, "comment": comment_id, "claimed": now}
    taken = get_db().comment_recent_texts.update_one({"_id": claim_key, "comment": held.comment_id},
                                                     {"$set": fields})
    if taken.modified_count == 1:
        return None
    return claim(claim_key, comment_id=comment_id, now=now, window=window)


def release(claim_key: str) -> None:
    """Give up a claim whose comment was not stored (so the text can be sent again)."""
    get_db().comment_recent_texts.delete_one({"_id": claim_key})
