"""The `comments` collection: one document per comment (pattern 1 of
`storage-patterns.md`). The only module that touches it.

A document is exactly the pattern's, plus `thread` (the first part of
`full_slug`, for the newest-first view), `html` (the text rendered once at
write time) and the moderation fields:

    {_id, discussion_id, parent_id, slug, full_slug, thread, posted,
     author: {id, name, email}, text, html, form_key,
     status, placeholder, ip, edited, flag_count}

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

Indexes, next to the queries they serve:
- `{discussion_id, slug}` unique: permalinks, ancestors, and slug uniqueness;
- `{discussion_id, full_slug}`: the threaded view and sub-threads;
- `{discussion_id, posted, _id}`: the chronological view and latest comments. It
  is the pattern's `{discussion_id, posted}` with `_id` appended, so that it also
  serves the tie-break that makes keyset paging exact when two comments share a
  millisecond; it serves every query the pattern's index does;
- `{discussion_id, thread: -1, full_slug}`: the newest-first threaded view.

The moderation queue's indexes (none of them unique, so none stands in the way of
sharding on `{discussion_id, slug}`):
- `{status, posted: -1}`: the pending, spam and deleted tabs, newest first;
- `{posted: -1}`: the recent tab, every comment newest first;
- `{flag_count: -1, posted: -1}`: the flagged tab, most flagged first;
- `{author.email, posted: -1}`, `{author.id, posted: -1}`, `{ip, posted: -1}`: a
  commenter's comments (queue filters, bans, the first-time-commenter check, renames).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo import ASCENDING, DESCENDING, IndexModel, ReturnDocument
from pymongo.database import Database
from pymongo.errors import BulkWriteError, DuplicateKeyError
from pymongo.write_concern import WriteConcern

from comments import keyset, slugs
from comments.records import (
    APPROVED,
    DELETED,
    HIDDEN,
    NEWEST,
    ORDERS,
    PENDING,
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
    visible_to,
)
from infra.mongo import get_db

INDEXES = [
    IndexModel([("discussion_id", ASCENDING), ("slug", ASCENDING)], unique=True, name="discussion_slug"),
    IndexModel([("discussion_id", ASCENDING), ("full_slug", ASCENDING)], name="discussion_full_slug"),
    IndexModel(
        [("discussion_id", ASCENDING), ("posted", ASCENDING), ("_id", ASCENDING)],
        name="discussion_posted",
    ),
    IndexModel(
        [("discussion_id", ASCENDING), ("thread", DESCENDING), ("full_slug", ASCENDING)],
        name="discussion_thread_newest",
    ),
    # The moderation queue and commenters' histories (see the module docstring).
    IndexModel([("status", ASCENDING), ("posted", DESCENDING)], name="status_posted"),
    IndexModel([("posted", DESCENDING)], name="posted"),
    IndexModel([("flag_count", DESCENDING), ("posted", DESCENDING)], name="flagged"),
    IndexModel([("author.email", ASCENDING), ("posted", DESCENDING)], name="author_email"),
    IndexModel([("author.id", ASCENDING), ("posted", DESCENDING)], name="author_id"),
    IndexModel([("ip", ASCENDING), ("posted", DESCENDING)], name="ip"),
]

# The index that serves each of ORDERS: every page query names it (a hint), since a
# query planner may otherwise pick another index of the discussion that filters but
# cannot bound the page at its key (DocumentDB's did for threaded cursor pages).
ORDER_INDEXES = {
    "threaded": "discussion_full_slug",
    "chronological": "discussion_posted",
    "newest": "discussion_thread_newest",
}


def ensure_indexes(db: Database) -> list[str]:
    return db.comments.create_indexes(INDEXES)


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
    """Insert one comment; SlugTaken if its slug is already used in the discussion."""
    doc = new_document(
        discussion_id=discussion_id, parent=parent, slug=slug, full_slug=full_slug, posted=posted, author=author,
        text=text, html=html, form_key=form_key, status=status, ip=ip,
    )
    try:
        get_db().comments.insert_one(doc)
    except DuplicateKeyError as exc:
        raise SlugTaken(slug) from exc
    return Comment.from_doc(doc)


def find_by_slug(*, discussion_id: ObjectId, slug: str) -> Comment | None:
    """The permalink query: one comment of one discussion, by its slug path."""
    doc = get_db().comments.find_one({"discussion_id": discussion_id, "slug": str(slug)})
    return Comment.from_doc(doc) if doc else None


def find_ancestors(*, comment: Comment) -> list[Comment]:
    """The comments above this one, root first, in one query (whatever their status:
    the page shows a hidden one as a placeholder)."""
    return find_by_slugs(discussion_id=comment.discussion_id, slugs=slugs.ancestor_slugs(comment.slug))


def find_by_slugs(*, discussion_id: ObjectId, slugs: list[str]) -> list[Comment]:
    """The comments of one discussion with these slug paths, threaded, in one query."""
    if not slugs:
        return []
    cursor = get_db().comments.find(
        {"discussion_id": discussion_id, "slug": {"$in": [str(s) for s in slugs]}}
    ).sort("full_slug", ASCENDING)
    return [Comment.from_doc(doc) for doc in cursor]


def find_by_id(comment_id: ObjectId | str) -> Comment | None:
    try:
        oid = ObjectId(comment_id)
    except (InvalidId, TypeError):
        return None
    doc = get_db().comments.find_one({"_id": oid})
    return Comment.from_doc(doc) if doc else None


def find_by_ids(*, ids: Iterable[ObjectId]) -> list[Comment]:
    """The comments with these ids (any discussion, any status), newest first."""
    cursor = get_db().comments.find({"_id": {"$in": list(ids)}}).sort("posted", DESCENDING)
    return [Comment.from_doc(doc) for doc in cursor]


def find_subthread(*, comment: Comment) -> list[Comment]:
    """The comment and all its descendants, threaded (the pattern's sub-discussion)."""
    cursor = get_db().comments.find(
        {"discussion_id": comment.discussion_id, "full_slug": {"$regex": slugs.subtree_regex(comment.full_slug)}}
    ).sort("full_slug", ASCENDING)
    return [Comment.from_doc(doc) for doc in cursor]


def _scope(discussion_id: ObjectId, below: Comment | None, viewer: Viewer = READERS) -> dict:
    query: dict[str, Any] = {"discussion_id": discussion_id, **visible_to(viewer)}
    if below is not None:
        query["full_slug"] = {"$regex": slugs.replies_regex(below.full_slug)}
    return query


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
    `viewer` sees it.

    Reached by position (`skip`) or, without skip's cost, by the key of the last
    comment of the previous page (`after`) or the first of the next (`before`).
    """
    sort = ORDERS[order]
    query = _scope(discussion_id, below, viewer)
    if after is not None:
        query = {"$and": [query, keyset.after(sort, after)]}
    elif before is not None:
        query = {"$and": [query, keyset.before(sort, before)]}
        sort = keyset.reverse(sort)
    cursor = get_db().comments.find(query).sort(sort).skip(skip).limit(limit).hint(ORDER_INDEXES[order])
    comments = [Comment.from_doc(doc) for doc in cursor]
    return comments[::-1] if before is not None else comments


def count(*, discussion_id: ObjectId, below: Comment | None = None, viewer: Viewer = READERS) -> int:
    """How many comments a discussion (or the replies below one comment) lists for `viewer`."""
    return get_db().comments.count_documents(_scope(discussion_id, below, viewer))


def tally(*, discussion_id: ObjectId, below: Comment | None = None, viewer: Viewer = READERS) -> Tally:
    """`count` and how many of those are placeholders, in one aggregate command
    (grouped by status and placeholder; the server counts, nothing is fetched)."""
    groups = get_db().comments.aggregate([
        {"$match": _scope(discussion_id, below, viewer)},
        {"$group": {"_id": {"s": "$status", "p": "$placeholder"}, "n": {"$sum": 1}}},
    ])
    return Tally.from_groups(groups, viewer)


def count_before(
    *, discussion_id: ObjectId, order: str, key: tuple, below: Comment | None = None, viewer: Viewer = READERS
) -> int:
    """How many comments sort before `key`: where a comment sits in a view."""
    query = {"$and": [_scope(discussion_id, below, viewer), keyset.before(ORDERS[order], key)]}
    return get_db().comments.count_documents(query, hint=ORDER_INDEXES[order])


APPROVED_ONLY = {"status": {"$nin": list(HIDDEN)}}


def count_approved(*, discussion_id: ObjectId) -> int:
    """How many approved comments a discussion has (a post's comment count)."""
    return get_db().comments.count_documents({"discussion_id": discussion_id, **APPROVED_ONLY})


def find_latest(*, discussion_id: ObjectId, limit: int) -> list[Comment]:
    """The newest approved comments of a discussion, newest first: the discussion's
    `{discussion_id, posted, _id}` index read backwards (named, since a planner may
    otherwise walk the collection-wide `{posted}` index until it meets enough of
    this discussion's comments: 0.8 s in a collection of 200,000 on DocumentDB)."""
    cursor = (
        get_db().comments.find({"discussion_id": discussion_id, **APPROVED_ONLY})
        .sort([("posted", DESCENDING), ("_id", DESCENDING)])
        .limit(limit)
        .hint(ORDER_INDEXES["chronological"])
    )
    return [Comment.from_doc(doc) for doc in cursor]


# --- Moderation: statuses, placeholders, edits, flags, duplicates, the queue ---------


def set_status(*, ids: Iterable[ObjectId], status: str, blank: bool = False) -> int:
    """Give these comments `status` in one update_many; with `blank`, also empty their
    text (an author taking their words back). Returns how many changed."""
    changes: dict[str, Any] = {"status": status}
    if blank:
        changes.update(text="", html="")
    result = get_db().comments.update_many({"_id": {"$in": list(ids)}}, {"$set": changes})
    return result.modified_count


def set_subthread_status(*, comment: Comment, status: str) -> int:
    """Give a comment and every reply below it `status`, in one update_many on the
    anchored `full_slug` prefix (no placeholders: the whole sub-thread goes)."""
    result = get_db().comments.update_many(
        {
            "discussion_id": comment.discussion_id,
            "full_slug": {"$regex": slugs.subtree_regex(comment.full_slug)},
        },
        {"$set": {"status": status, "placeholder": False}},
    )
    return result.modified_count


def set_placeholder(*, ids: Iterable[ObjectId], placeholder: bool) -> int:
    ids = list(ids)
    if not ids:
        return 0
    result = get_db().comments.update_many({"_id": {"$in": ids}}, {"$set": {"placeholder": placeholder}})
    return result.modified_count


def has_approved_reply(*, comment: Comment) -> bool:
    """Whether any reply below this comment, at any depth, is approved."""
    query = {
        "discussion_id": comment.discussion_id,
        "full_slug": {"$regex": slugs.replies_regex(comment.full_slug)},
        **APPROVED_ONLY,
    }
    return get_db().comments.find_one(query, {"_id": 1}) is not None


def update_text(
    *, comment_id: ObjectId, text: str, html: str, status: str, edited: datetime
) -> Comment | None:
    """Store an author's edit (and the status its checks gave it); the comment after."""
    doc = get_db().comments.find_one_and_update(
        {"_id": comment_id},
        {"$set": {"text": text, "html": html, "status": status, "edited": edited}},
        return_document=ReturnDocument.AFTER,
    )
    return Comment.from_doc(doc) if doc else None


def set_flag_count(*, ids: Iterable[ObjectId], flag_count: int) -> None:
    """Store how many readers flagged these comments (counted by comments.flags)."""
    get_db().comments.update_many({"_id": {"$in": list(ids)}}, {"$set": {"flag_count": flag_count}})


def find_duplicate(
    *, discussion_id: ObjectId, parent_id: ObjectId | None, author: CommentAuthor, ip: str | None, text: str,
    since: datetime,
) -> Comment | None:
    """A comment with this text by this author in the same place since `since` (not
    spam or deleted): the one to give back instead of storing a copy. Served by the
    `{discussion_id, posted}` index."""
    query: dict[str, Any] = {
        "discussion_id": discussion_id,
        "posted": {"$gte": since},
        "parent_id": parent_id,
        "text": str(text),
        "status": {"$nin": [SPAM, DELETED]},
    }
    if author.id is not None:
        query["author.id"] = int(author.id)
    else:
        query.update({"author.id": None, "author.name": str(author.name), "author.email": str(author.email),
                      "ip": ip})
    doc = get_db().comments.find_one(query, sort=[("posted", DESCENDING)])
    return Comment.from_doc(doc) if doc else None


def has_approved_by(*, author_id: int | None = None, email: str = "") -> bool:
    """Whether this commenter (a member by id, or anyone by e-mail address) has an
    approved comment: who is *not* a first-time commenter."""
    if author_id is not None:
        query: dict[str, Any] = {"author.id": int(author_id)}
    elif email:
        query = {"author.email": str(email)}
    else:
        return False
    return get_db().comments.find_one({**query, **APPROVED_ONLY}, {"_id": 1}) is not None


def _commenter_query(commenter: Commenter) -> dict:
    """The query for `commenter`'s comments."""
    return {"$or": [{field: condition} for field, condition in commenter_conditions(commenter)]}


def find_by_commenter(*, commenter: Commenter, exclude_status: str | None = None) -> list[Comment]:
    """The comments of `commenter` (all of them: bans are rare)."""
    query = _commenter_query(commenter)
    if exclude_status:
        query["status"] = {"$ne": exclude_status}
    return [Comment.from_doc(doc) for doc in get_db().comments.find(query)]


def _queue(tab: str, filters: QueueFilter) -> tuple[dict, list[tuple[str, int]]]:
    """The query and sort of a queue tab (indexes: status_posted, flagged, posted)."""
    if tab == "pending":
        query, sort = {"status": PENDING}, NEWEST
    elif tab == "spam":
        query, sort = {"status": SPAM}, NEWEST
    elif tab == "flagged":
        query = {"flag_count": {"$gt": 0}, "status": {"$nin": [SPAM, DELETED]}}
        sort = [("flag_count", DESCENDING)] + NEWEST
    elif tab == "recent":
        query, sort = {}, NEWEST
    else:
        raise ValueError(f"no queue tab {tab!r}")
    if filters.discussion_id is not None:
        query["discussion_id"] = filters.discussion_id
    query.update(filter_conditions(filters))
    return query, sort


def find_queue(*, tab: str, filters: QueueFilter, skip: int, limit: int) -> list[Comment]:
    """A page of a moderation queue tab."""
    query, sort = _queue(tab, filters)
    cursor = get_db().comments.find(query).sort(sort).skip(skip).limit(limit)
    return [Comment.from_doc(doc) for doc in cursor]


def count_queue(*, tab: str, filters: QueueFilter) -> int:
    return get_db().comments.count_documents(_queue(tab, filters)[0])


# --- Author copies: the authors issue (renames, author pages) ------------------------
# A logged-in commenter's comments embed `author.id` (the Django user's pk) and their
# display name. Renames find them by `author.id` (the `author_id` index the moderation
# queue added serves them); sync_authors only writes to the authors whose copies disagree.


def find_by_keys(*, keys: list[tuple[ObjectId, str]]) -> list[Comment]:
    """The comments named by (discussion_id, slug) pairs, in one `$in` query.

    The query is over both lists, so it can match a slug of one discussion that
    only another listed; those extras are dropped here.
    """
    if not keys:
        return []
    wanted = set(keys)
    cursor = get_db().comments.find({
        "discussion_id": {"$in": list({d for d, _ in wanted})},
        "slug": {"$in": list({s for _, s in wanted})},
    })
    return [c for c in map(Comment.from_doc, cursor) if (c.discussion_id, c.slug) in wanted]


def find_latest_by_author(*, author_id: int, limit: int) -> list[Comment]:
    """A member's newest approved comments, on any post, newest first: the
    `{author.id, posted}` index."""
    cursor = (
        get_db().comments.find({"author.id": int(author_id), **APPROVED_ONLY})
        .sort([("posted", DESCENDING), ("_id", DESCENDING)])
        .limit(max(0, limit))
        .hint("author_id")
    )
    return [Comment.from_doc(doc) for doc in cursor] if limit > 0 else []


def find_member_authors() -> list[CommentAuthor]:
    """Every distinct author copy of logged-in commenters (one per user when in sync)."""
    docs = get_db().comments.distinct("author", {"author.id": {"$ne": None}})
    return [CommentAuthor(id=d["id"], name=d.get("name", ""), email=d.get("email", "")) for d in docs]


def find_discussion_ids_by_author(*, author_id: int) -> list[ObjectId]:
    """The discussions this user has commented on."""
    return get_db().comments.distinct("discussion_id", {"author.id": int(author_id)})


def set_author_name(*, author_id: int, name: str) -> int:
    """Give every comment by this user `name`; return how many changed.

    Only copies that disagree match, so a rerun writes nothing; a majority write
    concern keeps a rename from rolling back on a replica set.
    """
    comments = get_db().comments.with_options(write_concern=WriteConcern(w="majority"))
    result = comments.update_many(
        {"author.id": int(author_id), "author.name": {"$ne": str(name)}}, {"$set": {"author.name": str(name)}}
    )
    return result.modified_count


# --- Export and import (comments/backup.py) ---------------------------------------------
# Raw documents, on purpose: a backup carries every field, also those this module does
# not model, and an import writes them back exactly as they were.

EXPORT_ORDER = [("discussion_id", ASCENDING), ("posted", ASCENDING), ("_id", ASCENDING)]
DUPLICATE_KEY = 11000


def iter_documents(*, discussion_id: ObjectId | None = None, batch_size: int = 500) -> Iterator[dict]:
    """Every comment document, of one discussion or of all, streamed by one cursor in
    discussion and posting order (the `discussion_posted` index: no sort in memory)."""
    query = {} if discussion_id is None else {"discussion_id": discussion_id}
    yield from get_db().comments.find(query).sort(EXPORT_ORDER).batch_size(batch_size)


def insert_documents(*, documents: list[dict]) -> int:
    """Insert comment documents as given (their `_id`, slugs and times kept); return
    how many went in. One the discussion already has (same slug, or same `_id`) is
    skipped: the unique index refuses it and, the insert being unordered, the rest of
    the batch still goes in."""
    if not documents:
        return 0
    try:
        return len(get_db().comments.insert_many(documents, ordered=False).inserted_ids)
    except BulkWriteError as exc:
        if any(error["code"] != DUPLICATE_KEY for error in exc.details["writeErrors"]):
            raise
        return exc.details["nInserted"]


def discussion_ids() -> list[ObjectId]:
    """Every discussion that has comments here (what a migration copies)."""
    return sorted(get_db().comments.distinct("discussion_id"))


def drop_discussion(*, discussion_id: ObjectId) -> int:
    """Delete every comment of one discussion (a migration clearing a partial copy
    before it copies the discussion again); returns how many went."""
    return get_db().comments.delete_many({"discussion_id": discussion_id}).deleted_count
