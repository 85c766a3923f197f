"""The `comments` collection: one document per comment (pattern 1 of
`storage-patterns.md`). The only module that touches it.

A document is exactly the pattern's, plus `thread` (the first part of
`full_slug`, for the newest-first view), `html` (the text rendered once at
write time) and the moderation fields:

    {_id, discussion_id, parent_id, slug, full_slug, thread, posted,
     author: {id, name, email, staff}, text, html, form_key,
     status, placeholder, ip, edited, flag_count,
     votes: {up, down}, score, rank, picked}

`status` is approved, pending, spam or deleted (a document without one, stored
before moderation existed or imported, counts as approved). `placeholder` is true
on a comment that is not approved but has approved replies: readers see it as
"[deleted]" so that its replies keep their place (comments.moderation keeps it
right). `ip` and `author.email` are for moderation only and never reach a reader's
page.

Readers' queries filter by status (`Viewer`) on top of the same indexes: the filter
is applied to the documents an index walk yields, in the index's order, so the
threaded order and keyset cursors stay exact, and since almost every comment is
approved it discards little.

Indexes (INDEXES; docs/comment-stores.md lists each with the queries that read it,
and tests/integration/comments/test_query_plans.py checks their plans): the pattern's
three (`{discussion_id, slug}` unique, `{discussion_id, full_slug}`, `{discussion_id,
posted, _id}`: `_id` makes keyset paging exact when two comments share a
millisecond), the newest view's `{discussion_id, thread: -1, full_slug}`, the best
and top views' first pages (of top-level comments), the moderation queue's tabs and
filters and a commenter's comments. Only the slug index is unique, so none stands in
the way of sharding on `{discussion_id: "hashed"}`.

Every write pays for an entry in each index that holds the comment, so the indexes
that serve a small part of the comments are partial (`partialFilterExpression`, which
MongoDB 6.0 and DocumentDB both take in the forms used here: a comparison, or
equality with null). A query reaches a partial index only when its filter implies
the index's, and DocumentDB only when the filter also bounds one of the index's keys
by a condition other than the index's own: so the flagged and down-voted tabs ask
for `flag_count >= 1` and `score <= -1` (comments/stores/queries.py), inside the
indexes' `> 0` and `< 0`. `_hint` names a partial index only for a query that
implies its filter: DocumentDB, hinted, reads the index even for a query it cannot
answer, and returns what it holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from typing import Any

from bson import ObjectId
from pymongo import ASCENDING, DESCENDING, IndexModel
from pymongo.collection import Collection
from pymongo.cursor import Cursor
from pymongo.database import Database
from pymongo.errors import BulkWriteError, DuplicateKeyError
from pymongo.write_concern import WriteConcern

from comments.stores import page_windows
from comments.records import HIDDEN, NEWEST, ORDERS, PENDING, RANKED_ORDERS, READERS, Comment, CommentAuthor
from comments.records import Commenter, SlugTaken, Tally, Viewer
from comments.stores.base import CommentStore
from comments.stores.queries import MEMBERS, Query, reverse
from infra.mongo import batch_for, get_db, replace_indexes
from infra.racing_inserts import insert_one_racing
from infra.sharding import ShardKey

SLUG_INDEX = "discussion_slug"
# What the partial indexes hold (module docstring). HELD: pending and spam, the statuses
# with a tab of their own (records.STATUSES sort approved < deleted < pending < spam; a
# comment without a status counts as approved and is not held).
ROOTS = {"parent_id": None}
HELD = {"status": {"$gte": PENDING}}
FLAGGED = {"flag_count": {"$gt": 0}}
DOWNVOTED = {"score": {"$lt": 0}}
MEMBERS_ONLY = {"author.id": {"$gt": 0}}
INDEXES = [
    IndexModel([("discussion_id", ASCENDING), ("slug", ASCENDING)], unique=True, name=SLUG_INDEX),
    IndexModel([("discussion_id", ASCENDING), ("full_slug", ASCENDING)], name="discussion_full_slug"),
    IndexModel([("discussion_id", ASCENDING), ("posted", ASCENDING), ("_id", ASCENDING)],
               name="discussion_posted"),
    IndexModel([("discussion_id", ASCENDING), ("thread", DESCENDING), ("full_slug", ASCENDING)],
               name="discussion_thread_newest"),
    # The ranked views' first pages: a discussion's top-level comments in each order.
    IndexModel(
        [("discussion_id", ASCENDING), ("picked", DESCENDING), ("rank", DESCENDING), ("posted", DESCENDING),
         ("_id", DESCENDING)],
        name="discussion_best_roots", partialFilterExpression=ROOTS,
    ),
    IndexModel(
        [("discussion_id", ASCENDING), ("score", DESCENDING), ("posted", DESCENDING), ("_id", DESCENDING)],
        name="discussion_top_roots", partialFilterExpression=ROOTS,
    ),
    # The moderation queue's tabs and filters, and commenters' comments (some partial).
    IndexModel([("status", ASCENDING), ("posted", DESCENDING), ("_id", DESCENDING)], name="queue_held",
               partialFilterExpression=HELD),
    IndexModel([("flag_count", DESCENDING), ("posted", DESCENDING), ("_id", DESCENDING)], name="queue_flagged",
               partialFilterExpression=FLAGGED),
    IndexModel([("score", ASCENDING), ("posted", DESCENDING), ("_id", DESCENDING)], name="queue_downvoted",
               partialFilterExpression=DOWNVOTED),
    IndexModel([("posted", DESCENDING), ("_id", DESCENDING)], name="queue_recent"),
    IndexModel([("author.email", ASCENDING), ("posted", DESCENDING)], name="author_email"),
    IndexModel([("author.id", ASCENDING), ("posted", DESCENDING), ("_id", DESCENDING)], name="member_posted",
               partialFilterExpression=MEMBERS_ONLY),
    IndexModel([("ip", ASCENDING), ("posted", DESCENDING)], name="ip"),
]
# Indexes this store made before and no longer has (issue 39: each held every comment
# for queries that read a few): `ensure_indexes` drops them from existing databases.
RETIRED = ("discussion_best", "discussion_top", "status_posted", "posted", "flagged", "downvoted", "author_id")
# The index of each queue tab (each tab's condition implies the index's filter:
# tests/unit/test_partial_indexes.py). The recent tab narrowed to a discussion or a
# commenter reads their index instead.
TAB_INDEXES = {"pending": "queue_held", "spam": "queue_held", "flagged": "queue_flagged",
               "downvoted": "queue_downvoted", "recent": "queue_recent"}

# The index that serves each order of a discussion's listing, both ways: every such
# query names it (a hint), since a query planner may otherwise pick another index of
# the discussion that filters but cannot bound the page at its key (DocumentDB's did
# for threaded cursor pages), or walk the collection-wide `{posted}` index until it
# meets enough of this discussion's comments (0.8 s in a collection of 200,000).
ORDER_INDEXES = {
    tuple(ORDERS["threaded"]): "discussion_full_slug",
    tuple(ORDERS["chronological"]): "discussion_posted",
    tuple(ORDERS["newest"]): "discussion_thread_newest",
}
ORDER_INDEXES |= {reverse(order): index for order, index in ORDER_INDEXES.items()}
# The ranked views' orders: of top-level comments only (`Query.roots`), their partial indexes.
RANKED_INDEXES = {tuple(RANKED_ORDERS["best"]): "discussion_best_roots",
                  tuple(RANKED_ORDERS["top"]): "discussion_top_roots"}
# A member's newest comments: the `{author.id, posted, _id}` index (members only).
BY_AUTHOR = "member_posted"
EXPORT_ORDER = [("discussion_id", ASCENDING), ("posted", ASCENDING), ("_id", ASCENDING)]
DUPLICATE_KEY = 11000
# `find_latest`'s first window (comments posted since this long ago, or later), and the
# discussions it reads in one query (at most this many: their sort costs about a window's).
LATEST_RECENT, LATEST_IN_ONE = timedelta(hours=1), 100
# Where the queue's recent tab keeps its page hint (comments/stores/page_windows.py).
RECENT_HINT = "moderation-queue"


class DocumentsStore(CommentStore):
    """One document per comment, collection `comments` (module docstring)."""

    name = "documents"
    # A discussion on one shard; the unique `discussion_slug` index starts with the
    # key's field, so slugs stay unique per discussion across shards (infra/sharding.py).
    shard_keys = (ShardKey("comments", {"discussion_id": "hashed"}, indexes=tuple(INDEXES)),)

    def _collection(self) -> Collection:
        return get_db().comments

    def ensure_indexes(self, db: Database) -> list[str]:
        return replace_indexes(db.comments, INDEXES, retired=RETIRED)

    def _insert(self, *, document: dict[str, Any], parent: Comment | None) -> Comment:
        try:
            insert_one_racing(self._collection(), document,
                              key={"discussion_id": document["discussion_id"], "slug": document["slug"]})
        except DuplicateKeyError as exc:
            raise SlugTaken(document["slug"]) from exc
        return Comment.from_doc(document)

    def _filter(self, query: Query) -> dict[str, Any]:
        scope: dict[str, Any] = {}
        discussions = query.discussions()
        if discussions is not None:
            scope["discussion_id"] = discussions[0] if len(discussions) == 1 else {"$in": discussions}
        return {**scope, **query.conditions()}

    def _hint(self, query: Query) -> str | None:
        if query.tab is not None:
            return self._queue_hint(query)
        if query.discussion_id is not None and query.slugs is not None and query.ids is None:
            # Permalinks: the planner, before its statistics catch up, may walk the shard
            # key's `_id_` index instead (CI saw it once on the single node).
            return SLUG_INDEX
        if query.discussion_id is not None and query.slugs is None and query.ids is None:
            if not query.order and not query.roots and query.threads is None and query.picked is None:
                # A count: the threaded index walks the discussion's entries (the
                # planner may otherwise pick a ranked view's, which leads with more).
                return "discussion_full_slug"
            if query.order in RANKED_INDEXES:
                return RANKED_INDEXES[query.order] if query.roots else None
            return ORDER_INDEXES.get(query.order)
        if query.commenter is not None and query.ids is None:
            return self._commenter_hint(query.commenter, query.order)
        return None

    @staticmethod
    def _queue_hint(query: Query) -> str | None:
        """The recent tab's index for a page of it (read in windows, `_find_recent`),
        unless a filter narrows the tab to one discussion, address or e-mail address
        (whose index the planners pick). Its count (with a name filter: the counters
        count it otherwise) reads every comment whatever the index, and hinted,
        DocumentDB would read them through it rather than scan. The planners pick the
        other tabs' partial indexes unaided (a query of each states its index's
        filter), and a hint would cost DocumentDB its bitmap scan of them (half a
        millisecond a query, measured)."""
        filters = query.filters
        if query.tab != "recent" or query.limit is None:
            return None
        if filters.discussion_id is not None or filters.ip or filters.email:
            return None
        return TAB_INDEXES["recent"]

    @staticmethod
    def _commenter_hint(commenter: Commenter, order: tuple) -> str | None:
        """A member's newest comments: BY_AUTHOR, which holds members' only (user ids
        from 1). The planners pick it, or `ip`, for a commenter's other queries."""
        member = commenter.user_id is not None and commenter.user_id > 0 and not commenter.ips
        return BY_AUTHOR if member and order == tuple(NEWEST) else None

    def find(self, query: Query) -> list[Comment]:
        if query.is_empty():
            return []
        hint = self._hint(query)
        if hint == TAB_INDEXES["recent"] and query.limit is not None:  # a page of the recent tab
            return self._find_recent(query, limit=query.limit)
        return [Comment.from_doc(doc) for doc in self._cursor(query, hint)]

    def _slugs(self, query: Query) -> list[str]:
        return [doc["slug"] for doc in self._cursor(query, self._hint(query), {"slug": 1, "_id": 0})]

    def _cursor(self, query: Query, hint: str | None, projection: dict | None = None) -> Cursor:
        """The cursor of `query` (a non-empty one), its answer asked for in one batch."""
        return self._collection().find(
            self._filter(query), projection, sort=list(query.order) or None, hint=hint, skip=query.skip,
            limit=query.limit or 0, batch_size=batch_for(query.limit))  # limit 0: none

    def find_page(
        self, *, discussion_id: ObjectId, order: str, limit: int | None, skip: int = 0,
        after: tuple | None = None, before: tuple | None = None, below: Comment | None = None,
        viewer: Viewer = READERS, reach: int | None = None, opens: datetime | None = None,
    ) -> list[Comment]:
        """A discussion's page 1 or cursor page read in windows of its order's leading
        field (comments/stores/page_windows.py), so that it costs the same at 100 and at
        100,000 comments on DocumentDB too, which sorts whatever an index range holds;
        the same comments as one query. Pages by position and replies below a comment
        are one query (CommentStore.find_page), and so is a page whose rest is known to
        be short (`reach`: the last pages, and page 1 of a small discussion) unless it is
        page 1 with a hint: one window ending where page 1 ended reads the page's comments,
        not all of a discussion's (which DocumentDB would fetch and sort)."""
        if limit is None or limit <= 0 or skip or below is not None:
            return super().find_page(discussion_id=discussion_id, order=order, limit=limit, skip=skip, after=after,
                                     before=before, below=below, viewer=viewer)
        key = before if before is not None else after
        short = reach is not None and reach <= page_windows.SHORT_REACH
        if short and key is not None:
            return super().find_page(discussion_id=discussion_id, order=order, limit=limit, after=after,
                                     before=before, viewer=viewer)
        hint = page_windows.get_hint(discussion_id=discussion_id, order=order)
        if short and hint.end is None:  # page 1 read whole, and where it ends kept for the next read
            found = super().find_page(discussion_id=discussion_id, order=order, limit=limit, viewer=viewer)
            self._learn(discussion_id, order, found, limit=limit, viewer=viewer, hint=hint)
            return found
        sort = reverse(tuple(ORDERS[order])) if before is not None else tuple(ORDERS[order])
        field, direction = sort[0]
        query = Query(discussion_id=discussion_id, viewer=viewer, order=sort, after=None if key is None else tuple(key))
        found = page_windows.read(field=field, direction=direction, wanted=limit, hint=hint, opens=opens,
                                  key_value=None if key is None else key[0],
                                  fetch=lambda where, count: self._find_within(query, where, count))
        self._learn(discussion_id, order, found, limit=limit, viewer=viewer, hint=hint, first_page=key is None)
        return found[::-1] if before is not None else found

    @staticmethod
    def _learn(discussion_id: ObjectId, order: str, found: list[Comment], *, limit: int, viewer: Viewer,
               hint: page_windows.PageHint, first_page: bool = True) -> None:
        """Keep the hint a page read leaves (page_windows.observed). Where page 1 ends is
        learnt from what every reader sees (an editor's page 1, holding more, ends earlier)."""
        first_page = first_page and viewer.shared
        field = ORDERS[order][0][0]
        learnt = page_windows.observed(field, found, order, wanted=limit, first_page=first_page, hint=hint)
        page_windows.set_hint(discussion_id=discussion_id, order=order, previous=hint, hint=learnt)

    def find_latest(self, *, discussion_id: ObjectId, limit: int, reach: int | None = None,
                    since: datetime | None = None) -> list[Comment]:
        """The newest approved comments, newest first (a post's summary), read in windows of `posted`
        (page_windows.py), those `since` or the last LATEST_RECENT first, then back in time: the same
        cost at 100 and 100,000 comments on DocumentDB; one query when small (`reach` <= LATEST_IN_ONE)."""
        if limit <= 0:
            return []
        if reach is not None and reach <= LATEST_IN_ONE:
            return super().find_latest(discussion_id=discussion_id, limit=limit)
        query = Query(discussion_id=discussion_id, exclude=frozenset(HIDDEN), order=tuple(NEWEST), limit=limit)
        field, direction = NEWEST[0]
        recent = page_windows.PageHint(end=since or datetime.now(timezone.utc) - LATEST_RECENT)
        return page_windows.read(field=field, direction=direction, wanted=limit, hint=recent,
                                 fetch=lambda condition, count: self._find_within(query, condition, count))

    def _find_recent(self, query: Query, *, limit: int) -> list[Comment]:
        """A page of the queue's recent tab (every comment, newest first) read in
        windows of `posted` through its index (comments/stores/page_windows.py), as a
        discussion's pages are: DocumentDB sorts whatever an index range holds, so one
        query would read every comment. The first window ends where page 1 ended the
        last time (else an hour back), so page 1 costs what it holds; the same
        comments as one query."""
        whole = replace(query, skip=0, limit=None)
        field, direction = NEWEST[0]
        hint = page_windows.get_hint(discussion_id=RECENT_HINT, order="recent")
        first = hint if hint.end is not None else page_windows.PageHint(
            end=datetime.now(timezone.utc) - LATEST_RECENT)
        found = page_windows.read(
            field=field, direction=direction, wanted=query.skip + limit, hint=first,
            fetch=lambda condition, count: self._find_within(whole, condition, count, index=TAB_INDEXES["recent"]),
        )
        if not query.filters.name:  # where page 1 of every comment ends
            page_windows.set_hint(discussion_id=RECENT_HINT, order="recent", previous=hint, hint=page_windows.observed(
                field, found[:limit], "chronological", wanted=limit, first_page=True, hint=hint))
        return found[query.skip:]

    def _find_within(self, query: Query, condition: dict[str, Any], limit: int, *, index: str | None = None,
                     ) -> list[Comment]:
        """`query` (a page of one discussion's order, or `index`'s) with `condition` on
        its sort's leading field added, the first `limit` in its order, through its index."""
        selected = self._filter(query)
        if condition:
            field = next(iter(condition))
            selected = {"$and": [selected, condition]} if field in selected else {**selected, **condition}
        cursor = self._collection().find(selected).sort(list(query.order)).hint(index or ORDER_INDEXES[query.order])
        return [Comment.from_doc(doc) for doc in cursor.limit(limit)]

    def tally(self, query: Query) -> Tally:
        """One aggregate command, grouped by status and placeholder (the server counts,
        nothing is fetched)."""
        if query.is_empty():
            return Tally(total=0, placeholders=0)
        options: dict[str, Any] = {"hint": hint} if (hint := self._hint(query)) else {}
        groups = self._collection().aggregate([
            {"$match": self._filter(query.unsliced())},
            {"$group": {"_id": {"s": "$status", "p": "$placeholder"}, "n": {"$sum": 1}}},
        ], **options)
        return Tally.from_groups(groups, query.viewer or READERS)

    def _change(self, query: Query, *, fields: dict[str, Any], majority: bool = False) -> int:
        """One update_many; only the comments whose values differ match, so a rerun
        writes nothing and modified_count is what changed."""
        collection = self._collection()
        if majority:
            collection = collection.with_options(write_concern=WriteConcern(w="majority"))
        differs = {"$or": [{path: {"$ne": value}} for path, value in fields.items()]}
        selected = self._filter(query)
        result = collection.update_many({"$and": [selected, differs]} if selected else differs, {"$set": fields})
        return result.modified_count

    def _transition(self, *, comment: Comment, expect: dict[str, Any], fields: dict[str, Any]) -> bool:
        """One update_one on the comment's `_id` and `expect`."""
        result = self._collection().update_one(
            {"_id": comment.id, "discussion_id": comment.discussion_id, **expect}, {"$set": fields})
        return result.matched_count == 1

    def _increment(self, *, comment: Comment, up: int, down: int) -> bool:
        """One update_one `$inc` of the comment's tallies and score."""
        result = self._collection().update_one(
            {"_id": comment.id, "discussion_id": comment.discussion_id},
            {"$inc": {"votes.up": up, "votes.down": down, "score": up - down}},
        )
        return result.matched_count == 1

    def find_member_authors(self) -> list[CommentAuthor]:
        docs = self._collection().distinct("author", MEMBERS)
        return [CommentAuthor(id=d["id"], name=d.get("name", ""), email=d.get("email", "")) for d in docs]

    def find_discussion_ids_by_author(self, *, author_id: int) -> list[ObjectId]:
        """The discussions this member has commented on (the `author_id` index, only
        the ids come back)."""
        return sorted(self._collection().distinct("discussion_id", {"author.id": int(author_id)}))

    # --- Export and import (comments/transfer/backup.py) ---------------------------------------------
    # Raw documents, on purpose: a backup carries every field, also those this module does
    # not model, and an import writes them back exactly as they were.

    def iter_documents(self, *, discussion_id: ObjectId | None = None, batch_size: int = 500) -> Iterator[dict]:
        """One cursor in discussion and posting order (the `discussion_posted` index: no
        sort in memory)."""
        query = {} if discussion_id is None else {"discussion_id": discussion_id}
        yield from self._collection().find(query).sort(EXPORT_ORDER).batch_size(batch_size)

    def _insert_documents(self, *, documents: list[dict], ordered: bool = True) -> int:
        """One ordered insert_many (the documents go in in the order given). A document
        the discussion already has (same slug, or same `_id`: a run stopped after
        storing it) is refused by the unique index, which stops an ordered insert there:
        the ones after it go in in one more, unordered insert, past any other duplicate."""
        try:
            return len(self._collection().insert_many(documents, ordered=ordered).inserted_ids)
        except BulkWriteError as exc:
            errors = exc.details["writeErrors"]
            if any(error["code"] != DUPLICATE_KEY for error in errors):
                raise
            rest = documents[min(error["index"] for error in errors) + 1:] if ordered else []
            return exc.details["nInserted"] + (self._insert_documents(documents=rest, ordered=False) if rest else 0)

    def discussion_ids(self) -> list[ObjectId]:
        return sorted(self._collection().distinct("discussion_id"))

    def _drop_discussion(self, *, discussion_id: ObjectId) -> int:
        return self._collection().delete_many({"discussion_id": discussion_id}).deleted_count
