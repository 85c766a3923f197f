"""Benchmark: the queries the documents store's queue and commenter indexes serve,
before issue 39 and now, on the same comments (the other half of bench/indexes.py:
fewer index entries must not make a query slower).

Makes --comments stored comments as bench/indexes.py does and puts the same documents
into two collections of a scratch database: `comments_main`, with the store's indexes
before issue 39 (bench/indexes.py MAIN), where it sends each query as the store sent
it then (written out below: the filter, the order, the hint; each document decoded
into a `Comment`, as the store did); and `comments`, with the
store's indexes now, where the store itself answers (`DocumentsStore`, the same calls
the queue, the bans and the ranked views make). Each query runs --repeat times, the
two sides alternating, and it prints the median and fastest time of each side and
whether both gave the same comments. The recent tab is timed twice: as an editor
reloading it finds it (the page hint its last read left), and with no hint (the
cache cleared first: the first read after a day, or after a restart). The comments
are dated months back, so the latter reads the windows of the last hour, days and
months before it meets them: the worst case.

    MONGODB_URI=mongodb://127.0.0.1:<port>/ .venv/bin/python bench/index_queries.py

The scratch database is dropped at the end. Say which server the figures came from
whenever you quote them.
"""

from __future__ import annotations

import argparse
import random
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import compare, load_average  # noqa: E402
from bench.indexes import MAIN, stored_comments  # noqa: E402 (sets Django up)
from django.conf import settings  # noqa: E402
from django.core.cache import cache  # noqa: E402

from comments.records import (  # noqa: E402
    HIDDEN, NEWEST, RANKED_ORDERS, READERS, Comment, QueueFilter, by_commenter, visible_to,
)
from comments.stores import get_store  # noqa: E402
from infra import mongo  # noqa: E402

NOT_SHOWN = {"$nin": ["spam", "deleted"]}


def cases(main, store, sample: dict) -> dict[str, tuple[Callable[[], list], Callable[[], list]]]:
    """Each query: (main's, as the store sent it before issue 39; the store's now),
    both giving the comments' ids in order."""
    ids = lambda cursor: [Comment.from_doc(doc).id for doc in cursor]  # noqa: E731 (decoded, as the store does)
    of = lambda comments: [c.id for c in comments]  # noqa: E731
    newest = list(NEWEST)
    email = {"$regex": "^" + sample["email"].replace(".", "\\.") + "$", "$options": "i"}
    shown = visible_to(READERS)

    def queue(tab: str, **filters: object) -> Callable[[], list]:
        return lambda: of(store.find_queue(tab=tab, filters=QueueFilter(**filters), skip=0, limit=36))

    def roots(view: str) -> Callable[[], list]:
        return lambda: of(store.find_ranked_roots(discussion_id=sample["discussion"], view=view, limit=10))

    return {
        "pending tab": (lambda: ids(main.find({"status": "pending"}).sort(newest).limit(36)), queue("pending")),
        "flagged tab": (lambda: ids(main.find({"flag_count": {"$gt": 0}, "status": NOT_SHOWN})
                                    .sort([("flag_count", -1)] + newest).limit(36)), queue("flagged")),
        "down-voted tab": (lambda: ids(main.find({"score": {"$lt": 0}, "status": NOT_SHOWN})
                                       .sort([("score", 1)] + newest).limit(36)), queue("downvoted")),
        "recent tab": (lambda: ids(main.find({}).sort(newest).limit(36)), queue("recent")),
        "recent, no page hint": (lambda: ids(main.find({}).sort(newest).limit(36)),
                                 lambda: cache.clear() or queue("recent")()),
        "recent, one post": (lambda: ids(main.find({"discussion_id": sample["discussion"]}).sort(newest).limit(36)),
                             queue("recent", discussion_id=sample["discussion"])),
        "recent, e-mail": (lambda: ids(main.find({"author.email": email}).sort(newest).limit(36)),
                           queue("recent", email=sample["email"])),
        "recent, IP": (lambda: ids(main.find({"ip": sample["ip"]}).sort(newest).limit(36)),
                       queue("recent", ip=sample["ip"])),
        "flagged count": (lambda: [main.count_documents({"flag_count": {"$gt": 0}, "status": NOT_SHOWN})],
                          lambda: [store.count_queue(tab="flagged", filters=QueueFilter())]),
        "first-comment check": (
            lambda: [True] if ids(main.find({"author.id": sample["member"], "status": {"$nin": list(HIDDEN)}})
                                  .limit(1)) else [],
            lambda: [True] if store.has_approved_by(author_id=sample["member"]) else []),
        "member's latest": (
            lambda: ids(main.find({"author.id": sample["member"], "status": {"$nin": list(HIDDEN)}})
                        .sort(newest).hint("author_id").limit(5)),
            lambda: of(store.find_latest_by_author(author_id=sample["member"], limit=5))),
        "IP ban": (lambda: sorted(ids(main.find({"ip": sample["ip"], "status": {"$nin": ["spam"]}}))),
                   lambda: sorted(of(store.find_by_commenter(commenter=by_commenter(ips=[sample["ip"]]),
                                                             exclude_status="spam")))),
        "best, page 1": (lambda: ids(main.find({"discussion_id": sample["discussion"], "parent_id": None, **shown})
                                     .sort(RANKED_ORDERS["best"]).hint("discussion_best").limit(10)), roots("best")),
        "top, page 1": (lambda: ids(main.find({"discussion_id": sample["discussion"], "parent_id": None, **shown})
                                    .sort(RANKED_ORDERS["top"]).hint("discussion_top").limit(10)), roots("top")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--comments", type=int, default=50_000)
    parser.add_argument("--per-discussion", type=int, default=200)
    parser.add_argument("--share", type=float, default=0.01, help="held, flagged and down-voted, each")
    parser.add_argument("--members", type=float, default=0.3, help="share of commenters logged in")
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--seed", type=int, default=39)
    args = parser.parse_args()
    documents = stored_comments(count=args.comments, per_discussion=args.per_discussion, share=args.share,
                                members=args.members, rng=random.Random(args.seed))
    some = documents[len(documents) // 2]
    member = next(d["author"]["id"] for d in documents if d["author"]["id"] is not None)
    sample = {"discussion": some["discussion_id"], "ip": some["ip"], "email": some["author"]["email"].upper(),
              "member": member}
    settings.MONGODB_NAME = f"slugline_bench_{uuid.uuid4().hex[:8]}"
    settings.COMMENTS_STORE = "documents"
    mongo.reset_client()
    db = mongo.get_db()
    try:
        store = get_store("documents")
        store.ensure_indexes(db)
        db.comments_main.create_indexes(MAIN)
        for start in range(0, len(documents), 1000):
            db.comments.insert_many(documents[start:start + 1000])
            db.comments_main.insert_many(documents[start:start + 1000])
        print(f"{len(documents):,} comments; load average {load_average()}")
        print(f"{'query':<22}{'main ms':>9}{'(fastest)':>11}{'now ms':>9}{'(fastest)':>11}  same comments")
        for name, (before, now) in cases(db.comments_main, store, sample).items():
            c = compare(before, now, args.repeat)
            print(f"{name:<22}{c.before_ms:>9.1f}{c.before_fastest_ms:>11.1f}{c.now_ms:>9.1f}"
                  f"{c.now_fastest_ms:>11.1f}  {'yes' if c.same else 'NO'} ({c.found})")
        print(f"load average after: {load_average()}")
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)


if __name__ == "__main__":
    main()
