"""Putting comments into the buckets of `comment_pages` (comments/stores/buckets.py,
whose module docstring describes the bucket): posting one comment (the slug's page
claim in `comment_claims`, the pattern's conditional upsert, the discussion's
`num_pages` advance) and appending many in whole pages (migrations, restores).
Single-document writes only; the store reads, counts and changes what is stored.
"""

from __future__ import annotations

import random
import time
from typing import Any

from bson import ObjectId
from pymongo import ReturnDocument
from pymongo.collection import Collection
from pymongo.errors import DuplicateKeyError, OperationFailure

from comments import discussion_state
from comments.records import ORDERS, SlugTaken
from comments.stores.containers import sorted_by_posting
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


def _push(*, discussion_id: ObjectId, page: int, comment: dict) -> Any:
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
    return discussion_state.advance_pages(discussion_id, from_page=page)


# --- Appending whole pages ---------------------------------------------------------------


def new_ones(discussion_id: ObjectId, group: list[dict]) -> list[dict]:
    """The documents of `group` to add: not already stored, no slug taken, each once."""
    taken = set(_pages().distinct("comments.slug", {"discussion_id": discussion_id}))
    seen_ids, fresh = set(_pages().distinct("comments._id", {"discussion_id": discussion_id})), []
    for document in sorted_by_posting([{"_id": ObjectId(), **d} for d in group]):
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


def append(discussion_id: ObjectId, comments: list[dict]) -> int:
    """Append comments (embedded form) to a discussion: fill its last page, then new pages."""
    if not comments:
        return 0
    last = _pages().find_one({"discussion_id": discussion_id}, {"page": 1, "count": 1}, sort=[("page", -1)])
    page, room = (last["page"], max(0, PAGE_SIZE - last.get("count", 0))) if last else (0, 0)
    if last and room:
        _top_up(last, comments[:room])
    rest = comments[room:]
    chunks = [rest[i:i + PAGE_SIZE] for i in range(0, len(rest), PAGE_SIZE)]
    if chunks:
        _pages().insert_many([
            {"discussion_id": discussion_id, "page": page + n, "count": len(chunk), "comments": chunk,
             **_head(chunk), "ordered": True}
            for n, chunk in enumerate(chunks, start=1)
        ])
    discussion_state.set_pages(discussion_id, num_pages=max(page + len(chunks), 1))
    return len(comments)


