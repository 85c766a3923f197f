"""The `comment_subscriptions` and `confirmed_addresses` collections: who asked for
mail about what, and which typed e-mail addresses their owners have confirmed. The
only module that touches them.

    comment_subscriptions  {_id: "<hash of kind, target, address>", email, user_id,
                            kind: "replies" | "discussion", target: <comment or post id>,
                            discussion_id, created, active}
    confirmed_addresses    {_id: <address>, confirmed: <when>}

A subscription's `_id` is derived from what it is about, so subscribing twice (two
workers at once, a form sent again) writes one document without a compound unique
index. A member's subscription (user_id set) uses their account's address and needs
no confirmation; an anonymous commenter's gets mail only once its address is
confirmed (`deliverable`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime

from bson import ObjectId
from django.core import signing
from pymongo import ASCENDING, IndexModel
from pymongo.database import Database

from infra.mongo import get_db

REPLIES, DISCUSSION = "replies", "discussion"
KINDS = (REPLIES, DISCUSSION)

SUBSCRIPTION_INDEXES = [
    IndexModel([("kind", ASCENDING), ("target", ASCENDING)], name="kind_target"),
    IndexModel([("email", ASCENDING), ("created", ASCENDING)], name="email_created"),
]


def ensure_indexes(db: Database) -> list[str]:
    return db.comment_subscriptions.create_indexes(SUBSCRIPTION_INDEXES)


def normalise(email: str) -> str:
    """One spelling per address: trimmed and lower case."""
    return str(email).strip().lower()


@dataclass(frozen=True)
class Subscription:
    id: str
    email: str
    user_id: int | None
    kind: str
    target: ObjectId
    discussion_id: ObjectId
    created: datetime
    active: bool
    # The language the subscriber used the site in (their mails are written in it).
    language: str = ""

    @classmethod
    def from_doc(cls, doc: dict) -> Subscription:
        return cls(id=doc["_id"], email=doc["email"], user_id=doc.get("user_id"), kind=doc["kind"],
                   target=doc["target"], discussion_id=doc["discussion_id"], created=doc["created"],
                   active=bool(doc.get("active")), language=doc.get("language") or "")

    @property
    def member(self) -> bool:
        return self.user_id is not None


def subscription_id(*, kind: str, target: ObjectId, email: str) -> str:
    digest = hashlib.sha256(f"{kind}\x00{target}\x00{normalise(email)}".encode()).hexdigest()
    return digest[:32]


def subscribe(*, kind: str, target: ObjectId, discussion_id: ObjectId, email: str,
              user_id: int | None = None, language: str = "", now: datetime | None = None) -> Subscription:
    """Subscribe `email` to replies to a comment (`target`: its id) or to a whole
    discussion (`target`: the post's id); idempotent, and it revives one unsubscribed.
    `language` (when given) is the one its mails are written in."""
    if kind not in KINDS:
        raise ValueError(f"unknown subscription kind {kind!r}")
    email = normalise(email)
    sid = subscription_id(kind=kind, target=target, email=email)
    get_db().comment_subscriptions.update_one(
        {"_id": sid},
        {"$set": {"active": True, "user_id": user_id, **({"language": str(language)} if language else {})},
         "$setOnInsert": {"email": email, "kind": kind, "target": target, "discussion_id": discussion_id,
                          "created": now or datetime.now(UTC)}},
        upsert=True,
    )
    return find(sid)


def find(subscription_id: str) -> Subscription | None:
    doc = get_db().comment_subscriptions.find_one({"_id": str(subscription_id)})
    return Subscription.from_doc(doc) if doc else None


def unsubscribe(subscription_id: str) -> Subscription | None:
    """Stop this subscription (kept, inactive, so a link in an old mail still answers);
    the subscription, or None when there is no such one."""
    get_db().comment_subscriptions.update_one({"_id": str(subscription_id)}, {"$set": {"active": False}})
    return find(subscription_id)


def unsubscribe_all(*, email: str) -> int:
    """Stop every subscription of this address; how many were active."""
    result = get_db().comment_subscriptions.update_many(
        {"email": normalise(email), "active": True}, {"$set": {"active": False}}
    )
    return result.modified_count


def active_for(*, kind: str, target: ObjectId) -> list[Subscription]:
    """The active subscriptions to replies to a comment, or to a discussion."""
    docs = get_db().comment_subscriptions.find({"kind": kind, "target": target, "active": True})
    return [Subscription.from_doc(doc) for doc in docs]


def of_address(*, email: str) -> list[Subscription]:
    """Every active subscription of this address, oldest first."""
    docs = get_db().comment_subscriptions.find({"email": normalise(email), "active": True}).sort("created", 1)
    return [Subscription.from_doc(doc) for doc in docs]


# --- Confirmed addresses -----------------------------------------------------------------


def confirm(*, email: str, now: datetime | None = None) -> None:
    """Record that the owner of `email` followed its confirmation link (idempotent)."""
    get_db().confirmed_addresses.update_one(
        {"_id": normalise(email)}, {"$setOnInsert": {"confirmed": now or datetime.now(UTC)}}, upsert=True
    )


def is_confirmed(email: str) -> bool:
    if not email:
        return False
    return get_db().confirmed_addresses.find_one({"_id": normalise(email)}, {"_id": 1}) is not None


def deliverable(subscription: Subscription) -> bool:
    """Whether mail may go to this subscription now: active, and a member's, or to a
    confirmed address."""
    return subscription.active and (subscription.member or is_confirmed(subscription.email))


# --- Signed links --------------------------------------------------------------------------
# Django's signing with a salt per purpose: a link for one purpose never works for another.

CONFIRM_SALT = "comments.subscriptions.confirm"
UNSUBSCRIBE_SALT = "comments.subscriptions.unsubscribe"
MANAGE_SALT = "comments.subscriptions.manage"


def confirm_token(email: str) -> str:
    return signing.dumps(normalise(email), salt=CONFIRM_SALT)


def read_confirm_token(token: str, *, max_age: float) -> str | None:
    """The address a confirmation link names; None when it is forged or too old."""
    return _read(token, salt=CONFIRM_SALT, max_age=max_age)


def unsubscribe_token(subscription_id: str) -> str:
    return signing.dumps(str(subscription_id), salt=UNSUBSCRIBE_SALT)


def read_unsubscribe_token(token: str) -> str | None:
    """The subscription a one-click unsubscribe link names (it works as long as the
    mail it came in is kept); None when forged."""
    return _read(token, salt=UNSUBSCRIBE_SALT, max_age=None)


def manage_token(email: str) -> str:
    return signing.dumps(normalise(email), salt=MANAGE_SALT)


def read_manage_token(token: str) -> str | None:
    return _read(token, salt=MANAGE_SALT, max_age=None)


def _read(token: str, *, salt: str, max_age: float | None) -> str | None:
    try:
        value = signing.loads(str(token), salt=salt, max_age=max_age)
    except signing.BadSignature:
        return None
    return value if isinstance(value, str) else None
