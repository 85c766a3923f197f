"""The `comment_pages` collection: comments in buckets ("pages") of about PAGE_SIZE
(pattern 3 of `storage-patterns.md`, extended to threaded views). The only module
that touches it (and its small companion `comment_claims`); the same operations as
comments/documents.py (store.OPERATIONS).

A bucket is the pattern's document, plus three fields of its own:

    {_id, discussion_id, page, count, comments: [comment, ...], first, last, ordered}

Each embedded comment holds the stored fields of records.new_document (its own
`_id`, parent_id, slug, full_slug, thread, posted, author{id, name, email}, text,
html, form_key, status, ip; later placeholder, edited, flag_count) without
`discussion_id`, which unpacking adds back. Every push `$sort`s the bucket's array
in posting order (`posted`, `_id`), whatever order concurrent writers arrive in;
`ordered: true`, set when a push creates the bucket, says the bucket has always been
kept so (older buckets lack it). `first` and `last` are its earliest and latest
`posted` (`$min`/`$max` on every push). The discussion document keeps
`num_pages`, the page new comments go to: in Slugline the discussion is the post
(cms/posts.py, `comment_pages`).

Posting (`insert_comment`) is the pattern's upsert into page `num_pages`,
`find_one_and_update({discussion_id, page}, {$inc: {count: 1}, $push: {comments: c}},
upsert=True, return_document=AFTER)` (the push with `$each: [c]` and that `$sort`),
then the conditional `num_pages` advance once the count passes PAGE_SIZE. A slug,
and so a form (its key fixes the slug), is stored once per discussion by two atomic
single-document writes (see `insert_comment`): no lease, no transaction.

Listings run on the server (timings: one 10,000-comment discussion, 100 buckets,
FerretDB v2 on a shared two-core machine, where DocumentDB reads each bucket whole):
- the chronological view by position walks the buckets (`walk`), cutting each slice
  with a `$slice` projection, when every bucket is `ordered`, each bucket's comments
  come before the next one's (a late writer on an earlier page, or a backdated
  comment, breaks that) and no comment is hidden from the viewer (one `$elemMatch`
  query): the bucket heads, that check and one or two slices, 25-40 ms at skip 5,000;
- every other page (threaded, newest, keyset cursors, replies below a comment, a
  discussion with hidden comments) is one aggregation: `$match` the discussion,
  `$unwind`, `$match` what the viewer sees, `$sort`, `$skip`/`$limit`, and only then
  `$replaceRoot` on the page's comments: 90-130 ms. Lifting the comments out before
  matching and sorting cost 250-300 ms; projecting the listing fields and fetching
  the chosen comments in a second round trip saved nothing measurable;
- counts (`count`, `tally`, `count_before`, `count_approved`) are aggregations over
  a projection of the fields they test, 35-80 ms; `find_latest` sorts on the server;
- edits, statuses, placeholders, flags and renames are `update_many` with
  arrayFilters (`comments.$[c].<field>`) or the positional `$`, after one
  aggregation that counts the comments whose value differs (what callers report);
  the moderation queue and a commenter's comments are aggregations over the buckets
  the multikey indexes (`comments.status`, `comments.author.id`, ...) find.
Exports and migrations hold one discussion in memory at a time.
"""

from __future__ import annotations

import itertools
import random
import re
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo import ASCENDING, IndexModel, ReturnDocument
from pymongo.collection import Collection
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError, OperationFailure
from pymongo.write_concern import WriteConcern

from comments import keyset, slugs
from comments.records import (
    APPROVED,
    DELETED,
    HIDDEN,
    ORDERS,
    PENDING,
    QUEUE_TABS,
    READERS,
    SPAM,
    Comment,
    CommentAuthor,
    Commenter,
    QueueFilter,
    SlugTaken,
    Tally,
    Viewer,
    commenter_conditions,
    filter_conditions,
    new_document,
    queue_order,
    visible_to,
)
from comments.host import get_host
from infra.mongo import get_db

# A page takes new comments until its count passes this (it may end a few over).
PAGE_SIZE = 100
# How often a push goes again after losing to another writer of its page. Each loss
# means another writer's push or page creation went through, but a busy page's other
# writers can win many times in a row, so a push waits a little longer (with jitter)
# after each loss: the bound is time, well inside a request's MongoDB budget.
PUSH_ATTEMPTS = 60
PUSH_BACKOFF_SECONDS = 0.002
NO_PAGE = "Could not add a comment to page {page} of discussion {discussion_id}."

INDEXES = [
    # One bucket per page; it starts with the shard key (infra/sharding.py).
    IndexModel([("discussion_id", ASCENDING), ("page", ASCENDING)], unique=True, name="discussion_page"),
    # Permalinks, replies' parents, slug checks.
    IndexModel([("discussion_id", ASCENDING), ("comments.slug", ASCENDING)], name="discussion_comment_slug"),
    # Any comment by id (moderation, edits, flags), and the queue and commenters (multikey).
    IndexModel([("comments._id", ASCENDING)], name="comment_id"),
    IndexModel([("comments.status", ASCENDING)], name="comment_status"),
    IndexModel([("comments.flag_count", ASCENDING)], name="comment_flag_count"),
    IndexModel([("comments.author.id", ASCENDING)], name="comment_author_id"),
    IndexModel([("comments.author.email", ASCENDING)], name="comment_author_email"),
    IndexModel([("comments.ip", ASCENDING)], name="comment_ip"),
]

# What a bucket's head says about it: enough to walk the buckets by position.
HEAD_FIELDS = {"page": 1, "count": 1, "first": 1, "last": 1, "ordered": 1}
# What counting a listing looks at: visibility, replies below a comment, the orders' keys.
COUNT_FIELDS = ("_id", "full_slug", "thread", "posted", "status", "placeholder", "author.id")
APPROVED_ONLY = {"status": {"$nin": list(HIDDEN)}}
LOGICAL = ("$and", "$or", "$nor")
NEWEST_FIRST = [("posted", -1), ("_id", -1)]
# How a bucket keeps its comments: the chronological view's order.
POSTING_ORDER = dict(ORDERS["chronological"])
# FerretDB v2.7 answers a findAndModify that breaks a unique index with this
# InternalError (code 1) instead of MongoDB's DuplicateKeyError (code 11000).
EXCLUSION_CONFLICT = "conflicting key value violates exclusion constraint"
DEADLOCK = "deadlock detected"


def _pages() -> Collection:
    return get_db().comment_pages


def _claims() -> Collection:
    return get_db().comment_claims


def ensure_indexes(db: Database) -> list[str]:
    return db.comment_pages.create_indexes(INDEXES)


# --- Unpacking ----------------------------------------------------------------------------


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


def _comments(
    stages: list[dict], *, sort: Sequence[tuple[str, int]] = (), skip: int = 0, limit: int | None = None
) -> list[Comment]:
    """The comments the unwound `stages` give, in `sort`, `skip` and `limit` applied."""
    stages = list(stages)
    if sort:
        stages.append({"$sort": {f"comments.{field}": direction for field, direction in sort}})
    if skip:
        stages.append({"$skip": skip})
    if limit is not None:
        stages.append({"$limit": limit})
    stages.append(
        {"$replaceRoot": {"newRoot": {"$mergeObjects": ["$comments", {"discussion_id": "$discussion_id"}]}}}
    )
    return [Comment.from_doc({"text": "", **doc}) for doc in _pages().aggregate(stages)]


def _counted(stages: list[dict]) -> int:
    found = list(_pages().aggregate(stages + [{"$count": "n"}]))
    return found[0]["n"] if found else 0


# --- Walking buckets by position ----------------------------------------------------------


def walk(*, counts: Sequence[int], skip: int, limit: int) -> list[tuple[int, int, int]]:
    """The pattern's skip/limit across buckets: walking the buckets in page order,
    each slice to take as (bucket index, start, stop). A bucket's count comes off
    `skip` (not below 0) and what is taken off `limit`, until `limit` is spent."""
    slices = []
    for index, count in enumerate(counts):
        if limit <= 0:
            break
        if skip >= count:
            skip -= count
            continue
        take = min(count - skip, limit)
        slices.append((index, skip, skip + take))
        skip, limit = 0, limit - take
    return slices


def in_posting_order(heads: Sequence[dict]) -> bool:
    """Whether buckets (their heads, in page order) hold the discussion's comments in
    posting order: each is `ordered` (kept sorted since it was created) and its last
    comment was posted strictly before the next bucket's first."""
    if not all(h.get("ordered") is True and "first" in h and "last" in h for h in heads):
        return False
    return all(a["last"] < b["first"] for a, b in itertools.pairwise(heads))


def _hides_any(discussion_id: ObjectId, viewer: Viewer) -> bool:
    """Whether the discussion has a comment that `viewer` does not see listed."""
    hidden = {"comments": {"$elemMatch": {"$nor": [visible_to(viewer)]}}}
    return _pages().find_one({"discussion_id": discussion_id, **hidden}, {"_id": 1}) is not None


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


# --- Posting ----------------------------------------------------------------------------


def slug_in_use(*, discussion_id: ObjectId, slug: str) -> bool:
    """The pattern's permalink query: whether any page of the discussion holds the slug."""
    query = {"discussion_id": discussion_id, "comments.slug": str(slug)}
    return _pages().find_one(query, {"_id": 1}) is not None


def claim_page(*, discussion_id: ObjectId, slug: str, page: int) -> int:
    """The page the comment with this slug must go to: `page` when this writer is the
    first to claim the slug, else the page the first claimer named. The claim is a
    document of `comment_claims` whose unique `_id` names the discussion and slug; it
    is inserted once and never waited on or expired."""
    claim_id = f"{discussion_id}/{slug}"
    try:
        _claims().insert_one({"_id": claim_id, "discussion_id": discussion_id, "slug": str(slug), "page": page})
        return page
    except DuplicateKeyError:
        found = _claims().find_one({"_id": claim_id}, {"page": 1})
        return found["page"] if found else page


def lost_to_another_writer(exc: OperationFailure) -> bool:
    """Whether an upsert failed, writing nothing, because another writer of its page
    got there first: MongoDB's DuplicateKeyError on the unique `{discussion_id, page}`
    index. FerretDB v2.7 answers a findAndModify that breaks that index with
    InternalError (code 1) EXCLUSION_CONFLICT instead, and now and then aborts one of
    several concurrent upserts of a page as a PostgreSQL DEADLOCK; both roll the
    command back, so they are read the same way."""
    if isinstance(exc, DuplicateKeyError):
        return True
    return exc.code == 1 and any(reason in str(exc) for reason in (EXCLUSION_CONFLICT, DEADLOCK))


def _push(*, discussion_id: ObjectId, page: int, comment: dict) -> dict:
    """One try of the pattern's upsert, conditional on the page not holding the slug;
    the bucket's count after. `$sort` keeps the bucket in posting order whatever order
    concurrent writers arrive in, so it stays `ordered` (set when the push creates it)."""
    return _pages().find_one_and_update(
        {"discussion_id": discussion_id, "page": page, "comments.slug": {"$ne": comment["slug"]}},
        {
            "$inc": {"count": 1},
            "$push": {"comments": {"$each": [comment], "$sort": POSTING_ORDER}},
            "$min": {"first": comment["posted"]},
            "$max": {"last": comment["posted"]},
            "$setOnInsert": {"ordered": True},
        },
        projection={"count": 1}, upsert=True, return_document=ReturnDocument.AFTER,
    )


def push_comment(*, discussion_id: ObjectId, page: int, document: dict) -> dict:
    """Push one comment (a records.new_document) onto `page`, creating the page if
    need be; the bucket's count after (`{"count": n}`). SlugTaken if the page holds
    the slug.

    Each try is one atomic single-document update whose filter requires the page not
    to hold the slug. When its upsert collides with the page's existing bucket, either
    the bucket holds the slug (SlugTaken) or another writer has just created it (the
    push goes again).
    """
    comment = {k: v for k, v in document.items() if k != "discussion_id"}
    holding = {"discussion_id": discussion_id, "page": page, "comments.slug": comment["slug"]}
    for attempt in range(PUSH_ATTEMPTS):
        try:
            return _push(discussion_id=discussion_id, page=page, comment=comment)
        except OperationFailure as exc:
            if not lost_to_another_writer(exc):
                raise
        if _pages().find_one(holding, {"_id": 1}) is not None:
            raise SlugTaken(comment["slug"])
        time.sleep(random.uniform(0, PUSH_BACKOFF_SECONDS * min(attempt + 1, 25)))
    raise RuntimeError(NO_PAGE.format(page=page, discussion_id=discussion_id))


def advance_page(*, discussion_id: ObjectId, page: int, count: int) -> bool:
    """After a push that left `page` holding `count` comments: when that passes
    PAGE_SIZE, move the discussion's `num_pages` from `page` to the next. Whether
    this call advanced it (of two writers past the limit, exactly one does)."""
    if count <= PAGE_SIZE:
        return False
    return get_host().advance_comment_pages(discussion_id, from_page=page)


def insert_comment(
    *,
    discussion_id: ObjectId,
    parent: Comment | None,
    slug: str,
    full_slug: str,
    posted: datetime,
    author: CommentAuthor,
    text: str,
    html: str,
    form_key: str | None = None,
    status: str = APPROVED,
    ip: str | None = None,
) -> Comment:
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
    doc = new_document(
        discussion_id=discussion_id, parent=parent, slug=slug, full_slug=full_slug, posted=posted, author=author,
        text=text, html=html, form_key=form_key, status=status, ip=ip,
    )
    if slug_in_use(discussion_id=discussion_id, slug=slug):
        raise SlugTaken(slug)
    page = claim_page(discussion_id=discussion_id, slug=slug, page=get_host().comment_pages(discussion_id))
    bucket = push_comment(discussion_id=discussion_id, page=page, document=doc)
    advance_page(discussion_id=discussion_id, page=page, count=bucket["count"])
    return Comment.from_doc(doc)


# --- Reading one discussion -------------------------------------------------------------


def _one(query: dict) -> Comment | None:
    """The first comment a bucket query matches, cut out by the positional projection."""
    bucket = _pages().find_one(query, {"discussion_id": 1, "comments.$": 1})
    found = unpack(bucket) if bucket else []
    return found[0] if found else None


def find_by_slug(*, discussion_id: ObjectId, slug: str) -> Comment | None:
    """The permalink: the bucket holding the slug, only that comment of it."""
    return _one({"discussion_id": discussion_id, "comments.slug": str(slug)})


def find_by_slugs(*, discussion_id: ObjectId, slugs: list[str]) -> list[Comment]:
    """The comments of one discussion with these slug paths, threaded, in one query."""
    if not slugs:
        return []
    wanted = {"$in": sorted({str(s) for s in slugs})}
    stages = unwound({"discussion_id": discussion_id, "comments.slug": wanted}, where={"slug": wanted})
    return _comments(stages, sort=ORDERS["threaded"])


def find_ancestors(*, comment: Comment) -> list[Comment]:
    """The comments above this one, root first, in one query."""
    return find_by_slugs(discussion_id=comment.discussion_id, slugs=slugs.ancestor_slugs(comment.slug))


def find_subthread(*, comment: Comment) -> list[Comment]:
    """The comment and all its descendants, threaded (the anchored `full_slug` prefix)."""
    inside = {"$regex": slugs.subtree_regex(comment.full_slug)}
    buckets = {"discussion_id": comment.discussion_id, "comments.full_slug": inside}
    stages = unwound(buckets, where={"full_slug": inside})
    return _comments(stages, sort=ORDERS["threaded"])


def _discussion(discussion_id: ObjectId, below: Comment | None) -> dict:
    """The buckets of a discussion (holding a reply below `below`, when given)."""
    if below is None:
        return {"discussion_id": discussion_id}
    return {"discussion_id": discussion_id, "comments.full_slug": {"$regex": slugs.replies_regex(below.full_slug)}}


def _scope(below: Comment | None, viewer: Viewer, *also: dict) -> dict:
    """Which unwound comments a listing holds: those `viewer` sees (below `below`)."""
    conditions = [visible_to(viewer), *also]
    if below is not None:
        conditions.append({"full_slug": {"$regex": slugs.replies_regex(below.full_slug)}})
    return {"$and": conditions}


def find_page(
    *,
    discussion_id: ObjectId,
    order: str,
    limit: int,
    skip: int = 0,
    after: tuple | None = None,
    before: tuple | None = None,
    below: Comment | None = None,
    viewer: Viewer = READERS,
) -> list[Comment]:
    """A page of a discussion (or of the replies below one comment) in `order`, as
    `viewer` sees it: by position (`skip`), or after / before a key.

    The chronological view by position walks the buckets when it can (`_walked`);
    every other page is one aggregation that sorts the discussion's comments on the
    server. Both give the documents store's result.
    """
    if limit <= 0:
        return []
    if order == "chronological" and after is None and before is None and below is None:
        walked = _walked(discussion_id=discussion_id, viewer=viewer, skip=skip, limit=limit)
        if walked is not None:
            return walked
    sort = ORDERS[order]
    keys: list[dict] = []
    if after is not None:
        keys.append(keyset.after(sort, after))
    elif before is not None:
        keys.append(keyset.before(sort, before))
        sort = keyset.reverse(sort)
    stages = unwound(_discussion(discussion_id, below), where=_scope(below, viewer, *keys))
    comments = _comments(stages, sort=sort, skip=skip, limit=limit)
    return comments[::-1] if before is not None else comments


def count(*, discussion_id: ObjectId, below: Comment | None = None, viewer: Viewer = READERS) -> int:
    """How many comments a discussion (or the replies below one comment) lists for `viewer`."""
    return tally(discussion_id=discussion_id, below=below, viewer=viewer).total


def tally(*, discussion_id: ObjectId, below: Comment | None = None, viewer: Viewer = READERS) -> Tally:
    """`count` and how many of those are placeholders, in one aggregation (grouped by
    status and placeholder; the server counts)."""
    stages = unwound(_discussion(discussion_id, below), where=_scope(below, viewer), fields=COUNT_FIELDS)
    groups = _pages().aggregate(stages + [
        {"$group": {"_id": {"s": "$comments.status", "p": "$comments.placeholder"}, "n": {"$sum": 1}}},
    ])
    return Tally.from_groups(groups, viewer)


def count_before(
    *, discussion_id: ObjectId, order: str, key: tuple, below: Comment | None = None, viewer: Viewer = READERS
) -> int:
    """How many comments sort before `key`: where a comment sits in a view."""
    before = _scope(below, viewer, keyset.before(ORDERS[order], key))
    return _counted(unwound(_discussion(discussion_id, below), where=before, fields=COUNT_FIELDS))


def count_approved(*, discussion_id: ObjectId) -> int:
    """How many approved comments a discussion has (a post's comment count)."""
    return _counted(unwound({"discussion_id": discussion_id}, where=APPROVED_ONLY, fields=("status",)))


def find_latest(*, discussion_id: ObjectId, limit: int) -> list[Comment]:
    """The newest approved comments of a discussion, newest first."""
    if limit <= 0:
        return []
    stages = unwound({"discussion_id": discussion_id}, where=APPROVED_ONLY)
    return _comments(stages, sort=NEWEST_FIRST, limit=limit)


def find_duplicate(
    *, discussion_id: ObjectId, parent_id: ObjectId | None, author: CommentAuthor, ip: str | None, text: str,
    since: datetime,
) -> Comment | None:
    """A comment with this text by this author in the same place since `since` (not
    spam or deleted): the buckets holding that text, the newest such comment in them."""
    same: dict[str, Any] = {
        "posted": {"$gte": since}, "parent_id": parent_id, "text": str(text), "status": {"$nin": [SPAM, DELETED]},
    }
    if author.id is not None:
        same["author.id"] = int(author.id)
    else:
        same.update({"author.id": None, "author.name": str(author.name), "author.email": str(author.email), "ip": ip})
    stages = unwound({"discussion_id": discussion_id, "comments": {"$elemMatch": same}}, where=same)
    found = _comments(stages, sort=NEWEST_FIRST, limit=1)
    return found[0] if found else None


def has_approved_reply(*, comment: Comment) -> bool:
    """Whether any reply below this comment, at any depth, is approved."""
    reply = {"full_slug": {"$regex": slugs.replies_regex(comment.full_slug)}, **APPROVED_ONLY}
    query = {"discussion_id": comment.discussion_id, "comments": {"$elemMatch": reply}}
    return _pages().find_one(query, {"_id": 1}) is not None


# --- Any comment, by id or by who wrote it ---------------------------------------------


def find_by_id(comment_id: ObjectId | str) -> Comment | None:
    try:
        oid = ObjectId(comment_id)
    except (InvalidId, TypeError):
        return None
    return _one({"comments._id": oid})


def find_by_ids(*, ids: Iterable[ObjectId]) -> list[Comment]:
    """The comments with these ids (any discussion, any status), newest first."""
    wanted = {"$in": list(set(ids))}
    if not wanted["$in"]:
        return []
    return _comments(unwound({"comments._id": wanted}, where={"_id": wanted}), sort=NEWEST_FIRST)


def find_by_keys(*, keys: list[tuple[ObjectId, str]]) -> list[Comment]:
    """The comments named by (discussion_id, slug) pairs, in one query over both lists
    (a slug of one discussion that only another listed is dropped here)."""
    if not keys:
        return []
    wanted = set(keys)
    slug_list = {"$in": list({s for _, s in wanted})}
    buckets = {"discussion_id": {"$in": list({d for d, _ in wanted})}, "comments.slug": slug_list}
    found = _comments(unwound(buckets, where={"slug": slug_list}))
    return [c for c in found if (c.discussion_id, c.slug) in wanted]


def has_approved_by(*, author_id: int | None = None, email: str = "") -> bool:
    """Whether this commenter (a member by id, or anyone by e-mail address) has an
    approved comment: who is *not* a first-time commenter."""
    if author_id is not None:
        mine: dict[str, Any] = {"author.id": int(author_id)}
    elif email:
        mine = {"author.email": str(email)}
    else:
        return False
    return _pages().find_one({"comments": {"$elemMatch": {**mine, **APPROVED_ONLY}}}, {"_id": 1}) is not None


def _commenter(commenter: Commenter) -> dict:
    """The condition on a comment's own fields that finds `commenter`'s comments."""
    return {"$or": [{field: condition} for field, condition in commenter_conditions(commenter)]}


def find_by_commenter(*, commenter: Commenter, exclude_status: str | None = None) -> list[Comment]:
    """The comments of `commenter` (all of them: bans are rare)."""
    theirs = _commenter(commenter)
    if exclude_status:
        theirs["status"] = {"$ne": exclude_status}
    return _comments(unwound({"comments": {"$elemMatch": theirs}}, where=theirs))


# --- Writes to comments already stored ------------------------------------------------


def _in_array(condition: dict, name: str = "c") -> dict:
    """A condition on a comment's own fields, as the arrayFilter `name` (FerretDB
    refuses `$or` at the top of an arrayFilter, so callers give plain fields)."""
    return {f"{name}.{field}": value for field, value in condition.items()}


def change(*, condition: dict, fields: dict, scope: dict | None = None, majority: bool = False) -> int:
    """Set `fields` (dotted paths) on every embedded comment meeting `condition` (plain
    fields of the comment), in the buckets matching `scope`: one update_many with the
    arrayFilter `c`. Returns how many of those comments differed just before (an
    aggregation count), what MongoDB's modified count is for the documents store."""
    differs = {**condition, "$or": [{path: {"$ne": value}} for path, value in fields.items()]}
    buckets = {**(scope or {}), "comments": {"$elemMatch": differs}}
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


def _ids(ids: Iterable[ObjectId]) -> dict:
    return {"_id": {"$in": list(set(ids))}}


def set_status(*, ids: Iterable[ObjectId], status: str, blank: bool = False) -> int:
    """Give these comments `status`; with `blank`, also empty their text (an author
    taking their words back). Returns how many changed."""
    condition = _ids(ids)
    if not condition["_id"]["$in"]:
        return 0
    fields: dict[str, Any] = {"status": status, **({"text": "", "html": ""} if blank else {})}
    return change(condition=condition, fields=fields)


def set_subthread_status(*, comment: Comment, status: str) -> int:
    """Give a comment and every reply below it `status` (no placeholders: the whole
    sub-thread goes), by the anchored `full_slug` prefix."""
    inside = {"full_slug": {"$regex": slugs.subtree_regex(comment.full_slug)}}
    return change(condition=inside, fields={"status": status, "placeholder": False},
                  scope={"discussion_id": comment.discussion_id})


def set_placeholder(*, ids: Iterable[ObjectId], placeholder: bool) -> int:
    condition = _ids(ids)
    if not condition["_id"]["$in"]:
        return 0
    return change(condition=condition, fields={"placeholder": placeholder})


def update_text(
    *, comment_id: ObjectId, text: str, html: str, status: str, edited: datetime
) -> Comment | None:
    """Store an author's edit (and the status its checks gave it); the comment after."""
    _pages().update_one(
        {"comments._id": comment_id},
        {"$set": {"comments.$.text": text, "comments.$.html": html, "comments.$.status": status,
                  "comments.$.edited": edited}},
    )
    return find_by_id(comment_id)


def set_flag_count(*, ids: Iterable[ObjectId], flag_count: int) -> None:
    """Store how many readers flagged these comments (counted by comments.flags)."""
    condition = _ids(ids)
    if condition["_id"]["$in"]:
        _pages().update_many(
            {"comments._id": condition["_id"]}, {"$set": {"comments.$[c].flag_count": flag_count}},
            array_filters=[_in_array(condition)],
        )


def set_author_name(*, author_id: int, name: str) -> int:
    """Give every comment by this user `name`; return how many changed. Only copies
    that disagree are written, so a rerun writes nothing; majority write concern."""
    mine = {"author.id": int(author_id), "author.name": {"$ne": str(name)}}
    return change(condition=mine, fields={"author.name": str(name)}, majority=True)


# --- The moderation queue -----------------------------------------------------------------


def _queue(tab: str, filters: QueueFilter) -> list[dict]:
    """The stages listing a queue tab's comments, unsorted (records.in_queue's rule)."""
    if tab not in QUEUE_TABS:
        raise ValueError(f"no queue tab {tab!r}")
    wanted: dict[str, Any] = {
        "pending": {"status": PENDING},
        "spam": {"status": SPAM},
        "flagged": {"flag_count": {"$gt": 0}, "status": {"$nin": [SPAM, DELETED]}},
        "recent": {},
    }[tab]
    wanted.update(filter_conditions(filters))
    buckets: dict[str, Any] = {"comments": {"$elemMatch": wanted}} if wanted else {}
    if filters.discussion_id is not None:
        buckets["discussion_id"] = filters.discussion_id
    return unwound(buckets, where=wanted)


def find_queue(*, tab: str, filters: QueueFilter, skip: int, limit: int) -> list[Comment]:
    """A page of a moderation queue tab."""
    if limit <= 0:
        return []
    return _comments(_queue(tab, filters), sort=queue_order(tab), skip=skip, limit=limit)


def count_queue(*, tab: str, filters: QueueFilter) -> int:
    return _counted(_queue(tab, filters))


# --- Author copies ----------------------------------------------------------------------


def find_latest_by_author(*, author_id: int, limit: int) -> list[Comment]:
    """A member's newest approved comments, on any post, newest first: the buckets
    holding any (the `comment_author_id` index), unwound to theirs."""
    if limit <= 0:
        return []
    mine = {"author.id": int(author_id), **APPROVED_ONLY}
    return _comments(unwound({"comments": {"$elemMatch": mine}}, where=mine), sort=NEWEST_FIRST, limit=limit)


def find_member_authors() -> list[CommentAuthor]:
    """Every distinct author copy of logged-in commenters (one per user when in sync)."""
    member = {"author.id": {"$ne": None}}
    stages = unwound({"comments": {"$elemMatch": member}}, where=member, fields=("author",))
    groups = _pages().aggregate(stages + [{"$group": {"_id": "$comments.author"}}])
    docs = [g["_id"] for g in groups if isinstance(g["_id"], dict) and g["_id"].get("id") is not None]
    return [CommentAuthor(id=d["id"], name=d.get("name", ""), email=d.get("email", "")) for d in docs]


def find_discussion_ids_by_author(*, author_id: int) -> list[ObjectId]:
    """The discussions this user has commented on."""
    return _pages().distinct("discussion_id", {"comments.author.id": int(author_id)})


# --- Export, import and migration: comments as flat documents --------------------------


def iter_documents(*, discussion_id: ObjectId | None = None, batch_size: int = 500) -> Iterator[dict]:
    """Every comment, of one discussion or of all, as the one-document store's flat
    documents, in discussion and posting order: the buckets stream in discussion and
    page order, and each discussion's comments are sorted in memory."""
    query = {} if discussion_id is None else {"discussion_id": discussion_id}
    cursor = _pages().find(query).sort([("discussion_id", ASCENDING), ("page", ASCENDING)]).batch_size(batch_size)
    current, held = None, []
    for bucket in cursor:
        if bucket["discussion_id"] != current:
            yield from _in_posting_order(held)
            current, held = bucket["discussion_id"], []
        held += [flat_document(c, current) for c in bucket.get("comments", ())]
    yield from _in_posting_order(held)


def _in_posting_order(documents: list[dict]) -> list[dict]:
    return sorted(documents, key=lambda d: (d["posted"], d["_id"]))


def insert_documents(*, documents: list[dict]) -> int:
    """Add flat comment documents as given (`_id`, slugs and times kept); return how
    many went in. One whose slug its discussion already has, or whose `_id` is
    already stored, is skipped. Each discussion's new comments are appended in
    posting order: the last page is filled up to PAGE_SIZE, the rest become whole
    new pages in one insert_many (the whole discussion, when it had none: a fast
    migration), and `num_pages` names the last page. Meant for migrations and
    restores, which run while the site posts nothing to these discussions."""
    by_discussion: dict[ObjectId, list[dict]] = defaultdict(list)
    for document in documents:
        by_discussion[document["discussion_id"]].append(document)
    return sum(_append(discussion_id, _new_ones(discussion_id, group))
               for discussion_id, group in by_discussion.items())


def _new_ones(discussion_id: ObjectId, group: list[dict]) -> list[dict]:
    """The documents of `group` to add: not already stored, no slug taken, each once."""
    taken = set(_pages().distinct("comments.slug", {"discussion_id": discussion_id}))
    seen_ids, fresh = set(_pages().distinct("comments._id", {"discussion_id": discussion_id})), []
    for document in _in_posting_order([{"_id": ObjectId(), **d} for d in group]):
        if document["slug"] in taken or document["_id"] in seen_ids:
            continue
        taken.add(document["slug"])
        seen_ids.add(document["_id"])
        fresh.append({k: v for k, v in document.items() if k != "discussion_id"})
    return fresh


def _head(comments: list[dict]) -> dict:
    """The head fields of a bucket holding `comments` (in posting order)."""
    return {"first": comments[0]["posted"], "last": comments[-1]["posted"]}


def _top_up(last: dict, fill: list[dict]) -> None:
    """Append `fill` to the bucket `last`, which stays in posting order (`$sort`)."""
    _pages().update_one({"_id": last["_id"]}, {
        "$inc": {"count": len(fill)}, "$push": {"comments": {"$each": fill, "$sort": POSTING_ORDER}},
        "$min": {"first": fill[0]["posted"]}, "$max": {"last": fill[-1]["posted"]},
    })


def _append(discussion_id: ObjectId, comments: list[dict]) -> int:
    """Append comments (embedded form) to a discussion: fill its last page, then new pages."""
    if not comments:
        return 0
    last = _pages().find_one({"discussion_id": discussion_id}, {"page": 1, "count": 1}, sort=[("page", -1)])
    page, room = (last["page"], max(0, PAGE_SIZE - last.get("count", 0))) if last else (0, 0)
    if room:
        _top_up(last, comments[:room])
    rest = comments[room:]
    chunks = [rest[i:i + PAGE_SIZE] for i in range(0, len(rest), PAGE_SIZE)]
    if chunks:
        _pages().insert_many([
            {"discussion_id": discussion_id, "page": page + n, "count": len(chunk), "comments": chunk,
             **_head(chunk), "ordered": True}
            for n, chunk in enumerate(chunks, start=1)
        ])
    get_host().set_comment_pages(discussion_id, num_pages=max(page + len(chunks), 1))
    return len(comments)


def discussion_ids() -> list[ObjectId]:
    """Every discussion that has comments here (what a migration copies)."""
    return sorted(_pages().distinct("discussion_id", {"count": {"$gt": 0}}))


def drop_discussion(*, discussion_id: ObjectId) -> int:
    """Delete every bucket and slug claim of one discussion and start its pages again
    at 1 (a migration clearing a partial copy); returns how many comments went."""
    went = _counted(unwound({"discussion_id": discussion_id}, fields=("_id",)))
    _pages().delete_many({"discussion_id": discussion_id})
    _claims().delete_many({"_id": {"$regex": "^" + re.escape(f"{discussion_id}/")}})
    get_host().set_comment_pages(discussion_id, num_pages=1)
    return went
