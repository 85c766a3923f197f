"""The `comment_votes` collection: readers' votes on comments, the source of truth
of every comment's tallies. The only module that touches it.

    {_id: "<comment id>:<voter>", comment_id, discussion_id, slug, voter,
     value: 1 | -1 | 0, unapplied, changed}

One document per (comment, voter): its `_id` names both, so the server's unique
`_id` index keeps one per pair (FerretDB v2 aborts racing inserts into a compound
unique index as deadlocks; `_id` answers DuplicateKeyError). `voter` is `u:<user id>`
for a member and `b:<key>` for a browser (its signed voter cookie). `value` 0 is a
vote taken back.

Casting a vote (`cast`), with no transaction:
1. the document is created with value 0 if there is none (an insert; a racing
   second insert meets the `_id` and is ignored);
2. one `find_one_and_update` whose filter says the value differs from the new one
   sets it and adds one to `unapplied`, returning the document before: of two tabs
   sending the same vote at once exactly one matches, and only it moves anything;
3. the store `$inc`s the comment's tallies by the difference (scores.change_of),
   and its ranking key follows (CommentStore.increment_votes);
4. `unapplied` goes back down by one.
Every change of a value moves the tallies by exactly its difference, in whatever
order writers interleave, so the tallies equal the sums of the values. A crash
between 2 and 3 leaves `unapplied` above 0: `repair_votes` (`find_drift`, `repair`)
finds such comments and sets their tallies from the documents. A comment with no vote
documents at all keeps the tallies it came with (an import of another site's export,
which carries tallies but not who voted).

Indexes: `_id` (one vote per pair), `{discussion_id, voter}` (a reader's votes on a
page, a discussion's tallies for repairs), `{comment_id}` (a comment's votes, for
repairs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bson import ObjectId
from pymongo import ASCENDING, IndexModel, ReturnDocument, UpdateOne
from pymongo.collection import Collection
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError

from comments import scores
from comments.records import Comment
from comments.stores import Query, get_store, store_switch
from comments.stores.bulk_writes import Transition, increment_many, transition_many
from infra.mongo import get_db, replace_indexes

INDEXES = [
    IndexModel([("discussion_id", ASCENDING), ("voter", ASCENDING)], name="discussion_voter"),
    IndexModel([("comment_id", ASCENDING)], name="comment"),
]
# No query reads votes by `unapplied` (a repair finds them per discussion, `counted`):
# `ensure_indexes` drops the index once made for it.
RETIRED = ("unapplied",)
# A reader's votes fetched for one page at most (their votes on a discussion).
MAX_OWN_VOTES = 5000
# A vote changed this recently may still be on its way to the tallies: repairs leave
# its comment alone (run again later).
SETTLE_SECONDS = 60


@dataclass(frozen=True)
class Cast:
    """What a vote did: the reader's vote now (`up`, `down` or `none`), whether it
    changed anything, and the comment as it is after."""

    vote: str
    changed: bool
    comment: Comment


def _votes() -> Collection:
    return get_db().comment_votes


def ensure_indexes(db: Database) -> list[str]:
    return replace_indexes(db.comment_votes, INDEXES, retired=RETIRED)


def vote_id(comment_id: ObjectId, voter: str) -> str:
    return f"{comment_id}:{voter}"


def name_of(value: int) -> str:
    return {1: "up", -1: "down"}.get(int(value), "none")


def cast(*, comment: Comment, voter: str, vote: str, now: datetime | None = None) -> Cast:
    """Record `voter`'s `vote` (up, down, none) on `comment` and move its tallies
    exactly once (module docstring). The checks of who may vote are the caller's."""
    value = scores.VALUES[vote]
    # Refused before anything is written while a migration freezes the store.
    store_switch.check_writable(get_store().name)
    key = vote_id(comment.id, str(voter))
    when = now or datetime.now(UTC)
    try:
        _votes().insert_one({"_id": key, "comment_id": comment.id, "discussion_id": comment.discussion_id,
                             "slug": comment.slug, "voter": str(voter), "value": 0, "unapplied": 0,
                             "changed": when})
    except DuplicateKeyError:
        pass  # voted before (or another tab is creating it right now): step 2 decides
    before = _votes().find_one_and_update(
        {"_id": key, "value": {"$ne": value}},
        {"$set": {"value": value, "changed": when}, "$inc": {"unapplied": 1}},
        projection={"value": 1}, return_document=ReturnDocument.BEFORE,
    )
    if before is None:
        current = get_store().find_by_slug(discussion_id=comment.discussion_id, slug=comment.slug) or comment
        return Cast(vote=vote, changed=False, comment=current)
    up, down = scores.change_of(int(before.get("value") or 0), value)
    after = get_store().increment_votes(comment=comment, up=up, down=down)
    _votes().update_one({"_id": key}, {"$inc": {"unapplied": -1}})
    return Cast(vote=vote, changed=True, comment=after or comment)


def votes_of(*, discussion_id: ObjectId, voter: str) -> dict[str, str]:
    """`voter`'s votes on a discussion, by comment slug (`up` or `down`; none left out)."""
    found = _votes().find({"discussion_id": discussion_id, "voter": str(voter), "value": {"$ne": 0}},
                          {"slug": 1, "value": 1, "_id": 0}, hint="discussion_voter").limit(MAX_OWN_VOTES)
    return {doc["slug"]: name_of(doc["value"]) for doc in found}


def vote_of(*, comment: Comment, voter: str) -> str:
    """`voter`'s vote on one comment: up, down or none."""
    doc = _votes().find_one({"_id": vote_id(comment.id, str(voter))}, {"value": 1})
    return name_of(doc["value"]) if doc else "none"


# --- Drift between the documents and the tallies: repair_votes -------------------------------


@dataclass(frozen=True)
class Drift:
    """A comment whose stored tallies (or ranking key) are not what its votes say."""

    comment: Comment
    up: int
    down: int
    # A vote on it changed within SETTLE_SECONDS: it may be on its way; left alone.
    settling: bool = False

    @property
    def rank_only(self) -> bool:
        return (self.comment.votes_up, self.comment.votes_down) == (self.up, self.down)


def counted(*, discussion_id: ObjectId) -> dict[ObjectId, tuple[int, int, datetime | None]]:
    """Each voted comment of a discussion: its (up, down) summed from the documents and
    when a still-unapplied vote on it last changed (None if none is)."""
    groups = _votes().aggregate([
        {"$match": {"discussion_id": discussion_id}},
        {"$group": {"_id": "$comment_id",
                    "up": {"$sum": {"$cond": [{"$eq": ["$value", 1]}, 1, 0]}},
                    "down": {"$sum": {"$cond": [{"$eq": ["$value", -1]}, 1, 0]}},
                    "unapplied": {"$sum": "$unapplied"},
                    "changed": {"$max": {"$cond": [{"$gt": ["$unapplied", 0]}, "$changed", None]}}}},
    ])
    return {g["_id"]: (g["up"], g["down"], g["changed"] if g["unapplied"] else None) for g in groups}


def find_drift(*, discussion_ids: Iterable[ObjectId] | None = None, now: datetime | None = None) -> Iterator[Drift]:
    """Every comment whose tallies, score or rank disagree with the vote documents (or
    that lacks the vote fields, stored before votes existed), one discussion at a time."""
    store = get_store()
    settle_after = (now or datetime.now(UTC)) - timedelta(seconds=SETTLE_SECONDS)
    for discussion_id in discussion_ids if discussion_ids is not None else store.discussion_ids():
        truth = counted(discussion_id=discussion_id)
        for document in store.iter_documents(discussion_id=discussion_id):
            comment = Comment.from_doc(document)
            # No vote documents at all: tallies imported with the comment (an export of
            # another site) stand on their own; only the keys must agree with them.
            own = (comment.votes_up, comment.votes_down, None)
            up, down, unapplied_since = truth.get(comment.id, own)
            missing = any(name not in document for name in ("votes", "score", "rank", "picked"))
            right = (comment.votes_up, comment.votes_down, comment.score) == (up, down, up - down) and (
                comment.rank == scores.wilson_lower_bound(up, down))
            if right and not missing:
                continue
            settling = unapplied_since is not None and _aware(unapplied_since) > settle_after
            yield Drift(comment=comment, up=up, down=down, settling=settling)


def repair(drift: Drift) -> bool:
    """Bring one comment's tallies to what its votes say (by `$inc` of the difference,
    so a vote landing meanwhile still counts) and its key with them; its votes are
    then applied. False for a comment left alone (settling) or gone."""
    if drift.settling:
        return False
    store = get_store()
    comment = drift.comment
    one = Query(discussion_id=comment.discussion_id, ids=frozenset({comment.id}))
    store.change(one, fields={"picked": comment.picked})  # the field, if it was missing
    up, down = drift.up - comment.votes_up, drift.down - comment.votes_down
    if store.increment_votes(comment=comment, up=up, down=down, always=True) is None:
        return False
    _votes().update_many({"comment_id": comment.id, "unapplied": {"$gt": 0}}, {"$set": {"unapplied": 0}})
    return True


@dataclass(frozen=True)
class Repaired:
    """What `repair_all` found: comments that drifted, those put right, those left alone."""

    found: int
    fixed: int
    settling: int


def repair_all(*, check: bool = False, each: Callable[[Drift], object] = lambda drift: None) -> Repaired:
    """Every comment that drifts from its votes (`find_drift`) put right (`repair`), but
    for those voted on just now (settling) or with `check`; `each` is told of every one."""
    found = fixed = settling = 0
    for drift in find_drift():
        found += 1
        each(drift)
        if drift.settling:
            settling += 1
        elif not check and repair(drift):
            fixed += 1
    return Repaired(found=found, fixed=fixed, settling=settling)


def _aware(when: datetime) -> datetime:
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def by_voter(*, voter: str, batch_size: int = 500) -> Iterator[dict]:
    """Every vote of one voter that still counts (value not 0), oldest change first, read
    in batches (a member's data download): the comment, its discussion, up or down and
    when. No index leads with `voter`: the server reads the collection once."""
    found = _votes().find({"voter": str(voter), "value": {"$ne": 0}},
                          {"comment_id": 1, "discussion_id": 1, "value": 1, "changed": 1}, batch_size=batch_size)
    for doc in found.sort([("changed", ASCENDING), ("_id", ASCENDING)]):
        yield {"comment_id": doc["comment_id"], "discussion_id": doc["discussion_id"],
               "vote": name_of(doc["value"]), "changed": doc.get("changed")}


# --- An erased member's votes (comments/erasure/) ---------------------------------------------


def counting_ids(*, voter: str, limit: int) -> list[str]:
    """The `_id`s of up to `limit` of `voter`'s votes that still count (value not 0)."""
    found = _votes().find({"voter": str(voter), "value": {"$ne": 0}}, {"_id": 1}).limit(max(1, limit))
    return [doc["_id"] for doc in found]


def withdraw(*, vote_ids: Iterable[str], now: datetime | None = None) -> set[ObjectId]:
    """Take these votes back (an erased member's), each from its comment's tallies
    exactly once, a batch at a time: the steps of `cast` each for all at once (one
    bulk write sets the values to 0 and raises `unapplied`, one per store moves the
    tallies by each comment's sum, one sets the ranking keys for the tallies read
    back, one lowers `unapplied`), then the records go. Run again after an
    interruption, a vote taken back already moves nothing; one left between its value
    and its tallies (`unapplied` above 0) has its comment's tallies set from the
    documents (`repair`). The discussions whose tallies moved."""
    ids = list(vote_ids)
    found = list(_votes().find({"_id": {"$in": ids}}, {"comment_id": 1, "discussion_id": 1, "value": 1,
                                                     "unapplied": 1}))
    live = [doc for doc in found if doc.get("value")]
    cut_short = {doc["comment_id"] for doc in found if not doc.get("value") and int(doc.get("unapplied") or 0) > 0}
    when = now or datetime.now(UTC)
    when = when.replace(microsecond=when.microsecond // 1000 * 1000)  # as stored: read back by it
    if live:
        _votes().bulk_write([UpdateOne({"_id": doc["_id"], "value": doc["value"]},
                                       {"$set": {"value": 0, "changed": when}, "$inc": {"unapplied": 1}})
                             for doc in live], ordered=False)
        marked = {doc["_id"] for doc in _votes().find({"_id": {"$in": [d["_id"] for d in live]}, "value": 0,
                                                       "changed": when}, {"_id": 1})}
        _untally([doc for doc in live if doc["_id"] in marked])
        _votes().update_many({"_id": {"$in": sorted(marked)}, "unapplied": {"$gt": 0}}, {"$inc": {"unapplied": -1}})
    moved = {doc["discussion_id"] for doc in live}
    for comment in get_store().find_by_ids(ids=cut_short):
        repair(Drift(comment=comment, up=_summed(comment.id, 1), down=_summed(comment.id, -1)))
        moved.add(comment.discussion_id)
    _votes().delete_many({"_id": {"$in": ids}, "unapplied": {"$lte": 0}})
    return moved


def _summed(comment_id: ObjectId, value: int) -> int:
    return _votes().count_documents({"comment_id": comment_id, "value": value})


def _untally(docs: list[dict]) -> None:
    """Take these votes (their documents as read before) off their comments' tallies:
    one `$inc` per comment of its sum, then its ranking key for the tallies read back."""
    store = get_store()
    sums: dict[ObjectId, tuple[int, int]] = {}
    for doc in docs:
        up, down = scores.change_of(int(doc["value"]), 0)
        was = sums.get(doc["comment_id"], (0, 0))
        sums[doc["comment_id"]] = (was[0] + up, was[1] + down)
    increment_many(store, [(c, {"votes.up": sums[c.id][0], "votes.down": sums[c.id][1],
                                "score": sums[c.id][0] - sums[c.id][1]}) for c in store.find_by_ids(ids=sums)])
    reranked: list[Transition] = []
    for current in store.find_by_ids(ids=sums):
        score = current.votes_up - current.votes_down
        rank = scores.wilson_lower_bound(current.votes_up, current.votes_down)
        if rank != current.rank or score != current.score:
            reranked.append((current, {"votes.up": current.votes_up, "votes.down": current.votes_down},
                             {"rank": rank, "score": score}))
    transition_many(store, reranked)
