"""Where each imported comment went: the collection `comment_imports` (owned here),
one entry per source comment, `_id` = "<source>:<id>" (no extra index). It makes an
import resumable and idempotent: a second run skips what is there and finds the
parents of late replies without scanning any store; a run stopped half-way is
completed by the next. An imported comment's `_id` and slug part derive from the same
pair (`imported_id`, `ledger_key`), so a second copy is refused by the store's unique
slug index whatever happens.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from bson import ObjectId
from pymongo.collection import Collection

from comments import slugs
from infra.mongo import get_db
from infra.racing_inserts import insert_many_keeping

# Source ids asked for in one query.
LOOK_UP_BATCH = 500


@dataclass(frozen=True)
class Placed:
    """Where a source comment is (or, dry, would be): what its replies need."""

    discussion_id: ObjectId
    ids: tuple[ObjectId, ...]  # the comment's own id last, its ancestors' before, root first
    slug: str
    full_slug: str
    hidden: bool = False  # it or one of its ancestors is hidden (pending, spam, deleted)

    @property
    def comment_id(self) -> ObjectId:
        return self.ids[-1]

    def within_depth(self, limit: int) -> Placed | None:
        """This comment, or its ancestor at the deepest level a reply may have under
        the site's `limit` (None: the site takes no replies)."""
        if slugs.depth(self.slug) < limit:
            return self
        if limit == 0:
            return None
        cut = slugs.SEPARATOR.join
        return Placed(self.discussion_id, self.ids[:limit], cut(self.slug.split(slugs.SEPARATOR)[:limit]),
                      cut(self.full_slug.split(slugs.SEPARATOR)[:limit]), self.hidden)


def ledger() -> Collection:
    """The collection `comment_imports`: where each imported comment went."""
    return get_db().comment_imports


def ledger_key(source: str, source_id: str) -> str:
    return f"{source}:{source_id}"


def imported_id(*, source: str, source_id: str, posted: datetime) -> ObjectId:
    """The `_id` an imported comment gets: the same on every run, ordered by its time
    like any ObjectId (its first four bytes are the time, the rest a hash of its
    source and id)."""
    seconds = int(posted.timestamp()) & 0xFFFFFFFF
    digest = hashlib.blake2b(ledger_key(source, source_id).encode(), digest_size=8).digest()
    return ObjectId(seconds.to_bytes(4, "big") + digest)


def record(*, source: str, placed: Iterable[tuple[str, Placed]]) -> None:
    """Note where these source comments (source id, where it went) went: one unordered
    insert. An entry that is there already is kept as it is (it names the comment the
    store holds: a file's second copy of a comment was refused as a duplicate)."""
    entries = [{"_id": ledger_key(source, source_id), "discussion_id": where.discussion_id, "ids": list(where.ids),
                "slug": where.slug, "full_slug": where.full_slug, "hidden": where.hidden}
               for source_id, where in placed]
    insert_many_keeping(ledger(), entries)


def look_up(*, source: str, source_ids: list[str]) -> dict[str, Placed]:
    """Where the ledger says these source comments went (those it knows)."""
    wanted = sorted(set(source_ids))
    found = {}
    for start in range(0, len(wanted), LOOK_UP_BATCH):
        keys = [ledger_key(source, i) for i in wanted[start:start + LOOK_UP_BATCH]]
        for entry in ledger().find({"_id": {"$in": keys}}):
            source_id = entry["_id"].removeprefix(f"{source}:")
            found[source_id] = Placed(entry["discussion_id"], tuple(entry["ids"]), entry["slug"],
                                      entry["full_slug"], entry.get("hidden", True))
    return found
