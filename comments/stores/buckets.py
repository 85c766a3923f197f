"""The `comment_pages` collection: comments in buckets ("pages") of about PAGE_SIZE
(pattern 3 of `storage-patterns.md`, extended to threaded views). The only module
that touches it (and its small companion `comment_claims`): a ContainerStore
(comments/stores/containers.py).

A bucket is the pattern's document, plus three fields of its own:

    {_id, discussion_id, page, count, comments: [comment, ...], first, last, ordered}

Each embedded comment holds the stored fields of records.new_document but
`discussion_id`, which unpacking adds back. Every push `$sort`s the bucket's array in
posting order (`posted`, `_id`), whatever order concurrent writers arrive in; `ordered:
true`, set when the bucket is created, says the bucket has always been kept so (older
buckets lack it). `first` and `last` are its earliest and latest `posted` (`$min`/`$max`
on every push). The discussion's state keeps `num_pages`, the page new comments go to
(comments/stores/discussion_state.py). Putting comments into buckets (posting, appending
whole pages) is comments/stores/bucket_writes.py.

Posting (`insert_comment`) is the pattern's push into page `num_pages`,
`find_one_and_update({discussion_id, page}, {$inc: {count: 1}, $push: {comments: c}},
return_document=AFTER)` (the push with `$each: [c]` and that `$sort`), then the
conditional `num_pages` advance once the count passes PAGE_SIZE. Where the pattern
upserts, a page is created by a plain insert of its empty bucket under `_id`
"<discussion_id>/<page>" (bucket_writes.py says why). A slug, and so a form (its key
fixes the slug), is stored once per discussion by two atomic single-document writes (see
`BucketsStore._insert`): no lease, no transaction.

Listings run on the server (one 10,000-comment discussion, 100 buckets, FerretDB v2,
which reads each bucket whole):
- the chronological view by position walks the buckets (`walk`), cutting each slice
  with a `$slice` projection, when every bucket is `ordered`, each bucket's comments
  come before the next one's (a late writer on an earlier page, or a backdated
  comment, breaks that) and no comment is hidden from the viewer (one `$elemMatch`
  query): the bucket heads, that check and one or two slices, 25-40 ms at skip 5,000;
- every other page (threaded, newest, keyset cursors, replies below a comment, a
  discussion with hidden comments) is one aggregation: `$match` the discussion,
  `$unwind`, `$match` what the viewer sees, `$sort`, `$skip`/`$limit`, and only then
  `$replaceRoot` on the page's comments: 90-130 ms (lifting them out first: 250-300;
  a projection, then the chosen comments in a second round trip: no better);
- counts (`tally`) and a whole listing's slugs (`list_slugs`, a migration's check)
  are aggregations over a projection of the fields they test, counts 35-80 ms;
  `find_latest` sorts on the server;
- edits, statuses, placeholders, flags and renames are `update_many` with arrayFilters
  (`comments.$[c].<field>`), after one aggregation that counts the comments whose value
  differs (what callers report); the moderation queue and a commenter's comments are
  aggregations over the buckets the multikey indexes (`comments.status`,
  `comments.author.id`, ...) find.
Exports hold one discussion in memory at a time, migrations one per worker thread.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from bson import ObjectId
from pymongo import ASCENDING, IndexModel
from pymongo.collection import Collection
from pymongo.database import Database
from pymongo.write_concern import WriteConcern

from comments import slugs
from comments.records import ORDERS, READERS, Comment, CommentAuthor, SlugTaken, Tally, Viewer, visible_to
from comments.stores import bucket_writes, discussion_state
from comments.stores.bucket_walks import in_posting_order, walk
from comments.stores.bucket_writes import _claims, _pages, advance_page, claim_page, push_comment, slug_in_use
from comments.stores.containers import COUNT_FIELDS, ContainerStore, counted_fields
from comments.stores.queries import MEMBERS, Query, differing
from infra.mongo import batch_for
from infra.sharding import ShardKey

INDEXES = [
    # One bucket per page; it starts with the shard key's field (infra/sharding.py).
    IndexModel([("discussion_id", ASCENDING), ("page", ASCENDING)], unique=True, name="discussion_page"),
    # Permalinks, replies' parents, slug checks.
    IndexModel([("discussion_id", ASCENDING), ("comments.slug", ASCENDING)], name="discussion_comment_slug"),
    # Any comment by id (moderation, edits, flags), and the queue and commenters (multikey).
    IndexModel([("comments._id", ASCENDING)], name="comment_id"),
    IndexModel([("comments.status", ASCENDING)], name="comment_status"),
    IndexModel([("comments.flag_count", ASCENDING)], name="comment_flag_count"),
    IndexModel([("comments.score", ASCENDING)], name="comment_score"),
    IndexModel([("comments.author.id", ASCENDING)], name="comment_author_id"),
    IndexModel([("comments.author.email", ASCENDING)], name="comment_author_email"),
    IndexModel([("comments.ip", ASCENDING)], name="comment_ip"),
]

# What a bucket's head says about it: enough to walk the buckets by position.
HEAD_FIELDS = {"page": 1, "count": 1, "first": 1, "last": 1, "ordered": 1}
LOGICAL = ("$and", "$or", "$nor")


# --- Unpacking and pipelines -----------------------------------------------------------------


def unpack(bucket: dict) -> list[Comment]:
    """The comments of a bucket, each with its discussion's id added back. On a
    projected bucket the fields left out get their defaults (`text` empty)."""
    discussion_id = bucket["discussion_id"]
    return [Comment.from_doc({"text": "", **c, "discussion_id": discussion_id}) for c in bucket.get("comments", ())]


def flat_document(comment: dict, discussion_id: ObjectId) -> dict:
    """An embedded comment as the one-document store keeps it (exports, migrations)."""
    return {"_id": comment["_id"], "discussion_id": discussion_id, **comment}


def on_comments(condition: dict) -> dict:
    """A condition on a comment's own fields, for an unwound bucket (`comments.<field>`)."""
    prefixed = {}
    for key, value in condition.items():
        if key in LOGICAL:
            prefixed[key] = [on_comments(c) for c in value]
        else:
            prefixed[f"comments.{key}"] = value
    return prefixed


def buckets_of(query: Query) -> dict:
    """The buckets that may hold what `query` selects: the discussion's buckets (those
    holding its slugs, ids or replies, by their multikey indexes), or, across
    discussions, those with a comment meeting the whole condition."""
    scope = BucketsStore.superset_scope(query)
    if scope is None:
        condition = query.conditions()
        return {"comments": {"$elemMatch": condition}} if condition else {}
    buckets: dict[str, Any] = {"discussion_id": scope}
    if query.slugs is not None:
        buckets["comments.slug"] = {"$in": sorted(query.slugs)}
    if query.ids is not None:
        buckets["comments._id"] = {"$in": sorted(query.ids)}
    if query.below is not None:
        buckets["comments.full_slug"] = {"$regex": slugs.replies_regex(query.below.full_slug)}
    elif query.subthread is not None:
        buckets["comments.full_slug"] = {"$regex": slugs.subtree_regex(query.subthread.full_slug)}
    return buckets


def unwound(match: dict, *, where: dict | None = None, fields: Iterable[str] | None = None) -> list[dict]:
    """Pipeline stages: the buckets matching `match`, unwound to one document per
    comment (only `fields` of each, when given), those meeting `where` (a condition
    on a comment's own fields). The comments stay under `comments.` until `_comments`
    lifts them out: on FerretDB v2, matching and sorting before the `$replaceRoot`
    costs a third of doing it after."""
    stages: list[dict] = [{"$match": match}]
    if fields is not None:
        stages.append({"$project": {"discussion_id": 1, **{f"comments.{f}": 1 for f in fields}}})
    stages.append({"$unwind": "$comments"})
    if where:
        stages.append({"$match": on_comments(where)})
    return stages


def _ordered(stages: list[dict], *, sort: Sequence[tuple[str, int]] = (), skip: int = 0,
             limit: int | None = None) -> list[dict]:
    """The unwound `stages`, `sort`, `skip` and `limit` applied."""
    stages = list(stages)
    if sort:
        stages.append({"$sort": {f"comments.{field}": direction for field, direction in sort}})
    if skip:
        stages.append({"$skip": skip})
    return stages + [{"$limit": limit}] if limit is not None else stages


def _comments(stages: list[dict], *, sort: Sequence[tuple[str, int]] = (), skip: int = 0,
              limit: int | None = None) -> list[Comment]:
    """The comments the unwound `stages` give, in `sort`, `skip` and `limit` applied."""
    lifted = {"$mergeObjects": ["$comments", {"discussion_id": "$discussion_id"}]}
    found = _pages().aggregate(_ordered(stages, sort=sort, skip=skip, limit=limit)
                               + [{"$replaceRoot": {"newRoot": lifted}}], batchSize=batch_for(limit))
    return [Comment.from_doc({"text": "", **doc}) for doc in found]


def _counted(stages: list[dict]) -> int:
    found = list(_pages().aggregate(stages + [{"$count": "n"}]))
    return found[0]["n"] if found else 0


def _in_array(condition: dict, name: str = "c") -> dict:
    """A condition on a comment's own fields, as the arrayFilter `name` (FerretDB
    refuses `$or` at the top of an arrayFilter, so the queries changed are plain)."""
    return {f"{name}.{field}": value for field, value in condition.items()}


# --- Walking buckets by position ----------------------------------------------------------


def _hides_any(discussion_id: ObjectId, viewer: Viewer) -> bool:
    """Whether the discussion has a comment that `viewer` does not see listed."""
    hidden = {"comments": {"$elemMatch": {"$nor": [visible_to(viewer)]}}}
    return _pages().find_one({"discussion_id": discussion_id, **hidden}, {"_id": 1}) is not None


def walkable(query: Query) -> bool:
    """Whether `query` is a discussion's chronological page by position, and nothing more."""
    plain = Query(discussion_id=query.discussion_id, viewer=query.viewer, order=query.order,
                  skip=query.skip, limit=query.limit)
    return query.discussion_id is not None and query.order == tuple(ORDERS["chronological"]) and query == plain


def _walked(*, discussion_id: ObjectId, viewer: Viewer, skip: int, limit: int) -> list[Comment] | None:
    """A chronological page by the walk, each slice cut by a `$slice` projection;
    None when the buckets cannot be walked (out of order, or hiding comments)."""
    heads = list(_pages().find({"discussion_id": discussion_id}, HEAD_FIELDS).sort("page", ASCENDING))
    if not in_posting_order(heads) or _hides_any(discussion_id, viewer):
        return None
    cut = []
    for index, start, stop in walk(counts=[h["count"] for h in heads], skip=skip, limit=limit):
        query = {"discussion_id": discussion_id, "page": heads[index]["page"]}
        bucket = _pages().find_one(query, {"discussion_id": 1, "comments": {"$slice": [start, stop - start]}})
        cut += unpack(bucket) if bucket else []
    return cut


# --- The store ----------------------------------------------------------------------------


class BucketsStore(ContainerStore):
    """Comments in pages of about PAGE_SIZE, collection `comment_pages` (module docstring)."""

    name = "buckets"
    # A discussion's pages on one shard (its unique `discussion_page` index starts with
    # the key's field); each slug claim on one shard, by its `_id` (infra/sharding.py).
    shard_keys = (
        ShardKey("comment_pages", {"discussion_id": "hashed"}, indexes=tuple(INDEXES)),
        ShardKey("comment_claims", {"_id": "hashed"}),
    )

    def _collection(self) -> Collection:
        return _pages()

    def ensure_indexes(self, db: Database) -> list[str]:
        return db.comment_pages.create_indexes(INDEXES)

    def _insert(self, *, document: dict[str, Any], parent: Comment | None) -> Comment:
        """Insert one comment into the discussion's last page; SlugTaken if its slug is
        already used in the discussion (a form sent again: its key fixes the slug).

        A slug is stored once, however many writers send it at once and whichever page
        is last when each one pushes: the first writer to insert the slug's claim names
        the page (`claim_page`), every writer of that slug pushes to that one bucket, and
        the push is conditional on the bucket not holding the slug. Both steps are single
        document writes, atomic on MongoDB and on FerretDB v2, so exactly one push lands
        and the others raise SlugTaken with that comment already readable (the service
        then answers with it). A writer whose claimer died before pushing stores its own
        copy in the claimed page instead. The permalink query first catches slugs stored
        without a claim (imports, comments older than the claims).
        """
        discussion_id, slug = document["discussion_id"], document["slug"]
        if slug_in_use(discussion_id=discussion_id, slug=slug):
            raise SlugTaken(slug)
        page = claim_page(discussion_id=discussion_id, slug=slug,
                          page=self.counting.num_pages(discussion_id, store=self))
        bucket = push_comment(discussion_id=discussion_id, page=page, document=document)
        advance_page(discussion_id=discussion_id, page=page, count=bucket["count"])
        return Comment.from_doc(document)

    # --- Reading ---------------------------------------------------------------------------

    def find(self, query: Query) -> list[Comment]:
        """The chronological view by position walks the buckets when it can (`_walked`);
        everything else is one aggregation that sorts on the server."""
        if query.is_empty():
            return []
        if walkable(query) and query.limit is not None and query.discussion_id is not None:
            walked = _walked(discussion_id=query.discussion_id, viewer=query.viewer or READERS,
                             skip=query.skip, limit=query.limit)
            if walked is not None:
                return walked
        stages = unwound(buckets_of(query), where=query.conditions())
        return _comments(stages, sort=query.order, skip=query.skip, limit=query.limit)

    def _slugs(self, query: Query) -> list[str]:
        """A listing's aggregation over the fields it tests (COUNT_FIELDS) and `slug`."""
        stages = unwound(buckets_of(query), where=query.conditions(), fields=(*COUNT_FIELDS, "slug"))
        stages = _ordered(stages, sort=query.order, skip=query.skip, limit=query.limit)
        stages.append({"$project": {"_id": 0, "slug": "$comments.slug"}})
        return [doc["slug"] for doc in _pages().aggregate(stages, batchSize=batch_for(query.limit))]

    def tally(self, query: Query) -> Tally:
        """One aggregation over the fields a listing's count tests, grouped by status and
        placeholder (the server counts)."""
        if query.is_empty():
            return Tally(total=0, placeholders=0)
        stages = unwound(buckets_of(query), where=query.conditions(), fields=counted_fields(query))
        groups = _pages().aggregate(stages + [
            {"$group": {"_id": {"s": "$comments.status", "p": "$comments.placeholder"}, "n": {"$sum": 1}}},
        ])
        return Tally.from_groups(groups, query.viewer or READERS)

    def find_member_authors(self) -> list[CommentAuthor]:
        stages = unwound({"comments": {"$elemMatch": MEMBERS}}, where=MEMBERS, fields=("author",))
        groups = _pages().aggregate(stages + [{"$group": {"_id": "$comments.author"}}])
        docs = [g["_id"] for g in groups if isinstance(g["_id"], dict) and g["_id"].get("id") is not None]
        return [CommentAuthor(id=d["id"], name=d.get("name", ""), email=d.get("email", "")) for d in docs]

    def find_discussion_ids_by_author(self, *, author_id: int) -> list[ObjectId]:
        """The discussions this member has commented on (the `comment_author_id` index)."""
        return sorted(_pages().distinct("discussion_id", {"comments.author.id": int(author_id)}))

    # --- Changing comments already stored ----------------------------------------------------

    def _transition(self, *, comment: Comment, expect: dict[str, Any], fields: dict[str, Any]) -> bool:
        """One update_one on the bucket holding the comment while it meets `expect`
        (`$elemMatch`), through the arrayFilter `c` on the same condition."""
        condition = {"_id": comment.id, **expect}
        result = _pages().update_one(
            {"discussion_id": comment.discussion_id, "comments": {"$elemMatch": condition}},
            {"$set": {f"comments.$[c].{path}": value for path, value in fields.items()}},
            array_filters=[_in_array(condition)],
        )
        return result.matched_count == 1

    def last_page(self, *, discussion_id: ObjectId) -> int:
        last = _pages().find_one({"discussion_id": discussion_id}, {"page": 1}, sort=[("page", -1)])
        return max(1, int(last["page"])) if last else 1

    def _increment(self, *, comment: Comment, up: int, down: int) -> bool:
        """One `$inc` on the bucket holding the comment (the `comments._id` index), through
        the arrayFilter `c` on its `_id`."""
        result = _pages().update_one(
            {"discussion_id": comment.discussion_id, "comments._id": comment.id},
            {"$inc": {"comments.$[c].votes.up": up, "comments.$[c].votes.down": down,
                      "comments.$[c].score": up - down}},
            array_filters=[{"c._id": comment.id}],
        )
        return result.matched_count == 1

    def _change(self, query: Query, *, fields: dict[str, Any], majority: bool = False) -> int:
        """One update_many with the arrayFilter `c` (the query's plain condition), after
        one aggregation that counts the comments whose values differ: what MongoDB's
        modified count is for the documents store."""
        condition = query.conditions()
        differs = {**condition, **differing(fields)}
        scope = self.superset_scope(query)
        buckets = {**({"discussion_id": scope} if scope is not None else {}), "comments": {"$elemMatch": differs}}
        changed = _counted(unwound(buckets, where=differs))
        if changed:
            pages = _pages()
            if majority:
                pages = pages.with_options(write_concern=WriteConcern(w="majority"))
            pages.update_many(
                buckets, {"$set": {f"comments.$[c].{path}": value for path, value in fields.items()}},
                array_filters=[_in_array(condition)],
            )
        return changed

    # --- Export, import and migration: comments as flat documents ----------------------------

    def _containers_in_order(self, query: dict[str, Any], batch_size: int) -> Iterable[dict]:
        return _pages().find(query).sort([("discussion_id", ASCENDING), ("page", ASCENDING)]).batch_size(batch_size)

    def _discussion_of(self, container: dict) -> ObjectId:
        return container["discussion_id"]

    def _flat_documents(self, container: dict) -> list[dict]:
        return [flat_document(c, container["discussion_id"]) for c in container.get("comments", ())]

    def _discussion_query(self, discussion_id: ObjectId) -> dict[str, Any]:
        return {"discussion_id": discussion_id}

    def _add_to_discussions(self, groups: dict[ObjectId, list[dict]]) -> int:
        """Append the new ones in posting order: each last page filled up to PAGE_SIZE,
        the rest whole new pages (the whole discussion, when it had none: a fast
        migration), and `num_pages` names the last page; a few round trips for all the
        batch's discussions at once (bucket_writes.append). Meant for migrations and
        restores, which run while the site posts nothing to these discussions."""
        return bucket_writes.append(bucket_writes.new_ones(groups))

    def discussion_ids(self) -> list[ObjectId]:
        return sorted(_pages().distinct("discussion_id", {"count": {"$gt": 0}}))

    def _drop_discussion(self, *, discussion_id: ObjectId) -> int:
        """Every bucket and slug claim of the discussion, its pages starting again at 1."""
        went = _counted(unwound({"discussion_id": discussion_id}, fields=("_id",)))
        _pages().delete_many({"discussion_id": discussion_id})
        _claims().delete_many({"_id": {"$regex": "^" + re.escape(f"{discussion_id}/")}})
        discussion_state.set_pages({discussion_id: 1})
        return went
