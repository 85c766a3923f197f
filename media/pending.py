"""Uploads kept while their form is put right: the `media_kept` collection. The
only module that touches it.

    media_kept: {_id: <token>, user, name, data, expires}

A picture sent with a form that is refused for another field (no alt text, a caption
too long) is kept here, and the form comes back naming it, so its uploader does not
choose the file again: the form sends the token back instead of a file. One kept
upload per user (a new one replaces it); a TTL index removes it after PENDING_SECONDS,
and one past its time is never handed out. It is never a library picture: nothing
serves it, and it is processed only when the form is sent again and valid.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from django.conf import settings
from pymongo import ASCENDING, IndexModel
from pymongo.database import Database

from infra.mongo import get_db, max_document_bytes, outside_request_budget

INDEXES = [
    IndexModel([("expires", ASCENDING)], expireAfterSeconds=0, name="expires_ttl"),
    IndexModel([("user", ASCENDING)], name="user"),
]
PENDING_SECONDS = 3600
# Room in the document for what is not the picture's bytes.
_ENVELOPE_BYTES = 64 * 1024


def ensure_indexes(db: Database) -> list[str]:
    return db.media_kept.create_indexes(INDEXES)


@dataclass(frozen=True)
class Pending:
    token: str
    name: str
    data: bytes


def keep(*, user: str, name: str, data: bytes) -> str | None:
    """Keep `user`'s upload in place of any they had; its token, or None when it is
    too large for one document (the user chooses it again)."""
    if len(data) + _ENVELOPE_BYTES > max_document_bytes():
        return None
    token = secrets.token_urlsafe(24)
    expires = datetime.now(timezone.utc) + timedelta(seconds=PENDING_SECONDS)

    def store() -> None:
        kept = get_db().media_kept
        kept.insert_one({"_id": token, "user": str(user), "name": str(name), "data": data, "expires": expires})
        kept.delete_many({"user": str(user), "_id": {"$ne": token}})

    # Its bytes take the time of an upload's, not of a page's queries.
    outside_request_budget(store, seconds=settings.MEDIA_STORE_SECONDS)
    return token


def find(*, token: str, user: str) -> Pending | None:
    """`user`'s kept upload under `token`, unless it has expired."""
    if not isinstance(token, str) or not token:
        return None
    doc = outside_request_budget(
        lambda: get_db().media_kept.find_one(
            {"_id": token, "user": str(user), "expires": {"$gt": datetime.now(timezone.utc)}}
        ),
        seconds=settings.MEDIA_STORE_SECONDS,
    )
    return Pending(token=doc["_id"], name=doc["name"], data=bytes(doc["data"])) if doc else None


def forget(*, token: str) -> None:
    get_db().media_kept.delete_one({"_id": str(token)})
