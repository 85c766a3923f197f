"""Benchmark: what a comment posted through the comment service costs, beside the one
write it cannot do without, in one run.

In a scratch MongoDB database, one published post gets --comments comments through
`services.post_comment` (what the form, the API and the demo seeding call), every
other one a reply to the last top-level comment, in the store --store names. The
reference, interleaved with them so that the machine's load falls on both alike: one
`insert_one` of a stored comment of the same shape (comments/benchmark.py's, as the
documents store stores it) into a scratch collection with the documents store's own
indexes, the single write a comment needs at the least. It prints the median and p95
of each, the reference's median over the post's (1.00 would be a post costing one
insert), the MongoDB commands a top-level comment and a reply send (by command and
collection) and the machine's load.

The figures count only if the posts are right: every comment posted must be stored
once, and the discussion's counters and the post's comment count must equal a recount.

    MONGODB_URI=mongodb://127.0.0.1:<port>/ .venv/bin/python bench/posting.py

The scratch database is dropped at the end. Say which server the figures came from
whenever you quote them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import uuid
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.django_setup import setup  # noqa: E402
from bench.harness import load_average, server_description  # noqa: E402

setup()

from django.conf import settings  # noqa: E402
from pymongo import monitoring  # noqa: E402

from cms import posts  # noqa: E402
from cms.posts import AuthorSummary  # noqa: E402
from comments.benchmark import discussion_documents  # noqa: E402
from comments.posting import services  # noqa: E402
from comments.records import CommentAuthor  # noqa: E402
from comments.stores import counters, counting, get_store, store_switch  # noqa: E402
from comments.stores.documents import INDEXES  # noqa: E402
from infra import mongo  # noqa: E402
from infra.metering import median_and_p95_ms  # noqa: E402

STORES = ("documents", "embedded", "buckets")
READER = CommentAuthor(id=None, name="Reader", email="reader@example.com")


class Sent(monitoring.CommandListener):
    """The commands started while `on`, as (command, collection)."""

    def __init__(self) -> None:
        self.on = False
        self.kept: list[tuple[str, str]] = []

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if self.on:
            target = event.command.get(event.command_name)
            self.kept.append((event.command_name, target if isinstance(target, str) else ""))

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def spread(times: list[float]) -> str:
    median, p95 = median_and_p95_ms(times)
    return f"median {median:6.2f} ms, p95 {p95:6.2f} ms"


def described(commands: list[tuple[str, str]]) -> str:
    counted = Counter(f"{name} {collection}".strip() for name, collection in commands)
    return ", ".join(f"{n} {what}" if n > 1 else what for what, n in counted.items())


def check(post: posts.Post, posted: list) -> None:
    """Every comment posted stored once; the counters and the post's count a recount's."""
    store = get_store()
    stored = [doc["_id"] for doc in store.iter_documents(discussion_id=post.id)]
    assert sorted(stored) == sorted(c.id for c in posted), "a comment posted is missing or stored twice"
    recounted = counting.recount(store.iter_documents(discussion_id=post.id))
    assert counters.state(post.id, store=store).counts == recounted, "the counters differ from a recount"
    assert posts.get_by_id(post.id).comment_count == recounted.approved == len(posted), "the post's count is wrong"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--comments", type=int, default=400)
    parser.add_argument("--store", default="documents", choices=STORES)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    sent = Sent()
    monitoring.register(sent)  # before the client is made: it takes the listeners then
    settings.MONGODB_NAME = f"slugline_bench_{uuid.uuid4().hex[:8]}"
    settings.COMMENTS_STORE = args.store
    settings.COMMENTS_STORE_RECHECK_SECONDS = 24 * 3600
    settings.MONGODB_REQUEST_BUDGET_MS = 60_000
    store_switch.forget()
    mongo.reset_client()
    db = mongo.get_db()
    try:
        mongo.ensure_all_indexes()
        reference = db[f"posting_reference_{uuid.uuid4().hex[:6]}"]
        reference.create_indexes(INDEXES)
        start = datetime.now(timezone.utc) - timedelta(days=1)
        post = posts.create_post(title="Posting", slug="posting", content="A post to comment on.",
                                 author=AuthorSummary(id=1, username="ada", name="Ada"), status=posts.PUBLISHED,
                                 published=start - timedelta(hours=1))
        documents = discussion_documents(discussion_id=post.id, count=args.comments, rng=random.Random(args.seed),
                                         start=start)
        print(f"{args.comments} comments on one post in {settings.MONGODB_NAME} ({get_store().name} store), "
              f"{server_description(mongo.get_client())}; load {load_average()}", flush=True)
        posted, root = [], None
        post_times: list[float] = []
        insert_times: list[float] = []
        commands: dict[str, list[tuple[str, str]]] = {}
        for n, document in enumerate(documents):
            kind = "reply" if n % 2 and root is not None else "top-level comment"
            sent.kept.clear()
            sent.on = n >= 2
            began = time.perf_counter()
            comment = services.post_comment(post=post, text=f"Comment {n} on the post.", author=READER,
                                             parent_slug=root.slug if kind == "reply" else None).comment
            post_times.append(time.perf_counter() - began)
            if sent.on:  # the first of each kind once the discussion has comments
                commands.setdefault(kind, list(sent.kept))
            sent.on = False
            posted.append(comment)
            root = comment if kind == "top-level comment" else root
            began = time.perf_counter()
            reference.insert_one(document)
            insert_times.append(time.perf_counter() - began)
        check(post, posted)
        post_median, insert_median = statistics.median(post_times), statistics.median(insert_times)
        print(f"  post_comment           {spread(post_times)}")
        print(f"  insert_one (reference) {spread(insert_times)}")
        print(f"  reference / post: {insert_median / post_median:.2f} "
              f"(a post costs {post_median / insert_median:.1f} inserts)")
        for kind, sent_by in commands.items():
            print(f"  a {kind}: {len(sent_by)} commands: {described(sent_by)}")
        print(f"  checked: {len(posted)} comments stored once, counters and the post's count equal a recount; "
              f"load {load_average()}")
    finally:
        mongo.get_client().drop_database(db.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
