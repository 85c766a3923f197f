"""Putting comments into the buckets of `comment_pages` (comments/stores/buckets.py,
whose module docstring describes the bucket): posting one comment (the slug's page
claim in `comment_claims`, the pattern's conditional push, the discussion's
`num_pages` advance) and appending many in whole pages (migrations, restores).
Single-document writes only; the store reads, counts and changes what is stored.
"""

from __future__ import annotations

from typing import Any

from bson import ObjectId
from pymongo import ReturnDocument, UpdateOne
from pymongo.collection import Collection
from pymongo.errors import DuplicateKeyError

from comments.records import ORDERS, SlugTaken
from comments.stores import discussion_state
from comments.stores.containers import sorted_by_posting
from infra.mongo import get_db

# A page takes new comments until its count passes this (it may end a few over).
PAGE_SIZE = 100
# A push matches nothing at most once (its page did not exist yet) unless the
# discussion's pages are removed meanwhile (its comments deleted for good).
PUSH_ATTEMPTS = 3
NO_PAGE = "Could not add a comment to page {page} of discussion {discussion_id}."

# How a bucket keeps its comments: the chronological view's order.
POSTING_ORDER = dict(ORDERS["chronological"])


def _pages() -> Collection:
    return get_db().comment_pages


def _claims() -> Collection:
    return get_db().comment_claims


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


def bucket_id(discussion_id: ObjectId, page: int) -> str:
    """The `_id` of a discussion's page: buckets are created with it, so two writers
    creating one page collide on `_id` (see `_create_page`)."""
    return f"{discussion_id}/{page}"


def _push(*, discussion_id: ObjectId, page: int, comment: dict) -> Any:
    """One try of the pattern's update, conditional on the page not holding the slug;
    the bucket's count after, or None when no page matched (none yet, or it holds the
    slug). `$sort` keeps the bucket in posting order whatever order concurrent writers
    arrive in, so it stays `ordered`."""
    return _pages().find_one_and_update(
        {"discussion_id": discussion_id, "page": page, "comments.slug": {"$ne": comment["slug"]}},
        {
            "$inc": {"count": 1},
            "$push": {"comments": {"$each": [comment], "$sort": POSTING_ORDER}},
            "$min": {"first": comment["posted"]},
            "$max": {"last": comment["posted"]},
        },
        projection={"count": 1}, return_document=ReturnDocument.AFTER,
    )


def _create_page(*, discussion_id: ObjectId, page: int) -> None:
    """Insert the page's empty bucket, unless another writer has.

    The pattern creates a page with its push's upsert. FerretDB v2 checks the unique
    `{discussion_id, page}` index as a PostgreSQL exclusion constraint, and racing
    inserts into one abort each other as deadlocks (about 1 s each; under load, chains
    of them held writers past a minute), while an upsert that races on `_id` can lose
    its increment. A plain insert keyed by `bucket_id` races on the primary key
    instead: the later writer waits for the first and gets DuplicateKeyError, as on
    MongoDB. A page left empty by a writer that died here is filled by the next push."""
    try:
        _pages().insert_one({"_id": bucket_id(discussion_id, page), "discussion_id": discussion_id,
                             "page": page, "count": 0, "comments": [], "ordered": True})
    except DuplicateKeyError:
        pass


def push_comment(*, discussion_id: ObjectId, page: int, document: dict) -> dict:
    """Push one comment (a records.new_document) onto `page`, creating the page if
    need be; the bucket's count after (`{"count": n}`). SlugTaken if the page holds
    the slug.

    The push is one atomic single-document update whose filter requires the page not
    to hold the slug. When it matches nothing, either the page holds the slug
    (SlugTaken) or the page does not exist yet: this writer creates it (or another
    one just did) and pushes again.
    """
    comment = {k: v for k, v in document.items() if k != "discussion_id"}
    holding = {"discussion_id": discussion_id, "page": page, "comments.slug": comment["slug"]}
    for _ in range(PUSH_ATTEMPTS):
        pushed = _push(discussion_id=discussion_id, page=page, comment=comment)
        if pushed is not None:
            return pushed
        if _pages().find_one(holding, {"_id": 1}) is not None:
            raise SlugTaken(comment["slug"])
        _create_page(discussion_id=discussion_id, page=page)
    raise RuntimeError(NO_PAGE.format(page=page, discussion_id=discussion_id))


def advance_page(*, discussion_id: ObjectId, page: int, count: int) -> bool:
    """After a push that left `page` holding `count` comments: when that passes
    PAGE_SIZE, move the discussion's `num_pages` from `page` to the next. Whether
    this call advanced it (of two writers past the limit, exactly one does)."""
    if count <= PAGE_SIZE:
        return False
    return discussion_state.advance_pages(discussion_id, from_page=page)


# --- Appending whole pages ---------------------------------------------------------------


def new_ones(groups: dict[ObjectId, list[dict]]) -> dict[ObjectId, list[dict]]:
    """The documents of each discussion's group to add, in posting order (embedded
    form): not already stored in that discussion, no slug taken there, each once. One
    query for every group: the buckets holding one of their slugs or ids."""
    slugs = sorted({d["slug"] for group in groups.values() for d in group})
    ids = sorted({d["_id"] for group in groups.values() for d in group if "_id" in d})
    taken: dict[ObjectId, set] = {discussion_id: set() for discussion_id in groups}
    holding = {"discussion_id": {"$in": list(groups)},
               "$or": [{"comments.slug": {"$in": slugs}}, {"comments._id": {"$in": ids}}]}
    for bucket in _pages().find(holding, {"discussion_id": 1, "comments.slug": 1, "comments._id": 1}):
        for comment in bucket.get("comments", ()):
            taken[bucket["discussion_id"]] |= {comment["slug"], comment["_id"]}
    fresh: dict[ObjectId, list[dict]] = {}
    for discussion_id, group in groups.items():
        held, kept = taken[discussion_id], []
        for document in sorted_by_posting([{"_id": ObjectId(), **d} for d in group]):
            if document["slug"] in held or document["_id"] in held:
                continue
            held |= {document["slug"], document["_id"]}
            kept.append({k: v for k, v in document.items() if k != "discussion_id"})
        if kept:
            fresh[discussion_id] = kept
    return fresh


def _head(comments: list[dict]) -> dict:
    """The head fields of a bucket holding `comments` (in posting order)."""
    return {"first": comments[0]["posted"], "last": comments[-1]["posted"]}


def _top_up(last: dict, fill: list[dict]) -> UpdateOne:
    """Append `fill` to the bucket `last`, which stays in posting order (`$sort`)."""
    return UpdateOne({"_id": last["_id"]}, {
        "$inc": {"count": len(fill)}, "$push": {"comments": {"$each": fill, "$sort": POSTING_ORDER}},
        "$min": {"first": fill[0]["posted"]}, "$max": {"last": fill[-1]["posted"]},
    })


def append(groups: dict[ObjectId, list[dict]]) -> int:
    """Append comments (embedded form) to their discussions: fill each one's last page,
    then new pages. A few round trips for every discussion at once: their last pages'
    heads, the top-ups (one bulk write), the new pages (one insert_many), the
    discussions' `num_pages` (one bulk write), in that order, so a run stopped between
    them leaves only what a rerun completes."""
    groups = {discussion_id: comments for discussion_id, comments in groups.items() if comments}
    if not groups:
        return 0
    last: dict[ObjectId, dict] = {}
    heads = _pages().find({"discussion_id": {"$in": list(groups)}}, {"discussion_id": 1, "page": 1, "count": 1})
    for head in heads:
        if head["page"] > last.get(head["discussion_id"], {"page": 0})["page"]:
            last[head["discussion_id"]] = head
    top_ups, pages, num_pages = [], [], {}
    for discussion_id, comments in groups.items():
        bucket = last.get(discussion_id)
        page, room = (bucket["page"], max(0, PAGE_SIZE - bucket.get("count", 0))) if bucket else (0, 0)
        if bucket and room:
            top_ups.append(_top_up(bucket, comments[:room]))
        rest = comments[room:]
        chunks = [rest[i:i + PAGE_SIZE] for i in range(0, len(rest), PAGE_SIZE)]
        pages += [{"_id": bucket_id(discussion_id, page + n), "discussion_id": discussion_id,
                   "page": page + n, "count": len(chunk), "comments": chunk, **_head(chunk), "ordered": True}
                  for n, chunk in enumerate(chunks, start=1)]
        num_pages[discussion_id] = max(page + len(chunks), 1)
    if top_ups:
        _pages().bulk_write(top_ups, ordered=False)
    if pages:
        _pages().insert_many(pages)
    discussion_state.set_pages(num_pages)
    return sum(len(comments) for comments in groups.values())
