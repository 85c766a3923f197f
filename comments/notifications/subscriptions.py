"""The `comment_subscriptions` collection: who asked for mail about what (the
addresses their owners confirmed: comments/posting/confirmed.py). The only module
that touches it.

    comment_subscriptions  {_id: "<hash of kind, target, address>", email, user_id,
                            kind: "replies" | "discussion" | "branch", target: <comment or post id>,
                            full_slug: <a branch's root comment's, for "branch">,
                            discussion_id, created, active, language,
                            requested: <when someone asked, awaiting its owner>,
                            confirmed: <when its owner confirmed it>,
                            stopped: <when its owner unsubscribed>}

A "branch" subscription follows a comment and every reply below it. The followers of
a new comment are found with one query of its lineage (`branch_followers`):
`{discussion_id, kind: "branch", full_slug: {$in: <its ancestors' full_slugs>}}` on
the `discussion_kind_full_slug` index, which carries the discussion id (the shard
key), so it stays on one shard however deep the comment and whatever the store.

A subscription's `_id` is derived from what it is about, so subscribing twice (two
workers at once, a form sent again) writes one document without a compound unique
index. Addresses are normalised (comments/addresses.py) before anything here sees
them.

Who may start mail to an address is its owner alone, subscription by subscription:
a member (their account's address), a browser that carries the address's
confirmation (a signed cookie set when it followed a confirmation link:
comments/posting/ownership.py), or the owner following the confirmation link mailed for
this very request. Anyone else who types the address only records a request
(`requested`), which sends nothing until the owner confirms it; so a request never
switches back on a subscription its owner stopped either. `active` is true exactly
when mail goes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from bson import ObjectId
from django.core import signing
from pymongo import ASCENDING, IndexModel
from pymongo.database import Database

from comments import slugs
from comments.addresses import normalise
from infra.mongo import get_db

REPLIES, DISCUSSION, BRANCH = "replies", "discussion", "branch"
KINDS = (REPLIES, DISCUSSION, BRANCH)
BRANCH_FOLLOWERS = "discussion_kind_full_slug"
# How many waiting requests a confirmation page lists (and confirms) at most.
PENDING_SHOWN = 50

SUBSCRIPTION_INDEXES = [
    IndexModel([("kind", ASCENDING), ("target", ASCENDING)], name="kind_target"),
    IndexModel([("email", ASCENDING), ("created", ASCENDING)], name="email_created"),
    IndexModel([("discussion_id", ASCENDING), ("kind", ASCENDING), ("full_slug", ASCENDING)],
               name=BRANCH_FOLLOWERS),
]


def ensure_indexes(db: Database) -> list[str]:
    return db.comment_subscriptions.create_indexes(SUBSCRIPTION_INDEXES)


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
    # When its owner confirmed it (None: never; a subscription stored before
    # subscriptions were confirmed one by one was never confirmed).
    confirmed: datetime | None = None
    # When someone asked for it with this address, awaiting the owner's confirmation.
    requested: datetime | None = None
    # A branch's: the full_slug of the comment it follows ("" for other kinds).
    full_slug: str = ""

    @classmethod
    def from_doc(cls, doc: dict) -> Subscription:
        return cls(id=doc["_id"], email=doc["email"], user_id=doc.get("user_id"), kind=doc["kind"],
                   target=doc["target"], discussion_id=doc["discussion_id"], created=doc["created"],
                   active=bool(doc.get("active")), language=doc.get("language") or "",
                   confirmed=doc.get("confirmed"), requested=doc.get("requested"),
                   full_slug=doc.get("full_slug") or "")

    @property
    def member(self) -> bool:
        return self.user_id is not None

    @property
    def pending(self) -> bool:
        """Asked for and not confirmed by its owner yet."""
        return not self.active and self.requested is not None


def subscription_id(*, kind: str, target: ObjectId, email: str) -> str:
    digest = hashlib.sha256(f"{kind}\x00{target}\x00{normalise(email)}".encode()).hexdigest()
    return digest[:32]


def subscribe(*, kind: str, target: ObjectId, discussion_id: ObjectId, email: str,
              user_id: int | None = None, owner: bool = False, language: str = "",
              now: datetime | None = None, full_slug: str = "") -> Subscription:
    """Subscribe `email` to replies to a comment (`target`: its id) or to a whole
    discussion (`target`: the discussion id); idempotent. By its `owner` (a member's
    account address, `user_id` set, or a browser carrying the address's
    confirmation) it starts mail at once, also after an unsubscribe; by anyone else
    it is a request that waits for the owner's confirmation (`confirm_requests`).
    `language` (when given) is the one its mails are written in; a BRANCH
    subscription (`target`: the comment) names the comment's `full_slug`."""
    if kind not in KINDS:
        raise ValueError(f"unknown subscription kind {kind!r}")
    email, now = normalise(email), now or datetime.now(UTC)
    sid = subscription_id(kind=kind, target=target, email=email)
    subscriptions = get_db().comment_subscriptions
    new = {"email": email, "kind": kind, "target": target, "discussion_id": discussion_id, "created": now,
           **({"full_slug": str(full_slug)} if kind == BRANCH else {})}
    spoken = {"language": str(language)} if language else {}
    if owner or user_id is not None:
        subscriptions.update_one(
            {"_id": sid},
            {"$set": {"active": True, "confirmed": now, "user_id": user_id, **spoken},
             "$unset": {"requested": "", "stopped": ""}, "$setOnInsert": new},
            upsert=True,
        )
        return _stored(sid)
    result = subscriptions.update_one(
        {"_id": sid},
        {"$setOnInsert": {**new, "active": False, "user_id": None, "requested": now, **spoken}},
        upsert=True,
    )
    if result.upserted_id is None:
        # Known already: a request waits on one that sends nothing; an active one stays as it is.
        subscriptions.update_one({"_id": sid, "active": False}, {"$set": {"requested": now}})
    return _stored(sid)


def _stored(subscription_id: str) -> Subscription:
    """The subscription just written (by an upsert: subscriptions are never deleted)."""
    found = find(subscription_id)
    if found is None:  # pragma: no cover - only if someone drops it by hand meanwhile
        raise LookupError(f"subscription {subscription_id!r} vanished as it was written")
    return found


def find(subscription_id: str) -> Subscription | None:
    doc = get_db().comment_subscriptions.find_one({"_id": str(subscription_id)})
    return Subscription.from_doc(doc) if doc else None


def unsubscribe(subscription_id: str) -> Subscription | None:
    """Stop this subscription (kept, inactive, so a link in an old mail still answers);
    the subscription, or None when there is no such one."""
    get_db().comment_subscriptions.update_one(
        {"_id": str(subscription_id)},
        {"$set": {"active": False, "stopped": datetime.now(UTC)}, "$unset": {"requested": ""}},
    )
    return find(subscription_id)


def unsubscribe_all(*, email: str) -> int:
    """Stop every subscription of this address, and drop its waiting requests; how
    many were active."""
    subscriptions = get_db().comment_subscriptions
    result = subscriptions.update_many(
        {"email": normalise(email), "active": True},
        {"$set": {"active": False, "stopped": datetime.now(UTC)}},
    )
    subscriptions.update_many({"email": normalise(email), "requested": {"$exists": True}},
                              {"$unset": {"requested": ""}})
    return result.modified_count


def forget(*, emails: Iterable[str], user_id: int) -> int:
    """Delete every subscription (active, stopped or requested) of these addresses or
    of this member: an erased account's; how many went."""
    wanted = [normalise(email) for email in emails]
    result = get_db().comment_subscriptions.delete_many({"$or": [{"email": {"$in": wanted}}, {"user_id": int(user_id)}]})
    return result.deleted_count


def active_for(*, kind: str, target: ObjectId) -> list[Subscription]:
    """The subscriptions to replies to a comment, or to a discussion, that get mail."""
    docs = get_db().comment_subscriptions.find({"kind": kind, "target": target, "active": True})
    return [found for found in map(Subscription.from_doc, docs) if deliverable(found)]


def branch_followers(*, discussion_id: ObjectId, full_slug: str) -> list[Subscription]:
    """The subscriptions that get mail about a new comment at `full_slug`: those that
    follow one of its ancestors. One indexed query of its lineage, on its discussion's shard."""
    lineage = slugs.lineage_full_slugs(full_slug)[:-1]
    if not lineage:
        return []
    docs = get_db().comment_subscriptions.find(
        {"discussion_id": discussion_id, "kind": BRANCH, "full_slug": {"$in": lineage}, "active": True}
    ).hint(BRANCH_FOLLOWERS)
    return [found for found in map(Subscription.from_doc, docs) if deliverable(found)]


def of_address(*, email: str) -> list[Subscription]:
    """Every active subscription of this address, oldest first."""
    docs = get_db().comment_subscriptions.find({"email": normalise(email), "active": True}).sort("created", 1)
    return [Subscription.from_doc(doc) for doc in docs]


def pending(*, email: str, before: datetime | None = None) -> list[Subscription]:
    """The requests with this address that wait for its owner (made at or before
    `before`, when given), oldest first, at most PENDING_SHOWN."""
    query: dict = {"email": normalise(email), "active": False, "requested": {"$exists": True}}
    if before is not None:
        query["requested"] = {"$lte": before}
    docs = get_db().comment_subscriptions.find(query).sort("created", 1).limit(PENDING_SHOWN)
    return [Subscription.from_doc(doc) for doc in docs]


def confirm_requests(*, email: str, ids: Iterable[str], before: datetime, now: datetime | None = None) -> int:
    """The owner of `email` confirmed these waiting requests (those made at or before
    `before`: the time their confirmation mail was written): they get mail from now
    on. How many were confirmed."""
    chosen = [str(value) for value in ids][:PENDING_SHOWN]
    if not chosen:
        return 0
    result = get_db().comment_subscriptions.update_many(
        {"_id": {"$in": chosen}, "email": normalise(email), "active": False, "requested": {"$lte": before}},
        {"$set": {"active": True, "confirmed": now or datetime.now(UTC)}, "$unset": {"requested": "", "stopped": ""}},
    )
    return result.modified_count


def deliverable(subscription: Subscription) -> bool:
    """Whether mail may go to this subscription now: active, and a member's or
    confirmed by its owner."""
    return subscription.active and (subscription.member or subscription.confirmed is not None)


# --- Signed links --------------------------------------------------------------------------
# Django's signing with a salt per purpose: a link for one purpose never works for another.

CONFIRM_SALT = "comments.subscriptions.confirm"
UNSUBSCRIBE_SALT = "comments.subscriptions.unsubscribe"
MANAGE_SALT = "comments.subscriptions.manage"


def confirm_token(email: str, *, now: datetime | None = None) -> str:
    """A confirmation link's token: the address, and when its mail was written (what
    it confirms is the requests made until then)."""
    # In milliseconds, as MongoDB stores the requests' times.
    issued = int((now or datetime.now(UTC)).timestamp() * 1000)
    return signing.dumps({"e": normalise(email), "t": issued}, salt=CONFIRM_SALT)


def read_confirm_token(token: str, *, max_age: float) -> tuple[str, datetime] | None:
    """The address a confirmation link names and when it was issued; None when it is
    forged, too old, or of the form links had before requests were confirmed one by
    one (it would confirm requests made after it)."""
    try:
        value = signing.loads(str(token), salt=CONFIRM_SALT, max_age=max_age)
    except signing.BadSignature:
        return None
    if not (isinstance(value, dict) and isinstance(value.get("e"), str) and isinstance(value.get("t"), int)):
        return None
    return value["e"], datetime.fromtimestamp(value["t"] / 1000, tz=UTC)


def unsubscribe_token(subscription_id: str) -> str:
    return signing.dumps(str(subscription_id), salt=UNSUBSCRIBE_SALT)


def read_unsubscribe_token(token: str) -> str | None:
    """The subscription a one-click unsubscribe link names (it works as long as the
    mail it came in is kept); None when forged."""
    return _read(token, salt=UNSUBSCRIBE_SALT, max_age=None)


def manage_token(email: str) -> str:
    return signing.dumps(normalise(email), salt=MANAGE_SALT)


def read_manage_token(token: str, *, max_age: float) -> str | None:
    """The address a "manage your subscriptions" link names; None when it is forged or
    older than `max_age` seconds (NOTIFICATIONS_MANAGE_MAX_AGE: a forwarded mail does
    not show someone's subscriptions for ever)."""
    return _read(token, salt=MANAGE_SALT, max_age=max_age)


def _read(token: str, *, salt: str, max_age: float | None) -> str | None:
    try:
        value = signing.loads(str(token), salt=salt, max_age=max_age)
    except signing.BadSignature:
        return None
    return value if isinstance(value, str) else None
