"""The comment summary a post carries for the comments app (the subset pattern: count,
listing length, latest comments, and the comments version cached lists are keyed by),
and the buckets comment store's page counter on the post. Moved verbatim out of
cms/posts.py; the comments app reaches these through the host (cms/comments_host.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from bson import ObjectId
from pymongo import ASCENDING

from comments.host import LatestComment
from infra.mongo import get_db


def _latest_comment(doc: dict) -> LatestComment:
    return LatestComment(
        slug=doc["slug"], author_name=doc["author_name"], posted=doc["posted"], excerpt=doc["excerpt"]
    )


def new_comments_version() -> str:
    """A token no comment list was ever cached under (comments/fragments.py): a fresh
    ObjectId, so a version is never reused, whatever order writers store theirs in."""
    return str(ObjectId())


def read_comments_version(*, post_id: ObjectId) -> str | None:
    """The post's comments version as stored ("" on a post stored before it had one),
    or None when there is no such post: what `set_comment_summary` compares."""
    doc = get_db().posts.find_one({"_id": post_id}, {"comments_version": 1})
    return None if doc is None else str(doc.get("comments_version") or "")


def set_comment_summary(
    *, post_id: ObjectId, if_version: str, count: int, listed: int, latest: list[LatestComment]
) -> bool:
    """Store a post's comment count, the length of a reader's listing of them, and its
    latest comments (the subset pattern), with a new comments version, if the post's
    comments version is still `if_version`; whether it was (compare-and-set: see
    comments.summaries.refresh_summary). Every change to a post's comments ends here."""
    same = {"comments_version": if_version} if if_version else {"comments_version": {"$in": [None, ""]}}
    result = get_db().posts.update_one(
        {"_id": post_id, **same},
        {"$set": {
            "comments_version": new_comments_version(),
            "comment_count": count,
            "listed_comments": listed,
            "latest_comments": [
                {"slug": c.slug, "author_name": c.author_name, "posted": c.posted, "excerpt": c.excerpt}
                for c in latest
            ],
        }},
    )
    return result.matched_count == 1


def bump_comments_version(*, post_ids) -> int:
    """Give these posts a new comments version (their cached comment lists are then
    never read again): for changes to comments that leave the summary as it is, such
    as a commenter's new name. Returns how many posts it matched."""
    ids = list(post_ids)
    if not ids:
        return 0
    result = get_db().posts.update_many(
        {"_id": {"$in": ids}}, {"$set": {"comments_version": new_comments_version()}}
    )
    return result.matched_count


def find_comment_summaries(
    *, post_ids: list[ObjectId] | None = None
) -> Iterator[tuple[ObjectId, tuple[LatestComment, ...]]]:
    """(post id, latest comments) of the posts that have comments, all or `post_ids`."""
    query: dict = {"comment_count": {"$gt": 0}}
    if post_ids is not None:
        query["_id"] = {"$in": list(post_ids)}
    for doc in get_db().posts.find(query, {"latest_comments": 1}).sort("_id", ASCENDING):
        yield doc["_id"], tuple(_latest_comment(c) for c in doc.get("latest_comments", ()))


# --- The buckets comment store's page counter (comments/stores/buckets.py) -------------------
# The pattern keeps `num_pages` on the discussion document, and in Slugline the
# discussion is the post. A post without the field (older, or never commented on in
# that store) is on page 1.


def comment_pages(*, post_id: ObjectId) -> int:
    """The page of comment buckets new comments of this post go to (`num_pages`)."""
    doc = get_db().posts.find_one({"_id": post_id}, {"num_pages": 1})
    return int((doc or {}).get("num_pages") or 1)


def advance_comment_pages(*, post_id: ObjectId, from_page: int) -> bool:
    """Move the post's `num_pages` from `from_page` to the next page, unless another
    writer already has; whether this call did. The filter names the page the caller
    used, so of two writers past a full page exactly one advances it: the pattern's
    `$inc`. From page 1 the filter also matches a post without the field, and the
    change is `$set` to 2 (an `$inc` of a missing field would give 1).
    """
    on_page: dict = {"num_pages": from_page}
    if from_page == 1:
        on_page = {"$or": [on_page, {"num_pages": {"$exists": False}}]}
        update: dict = {"$set": {"num_pages": 2}}
    else:
        update = {"$inc": {"num_pages": 1}}
    result = get_db().posts.update_one({"_id": post_id, **on_page}, update)
    return result.modified_count == 1


def set_comment_pages(*, post_id: ObjectId, num_pages: int) -> None:
    """Set the post's `num_pages` outright (a migration that wrote whole pages, or
    dropped them all)."""
    get_db().posts.update_one({"_id": post_id}, {"$set": {"num_pages": int(num_pages)}})
