"""Benchmark: writers creating one new bucket page at the same moment, the two ways
(comments/stores/bucket_writes.py, `_create_page`), in one run.

Each round releases `--writers` threads (default 8) together onto a page of a new
discussion that no one has created yet, `--rounds` times (default 100), in a scratch
database with the buckets store's indexes:

- `upsert`: the pattern's push with `upsert=True` on `{discussion_id, page}` (how pages
  were created before December 2026);
- `insert`: a plain insert of the empty bucket under `_id` "<discussion_id>/<page>"
  (how they are created now; the push follows).

It prints what the writes answered (stored; DuplicateKeyError, the answer MongoDB
gives the later writers; any other failure, deadlocks named) and the slowest write.
It checks that each round leaves exactly one bucket for the page.

    .venv/bin/python bench/page_creation.py --rounds 100

Without MONGODB_URI it uses (or starts) the dev database. Say which server the
figures came from when you quote them.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.django_setup import setup  # noqa: E402

setup()

from bson import ObjectId  # noqa: E402
from django.conf import settings  # noqa: E402
from pymongo import ReturnDocument  # noqa: E402
from pymongo.errors import DuplicateKeyError  # noqa: E402

from comments.stores import bucket_writes, get_store  # noqa: E402
from infra import mongo  # noqa: E402
from infra.racing_inserts import aborted_as_deadlock  # noqa: E402


def create(way: str, pages, discussion_id: ObjectId, n: int) -> None:
    if way == "upsert":
        pages.find_one_and_update(
            {"discussion_id": discussion_id, "page": 1, "comments.slug": {"$ne": f"s{n}"}},
            {"$inc": {"count": 1}, "$push": {"comments": {"slug": f"s{n}"}}},
            upsert=True, return_document=ReturnDocument.AFTER)
    else:
        pages.insert_one({"_id": bucket_writes.bucket_id(discussion_id, 1), "discussion_id": discussion_id,
                          "page": 1, "count": 0, "comments": [], "ordered": True})


def run(way: str, pages, *, rounds: int, writers: int) -> tuple[Counter, float]:
    answers: Counter = Counter()
    slowest = 0.0
    lock = threading.Lock()
    for _ in range(rounds):
        discussion_id, barrier = ObjectId(), threading.Barrier(writers)

        def write(n: int) -> None:
            nonlocal slowest
            barrier.wait()
            started = time.monotonic()
            try:
                create(way, pages, discussion_id, n)
                answer = "stored"
            except DuplicateKeyError:
                answer = "DuplicateKeyError"
            except Exception as exc:  # noqa: BLE001 - counted and reported
                answer = f"{type(exc).__name__}" + (" (deadlock)" if aborted_as_deadlock(exc) else "")
            with lock:
                answers[answer] += 1
                slowest = max(slowest, time.monotonic() - started)

        threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert pages.count_documents({"discussion_id": discussion_id}) == 1, "a page stored twice"
    return answers, slowest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--writers", type=int, default=8)
    args = parser.parse_args()
    settings.MONGODB_NAME = f"slugline_bench_{uuid.uuid4().hex[:8]}"
    mongo.reset_client()
    db = mongo.get_db()
    get_store("buckets").ensure_indexes(db)
    try:
        results = {way: run(way, db.comment_pages, rounds=args.rounds, writers=args.writers)
                   for way in ("upsert", "insert")}
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)
    server = mongo.get_client().server_info()
    ferretdb = (server.get("ferretdb") or {}).get("version")
    print(f"Server: MongoDB {server.get('version')}" + (f" (FerretDB {ferretdb})" if ferretdb else "")
          + f"; {args.rounds} rounds of {args.writers} writers creating one page.")
    for way, (answers, slowest) in results.items():
        said = ", ".join(f"{name} {count}" for name, count in sorted(answers.items()))
        print(f"{way:>7}: {said}; slowest {slowest * 1000:.0f} ms")
    ratio = results["upsert"][1] / max(results["insert"][1], 1e-9)
    print(f"slowest write, upsert against insert: {ratio:.0f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
