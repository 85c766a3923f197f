"""The `comments` collection: one document per comment (pattern 1 of
`storage-patterns.md`). The only module that touches it.

A document is exactly the pattern's, plus `thread` (the first part of
`full_slug`, for the newest-first view) and `html` (the text rendered once at
write time):

    {_id, discussion_id, parent_id, slug, full_slug, thread, posted,
     author: {id, name, email}, text, html}

Indexes, next to the queries they serve:
- `{discussion_id, slug}` unique: permalinks, ancestors, and slug uniqueness;
- `{discussion_id, full_slug}`: the threaded view and sub-threads;
- `{discussion_id, posted, _id}`: the chronological view and latest comments. It
  is the pattern's `{discussion_id, posted}` with `_id` appended, so that it also
  serves the tie-break that makes keyset paging exact when two comments share a
  millisecond; it serves every query the pattern's index does;
- `{discussion_id, thread: -1, full_slug}`: the newest-first threaded view.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bson import ObjectId
from pymongo import ASCENDING, DESCENDING, IndexModel
from pymongo.database import Database
from pymongo.errors import BulkWriteError, DuplicateKeyError
from pymongo.write_concern import WriteConcern

from cms.distinct import distinct
from cms.mongo import create_indexes, get_db
from comments import keyset, slugs

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
]

# The orders the views page through; the last field of each makes keys unique.
ORDERS: dict[str, list[tuple[str, int]]] = {
    "threaded": [("full_slug", ASCENDING)],
    "chronological": [("posted", ASCENDING), ("_id", ASCENDING)],
    "newest": [("thread", DESCENDING), ("full_slug", ASCENDING)],
}


def ensure_indexes(db: Database) -> list[str]:
    return create_indexes(db.comments, INDEXES)


class SlugTaken(Exception):
    """Another comment of the discussion already has this slug; draw a new part."""


@dataclass(frozen=True)
class CommentAuthor:
    id: int | None
    name: str
    email: str = ""


@dataclass(frozen=True)
class Comment:
    id: ObjectId
    discussion_id: ObjectId
    parent_id: ObjectId | None
    slug: str
    full_slug: str
    thread: str
    posted: datetime
    author: CommentAuthor
    text: str
    html: str
    # The key of the form that posted it (idempotent posting); None for imports.
    form_key: str | None = None

    @property
    def depth(self) -> int:
        return slugs.depth(self.slug)

    @property
    def anchor(self) -> str:
        return slugs.anchor(self.slug)

    @property
    def parent_slug(self) -> str | None:
        return slugs.parent_slug(self.slug)

    def key(self, order: str) -> tuple:
        """This comment's position in one of ORDERS (what a cursor stores)."""
        values = {"_id": self.id, "full_slug": self.full_slug, "posted": self.posted, "thread": self.thread}
        return tuple(values[field] for field, _ in ORDERS[order])

    @classmethod
    def from_doc(cls, doc: dict) -> Comment:
        author = doc.get("author") or {}
        return cls(
            id=doc["_id"],
            discussion_id=doc["discussion_id"],
            parent_id=doc.get("parent_id"),
            slug=doc["slug"],
            full_slug=doc["full_slug"],
            thread=doc.get("thread") or slugs.thread_key(doc["full_slug"]),
            posted=doc["posted"],
            author=CommentAuthor(id=author.get("id"), name=author.get("name", ""), email=author.get("email", "")),
            text=doc["text"],
            html=doc.get("html", ""),
            form_key=doc.get("form_key"),
        )


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
) -> Comment:
    """Insert one comment; SlugTaken if its slug is already used in the discussion."""
    doc = {
        "discussion_id": discussion_id,
        "parent_id": parent.id if parent else None,
        "slug": slug,
        "full_slug": full_slug,
        "thread": slugs.thread_key(full_slug),
        "posted": posted,
        "author": {"id": author.id, "name": author.name, "email": author.email},
        "text": text,
        "html": html,
        "form_key": form_key,
    }
    try:
        doc["_id"] = get_db().comments.insert_one(doc).inserted_id
    except DuplicateKeyError as exc:
        raise SlugTaken(slug) from exc
    return Comment.from_doc(doc)


def find_by_slug(*, discussion_id: ObjectId, slug: str) -> Comment | None:
    """The permalink query: one comment of one discussion, by its slug path."""
    doc = get_db().comments.find_one({"discussion_id": discussion_id, "slug": str(slug)})
    return Comment.from_doc(doc) if doc else None


def find_ancestors(*, comment: Comment) -> list[Comment]:
    """The comments above this one, root first, in one query."""
    above = slugs.ancestor_slugs(comment.slug)
    if not above:
        return []
    cursor = get_db().comments.find(
        {"discussion_id": comment.discussion_id, "slug": {"$in": above}}
    ).sort("full_slug", ASCENDING)
    return [Comment.from_doc(doc) for doc in cursor]


def find_subthread(*, comment: Comment) -> list[Comment]:
    """The comment and all its descendants, threaded (the pattern's sub-discussion)."""
    cursor = get_db().comments.find(
        {"discussion_id": comment.discussion_id, "full_slug": {"$regex": slugs.subtree_regex(comment.full_slug)}}
    ).sort("full_slug", ASCENDING)
    return [Comment.from_doc(doc) for doc in cursor]


def _scope(discussion_id: ObjectId, below: Comment | None) -> dict:
    query: dict[str, Any] = {"discussion_id": discussion_id}
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
) -> list[Comment]:
    """A page of a discussion (or of the replies below one comment) in `order`.

    Reached by position (`skip`) or, without skip's cost, by the key of the last
    comment of the previous page (`after`) or the first of the next (`before`).
    """
    sort = ORDERS[order]
    query = _scope(discussion_id, below)
    if after is not None:
        query = {"$and": [query, keyset.after(sort, after)]}
    elif before is not None:
        query = {"$and": [query, keyset.before(sort, before)]}
        sort = keyset.reverse(sort)
    cursor = get_db().comments.find(query).sort(sort).skip(skip).limit(limit)
    comments = [Comment.from_doc(doc) for doc in cursor]
    return comments[::-1] if before is not None else comments


def count(*, discussion_id: ObjectId, below: Comment | None = None) -> int:
    """How many comments a discussion (or the replies below one comment) has."""
    return get_db().comments.count_documents(_scope(discussion_id, below))


def count_before(*, discussion_id: ObjectId, order: str, key: tuple, below: Comment | None = None) -> int:
    """How many comments sort before `key`: where a comment sits in a view."""
    query = {"$and": [_scope(discussion_id, below), keyset.before(ORDERS[order], key)]}
    return get_db().comments.count_documents(query)


def find_latest(*, discussion_id: ObjectId, limit: int) -> list[Comment]:
    """The newest comments of a discussion, newest first."""
    cursor = (
        get_db().comments.find({"discussion_id": discussion_id})
        .sort([("posted", DESCENDING), ("_id", DESCENDING)])
        .limit(limit)
    )
    return [Comment.from_doc(doc) for doc in cursor]


# --- Author copies: the authors issue (renames, author pages) ------------------------
# A logged-in commenter's comments embed `author.id` (the Django user's pk) and their
# display name. Renames find them by `author.id`; there is no index on it (the four
# above are the pattern's), so these scan: renames are rare and sync_authors only
# writes to the authors whose copies disagree.


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


def find_member_authors() -> list[CommentAuthor]:
    """Every distinct author copy of logged-in commenters (one per user when in sync)."""
    docs = distinct(get_db().comments, "author", {"author.id": {"$ne": None}})
    return [CommentAuthor(id=d["id"], name=d.get("name", ""), email=d.get("email", "")) for d in docs]


def find_discussion_ids_by_author(*, author_id: int) -> list[ObjectId]:
    """The discussions this user has commented on."""
    return distinct(get_db().comments, "discussion_id", {"author.id": int(author_id)})


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
