"""The other two ways comments arrive in bulk, measured in bench/imports.py's run after
its Disqus import, in the same scratch database: the JSON Lines import
(`import_comments`, comments/transfer/backup.py) and `comments_migrate` between stores
(comments/transfer/migration.py).

`jsonl`: the comments the Disqus import stored are exported (`export_comments`, not
timed), cleared from the store (not timed), and imported again from the file, timed.
`migrate`: every discussion is moved from the store in use to another (copied,
verified, the site switched), timed; the freeze's grace period, a fixed wait for the
site's other processes to see the freeze, is skipped (nobody else uses the scratch
database).

Each step's rate is judged against the raw `insert_many` rate of the documents it
stored (bench/imports.py `reference`, with the target store's own indexes), measured
right after it, and each checks that every comment of the file is stored exactly once.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable

from comments.stores import CommentStore, get_store, store_switch
from comments.transfer import backup, migration

# (the store whose documents are inserted) -> (seconds, documents, indexes)
Reference = Callable[[CommentStore], tuple[float, int, int]]


def stored_once(store: CommentStore, comments: int) -> dict:
    """How many comments the store holds, how many distinct source comments, and how
    many of the orphans (source ids from `comments` on) are at the top level."""
    stored = top = 0
    ids = set()
    for document in store.iter_documents():
        number = int(document["imported"]["id"])
        ids.add(number)
        stored += 1
        top += number >= comments and document["parent_id"] is None
    return {"stored": stored, "distinct": len(ids), "top": top}


def _step(what: str, store: str, imported: int, seconds: float, comments: int, reference: Reference) -> dict:
    found = stored_once(get_store(store), comments)
    raw_seconds, documents, indexes = reference(get_store(store))
    return {"what": what, "store": store, "imported": imported, "seconds": seconds, "rate": imported / seconds,
            "raw_seconds": raw_seconds, "raw_rate": found["stored"] / raw_seconds, "stored_documents": documents,
            "indexes": indexes, "traced": None, **found}


def jsonl(comments: int, reference: Reference) -> dict:
    """Export the store's comments, clear them, and time importing the file back."""
    store = get_store()
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8", delete=False) as out:
        backup.export_comments(out=out)
        path = out.name
    try:
        for discussion_id in store.discussion_ids():
            store.drop_discussion(discussion_id=discussion_id)
        began = time.perf_counter()
        with open(path, encoding="utf-8") as lines:
            done = backup.import_comments(lines=lines)
        seconds = time.perf_counter() - began
        megabytes = os.path.getsize(path) / 1e6
    finally:
        os.unlink(path)
    return {**_step("JSON Lines import", store_switch.in_use(), done.inserted, seconds, comments, reference),
            "megabytes": megabytes}


def migrate(target: str, comments: int, reference: Reference) -> dict:
    """Time `comments_migrate` from the store in use to `target` (which is then in use)."""
    source = store_switch.in_use()
    began = time.perf_counter()
    report = migration.migrate(target=target, source=source, sleep=lambda seconds: None)
    seconds = time.perf_counter() - began
    return {**_step(f"comments_migrate {source} -> {target}", target, report.comments, seconds, comments, reference),
            "paused_seconds": report.paused_seconds}
