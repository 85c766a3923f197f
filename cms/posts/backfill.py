"""Rewriting what a post stores about its own text (its search copy, its pictures)
when the code that makes it changes: bounded, batched and safe to rerun."""

from __future__ import annotations

from collections.abc import Callable

from pymongo import UpdateOne
from pymongo.database import Database


def rewrite_stale(db: Database, *, stale: dict, read: dict, make: Callable[[dict], dict], limit: int,
                  batch_size: int) -> int:
    """Set `make(doc)` on up to `limit` posts that `stale` matches (reading the fields
    `read`); how many were written. A post edited meanwhile (which writes its own) is
    not overwritten: each write matches the revision read, and `stale` again."""
    written, batch = 0, []
    for doc in db.posts.find(stale, {**read, "revision": 1}).limit(limit):
        unchanged = {"_id": doc["_id"], "revision": doc.get("revision", {"$exists": False}), **stale}
        batch.append(UpdateOne(unchanged, {"$set": make(doc)}))
        if len(batch) == batch_size:
            written += db.posts.bulk_write(batch, ordered=False).modified_count
            batch = []
    if batch:
        written += db.posts.bulk_write(batch, ordered=False).modified_count
    return written
