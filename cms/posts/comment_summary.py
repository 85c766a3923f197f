"""The comment summary a post carries for the comments app (the subset pattern: the
count and the latest comments), stored when the comments app hands it over through
the host (cms/comments_host.py). The comments app keeps its own per-discussion state
(counters, the version cached lists are keyed by, the buckets' page counter) in its
own collection (comments/stores/discussion_state.py)."""

from __future__ import annotations

from collections.abc import Iterator

from bson import ObjectId
from pymongo import ASCENDING

from comments.api import LatestComment
from infra.mongo import get_db


def _latest_comment(doc: dict) -> LatestComment:
    return LatestComment(
        slug=doc["slug"], author_name=doc["author_name"], posted=doc["posted"], excerpt=doc["excerpt"]
    )


def store_comment_summary(*, post_id: ObjectId, seq: int, count: int, latest: list[LatestComment]) -> bool:
    """Store a post's comment count and latest comments (the subset pattern) if `seq`,
    the comments app's change number they were read at, is newer than the one the
    post holds (`comment_summary_seq`); whether it was. So of two writers' summaries
    the older never overwrites the newer, whatever order they land in."""
    newer = {"$or": [{"comment_summary_seq": {"$lt": int(seq)}}, {"comment_summary_seq": {"$exists": False}}]}
    result = get_db().posts.update_one(
        {"_id": post_id, **newer},
        {"$set": {
            "comment_summary_seq": int(seq),
            "comment_count": int(count),
            "latest_comments": [
                {"slug": c.slug, "author_name": c.author_name, "posted": c.posted, "excerpt": c.excerpt}
                for c in latest
            ],
        }},
    )
    return result.matched_count == 1


def find_comment_summaries(
    *, post_ids: list[ObjectId] | None = None
) -> Iterator[tuple[ObjectId, tuple[LatestComment, ...]]]:
    """(post id, latest comments) of the posts that have comments, all or `post_ids`."""
    query: dict = {"comment_count": {"$gt": 0}}
    if post_ids is not None:
        query["_id"] = {"$in": list(post_ids)}
    for doc in get_db().posts.find(query, {"latest_comments": 1}).sort("_id", ASCENDING):
        yield doc["_id"], tuple(_latest_comment(c) for c in doc.get("latest_comments", ()))
