"""The `comment_blocklist` collection: blocked words, blocked e-mail domains and
banned commenters. The only module that touches it.

    {_id, kind: "word" | "domain" | "user" | "email" | "ip", value, added, added_by}

Words and domains send a new or edited comment to the moderation queue (editors
manage them in the dashboard); a banned commenter (by user id, e-mail address or IP
address) cannot post at all. Values are stored normalised (`normalise`), so matching ignores case and spelling.

Why MongoDB and not Django's database: the posting service reads the list on every
comment it stores, and that service runs wherever comments are written (the site,
demo content, bulk loaders, tests) with MongoDB and without needing Django's
database; the list also travels with the comments it judges when the MongoDB
database is copied. It is small: one indexed query reads the words, the domains and
only the bans that concern the commenter at hand.

Index: `{kind, value}` unique, so adding an entry twice is harmless, even from two
editors at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from bson import ObjectId
from pymongo import ASCENDING, IndexModel
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError

from comments import addresses
from infra.ids import parse_id
from infra.mongo import get_db
from infra.racing_inserts import insert_one_racing

WORD, DOMAIN = "word", "domain"
BAN_USER, BAN_EMAIL, BAN_IP = "user", "email", "ip"
# What editors edit in the dashboard's blocklist; bans come from the queue's Ban action.
TERMS = (WORD, DOMAIN)
BANS = (BAN_USER, BAN_EMAIL, BAN_IP)
KINDS = TERMS + BANS

INDEXES = [IndexModel([("kind", ASCENDING), ("value", ASCENDING)], unique=True, name="kind_value")]


def ensure_indexes(db: Database) -> list[str]:
    return db.comment_blocklist.create_indexes(INDEXES)


@dataclass(frozen=True)
class Entry:
    id: ObjectId
    kind: str
    value: str
    added: datetime
    added_by: str

    @classmethod
    def from_doc(cls, doc: dict) -> Entry:
        return cls(id=doc["_id"], kind=doc["kind"], value=doc["value"], added=doc["added"],
                   added_by=doc.get("added_by", ""))


@dataclass(frozen=True)
class Screening:
    """What the blocklist says about one comment's author: the blocked words and
    domains to check the comment against, and whether the author is banned."""

    words: tuple[str, ...]
    domains: tuple[str, ...]
    banned: bool


def normalise(kind: str, value: str) -> str:
    """How a value is stored and compared: an e-mail address or a domain as mail is
    delivered to it (comments/addresses.py: "@ｓpamco.test" is "spamco.test"),
    anything else trimmed and in lower case. Words are matched by their look-alike
    keys (comments/posting/antispam.py), so "casino" also catches "ｃａｓｉｎｏ"."""
    if kind == DOMAIN:
        return addresses.normalise_domain(value)
    if kind == BAN_EMAIL:
        return addresses.normalise(value)
    return " ".join(str(value).split()).lower()


def add_entry(*, kind: str, value: str, added_by: str = "") -> bool:
    """Add an entry; False if it was there already."""
    if kind not in KINDS:
        raise ValueError(f"no blocklist kind {kind!r}")
    doc = {"kind": kind, "value": normalise(kind, value), "added": datetime.now(timezone.utc),
           "added_by": str(added_by)}
    try:
        insert_one_racing(get_db().comment_blocklist, doc, key={"kind": kind, "value": doc["value"]})
    except DuplicateKeyError:
        return False
    return True


def _entry_id(value: object) -> ObjectId | None:
    """An entry's id from a URL or form value; None if it is not one."""
    return parse_id(value)


def remove_entry(*, entry_id: object) -> bool:
    """Remove an entry by id; False if there was none."""
    oid = _entry_id(entry_id)
    return oid is not None and get_db().comment_blocklist.delete_one({"_id": oid}).deleted_count == 1


def remove_value(*, kind: str, value: str) -> bool:
    """Remove the entry of this kind and value; False if there was none."""
    return get_db().comment_blocklist.delete_one({"kind": kind, "value": normalise(kind, value)}).deleted_count == 1


def find_entry(*, entry_id: object) -> Entry | None:
    """The entry with this id, or None (also for a malformed id)."""
    oid = _entry_id(entry_id)
    doc = get_db().comment_blocklist.find_one({"_id": oid}) if oid is not None else None
    return Entry.from_doc(doc) if doc else None


def find_entries(*, kinds: tuple[str, ...] = KINDS) -> list[Entry]:
    """The entries of these kinds, by kind and value."""
    cursor = get_db().comment_blocklist.find({"kind": {"$in": list(kinds)}}).sort(
        [("kind", ASCENDING), ("value", ASCENDING)]
    )
    return [Entry.from_doc(doc) for doc in cursor]


def screen(*, user_id: int | None, email: str, ip: str | None) -> Screening:
    """The words, the domains, and whether this commenter is banned: one query.

    A signed-in member is banned only by their account: an address ban (a shared
    office or café address) never reaches members or editors, nor does an e-mail
    address someone else typed."""
    either: list[dict] = [{"kind": {"$in": list(TERMS)}}]
    if user_id is not None:
        either.append({"kind": BAN_USER, "value": str(int(user_id))})
        email, ip = "", None
    if email:
        either.append({"kind": BAN_EMAIL, "value": normalise(BAN_EMAIL, email)})
    if ip:
        either.append({"kind": BAN_IP, "value": normalise(BAN_IP, ip)})
    words, domains, banned = [], [], False
    for doc in get_db().comment_blocklist.find({"$or": either}, {"kind": 1, "value": 1}):
        if doc["kind"] == WORD:
            words.append(doc["value"])
        elif doc["kind"] == DOMAIN:
            domains.append(doc["value"])
        else:
            banned = True
    return Screening(words=tuple(words), domains=tuple(domains), banned=banned)
