"""The `api_tokens` collection: per-user API tokens, made and revoked by editors in
the dashboard (read or read-write, for any account) and by members on their account
page (the member scope: acting as themselves, never with an editor's powers). The
only module that touches it.

    {_id, user_id, name, scope: "read" | "read-write" | "member", digest, prefix, created,
     created_by, revoked: datetime | null, expires: datetime | null,
     last_used: datetime | null}

A token is shown once, when it is made; only its SHA-256 digest is stored (the
secret is 256 random bits, so a fast hash is enough: nothing can be guessed from
it). A request's token is found by its digest through a unique index; a token is
checked to have its form before any query. A token expires when its maker chose
(or never); its last use is written at most once a minute (`note_use`), so a busy
script costs one write a minute, not one a request. A member's own tokens are
listed by `{user_id, created}`; they may hold at most MEMBER_LIMIT working ones.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bson import ObjectId
from pymongo import ASCENDING, DESCENDING, IndexModel
from pymongo.database import Database

from infra.ids import parse_id
from infra.mongo import get_db

READ, READ_WRITE, MEMBER = "read", "read-write", "member"
SCOPES = (READ, READ_WRITE, MEMBER)
# Tokens a member may hold at once (not revoked, expired or not) from their account page.
MEMBER_LIMIT = 10
PREFIX = "slg_"
FORM = re.compile(r"slg_[A-Za-z0-9_-]{43}")
# How much of a token the dashboard shows to tell tokens apart.
SHOWN = 12
# A token's last use is written again only when the one stored is older than this.
USE_GRANULARITY = timedelta(minutes=1)
INDEXES = [
    IndexModel([("digest", ASCENDING)], unique=True, name="digest_unique"),
    IndexModel([("created", DESCENDING)], name="created"),
    IndexModel([("user_id", ASCENDING), ("created", DESCENDING)], name="user_created"),
]


def ensure_indexes(db: Database) -> list[str]:
    return db.api_tokens.create_indexes(INDEXES)


@dataclass(frozen=True)
class ApiToken:
    id: ObjectId
    user_id: int
    name: str
    scope: str
    prefix: str
    created: datetime
    created_by: str
    revoked: datetime | None = None
    expires: datetime | None = None
    last_used: datetime | None = None

    @property
    def writes(self) -> bool:
        """It may post, edit, delete, flag and vote (read-write and member tokens)."""
        return self.scope in (READ_WRITE, MEMBER)

    @property
    def editor_powers(self) -> bool:
        """It carries its account's editor powers, if the account has them (what an
        editor made in the dashboard); a member's own token never does."""
        return self.scope != MEMBER

    def expired(self, now: datetime | None = None) -> bool:
        return self.expires is not None and self.expires <= (now or datetime.now(UTC))

    @classmethod
    def from_doc(cls, doc: dict) -> ApiToken:
        return cls(id=doc["_id"], user_id=doc["user_id"], name=doc["name"], scope=doc["scope"],
                   prefix=doc["prefix"], created=doc["created"], created_by=doc.get("created_by", ""),
                   revoked=doc.get("revoked"), expires=doc.get("expires"), last_used=doc.get("last_used"))


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def create_token(*, user_id: int, name: str, scope: str, created_by: str,
                 days: int | None = None) -> tuple[ApiToken, str]:
    """A new token for `user_id`, valid for `days` (None: until revoked): the stored
    record, and the secret to show once."""
    if scope not in SCOPES:
        raise ValueError(scope)
    secret = PREFIX + secrets.token_urlsafe(32)
    now = datetime.now(UTC)
    doc = {"_id": ObjectId(), "user_id": int(user_id), "name": str(name), "scope": scope, "digest": digest(secret),
           "prefix": secret[:SHOWN], "created": now, "created_by": str(created_by), "revoked": None,
           "expires": now + timedelta(days=days) if days else None, "last_used": None}
    get_db().api_tokens.insert_one(doc)
    return ApiToken.from_doc(doc), secret


def find_active(secret: object) -> ApiToken | None:
    """The token `secret` spells if it exists and is not revoked (expired or not: the
    caller says which); None otherwise (and with no query for anything that is not a
    token's form)."""
    if not isinstance(secret, str) or not FORM.fullmatch(secret):
        return None
    doc = get_db().api_tokens.find_one({"digest": digest(secret), "revoked": None})
    return ApiToken.from_doc(doc) if doc else None


def note_use(token: ApiToken, *, now: datetime | None = None) -> None:
    """Record that `token` was used now, unless its last use is less than
    USE_GRANULARITY old (no write then); the condition is in the update too, so
    workers using one token at once write it once."""
    now = now or datetime.now(UTC)
    stale = now - USE_GRANULARITY
    if token.last_used is not None and token.last_used > stale:
        return
    get_db().api_tokens.update_one(
        {"_id": token.id, "$or": [{"last_used": None}, {"last_used": {"$lte": stale}}]},
        {"$set": {"last_used": now}},
    )


def revoke(*, token_id: object, user_id: int | None = None, scope: str | None = None) -> bool:
    """Revoke a token at once (kept, marked revoked, for the record); False if unknown,
    revoked already, or (when `user_id` and `scope` are given) not that account's
    token of that scope."""
    oid = parse_id(token_id)
    if oid is None:
        return False
    query: dict[str, object] = {"_id": oid, "revoked": None}
    if user_id is not None:
        query["user_id"] = int(user_id)
    if scope is not None:
        query["scope"] = scope
    result = get_db().api_tokens.update_one(query, {"$set": {"revoked": datetime.now(UTC)}})
    return result.modified_count == 1


def of_user(*, user_id: int, scope: str) -> list[ApiToken]:
    """An account's working tokens of `scope` (not revoked; expired ones too, to be
    revoked), newest first: a member's own, on their account page."""
    # As many as the page lets a member make (MEMBER_LIMIT), give or take a race.
    found = get_db().api_tokens.find({"user_id": int(user_id), "scope": scope, "revoked": None})
    return [ApiToken.from_doc(doc) for doc in found.sort("created", DESCENDING)]


def held_by(*, user_id: int) -> list[ApiToken]:
    """Every token that acts as an account, any scope, revoked ones too, newest first
    (the member's data download)."""
    found = get_db().api_tokens.find({"user_id": int(user_id)}).sort("created", DESCENDING)
    return [ApiToken.from_doc(doc) for doc in found]


def newest(*, limit: int = 200) -> list[ApiToken]:
    """The newest tokens, revoked ones too, for the dashboard."""
    return [ApiToken.from_doc(doc) for doc in get_db().api_tokens.find({}).sort("created", DESCENDING).limit(limit)]


def forget_user(*, user_id: int) -> int:
    """Delete every token of an account being erased (they stop working at once); how many."""
    return get_db().api_tokens.delete_many({"user_id": int(user_id)}).deleted_count
