"""Benchmark: the single-node dev database and the sharded development cluster in one run.

On each server, in a scratch database, it builds `--discussions` discussions (default
1,000) of `--comments` comments each (default 20) in the store `--store` (default the
documents store; on the cluster its collections sharded on their keys first), then
measures, `--repeat` times each:

- a reader's page: the threaded comments page of one discussion, requested through
  Django's test client with the comments cache off (every query of the page runs);
- a post: `services.post_comment` of a reply, with the post's summary refresh;
- a moderation-queue page: what the queue view runs (`moderation.tab_counts` and one
  page of the "recent" tab), across every discussion.

Each answer is checked (the page renders, the post lands, the queue page holds the
newest comments and its count is every comment). Then, on the cluster, how the
comments and discussions spread over the two workers (Citus' own counts per shard).

    MONGODB_URI=mongodb://127.0.0.1:<single-node port>/ .venv/bin/python bench/cluster.py

The cluster is this checkout's (make devdb-cluster), started if need be and then
stopped again. What a two-worker cluster on one small machine can show is routing,
correctness and the spread; not throughput (docs/dev-cluster.md, "What the figures
mean"). Say which servers and machine the figures came from whenever you quote them.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "slugline.settings")

import django  # noqa: E402

django.setup()

from bson import ObjectId  # noqa: E402
from django.conf import settings  # noqa: E402
from django.test import Client  # noqa: E402
from pymongo import monitoring  # noqa: E402

from bench.comment_pages import page, timed  # noqa: E402
from bench.static import collect_static  # noqa: E402
from cms import posts  # noqa: E402
from cms.posts import AuthorSummary  # noqa: E402
from comments.moderation import queue as moderation  # noqa: E402
from comments.posting import services  # noqa: E402
from comments.stores import store_switch, summaries  # noqa: E402
from comments.benchmark import insert_discussion  # noqa: E402
from comments.records import CommentAuthor, QueueFilter  # noqa: E402
from comments.stores import get_store  # noqa: E402
from infra import mongo, sharding  # noqa: E402
from devdb.cluster import Cluster  # noqa: E402
from infra.metering import Meter  # noqa: E402

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
COLLECTION = {"documents": "comments", "buckets": "comment_pages", "embedded": "discussions"}
QUEUE_PAGE = 20
WHAT_IT_SHOWS = """\
What this can and cannot show. The coordinator, both workers and FerretDB share this
machine's cores with the single node (and with whatever else runs), so the cluster adds
no capacity here: its times are one node's work plus a routing hop, and a difference
between the two columns smaller than their p95 spread is noise, not a speed-up. What it
does show: a discussion's page is one worker's work (one Citus task: make test-cluster
asserts it), the moderation queue reads every shard and the coordinator merges, the
answers are right on both (each measured call is checked), and how evenly hashed
discussion ids spread. Throughput and scaling need workers on machines of their own
(docs/deploy.md)."""


def build(discussions: int, per: int, store: str, seed: int) -> posts.Post:
    """The measured post's discussion and discussions - 1 others, `per` comments each."""
    rng = random.Random(seed)
    active = get_store(store)
    post = posts.create_post(
        title="Cluster benchmark", slug="cluster-bench", content="Benchmark post.",
        author=AuthorSummary(id=1, username="bench", name="Bench"), status=posts.PUBLISHED,
    )
    insert_discussion(active, discussion_id=post.id, count=per, rng=rng, start=START)
    for _ in range(discussions - 1):
        insert_discussion(active, discussion_id=ObjectId(), count=per, rng=rng, start=START)
    summaries.refresh_summary(post_id=post.id)
    return post


def measure(post: posts.Post, meter: Meter, repeat: int, total: int) -> list[tuple[str, dict]]:
    client = Client()
    url = f"/posts/{post.slug}/comments/?view=threaded"
    client.get(url)  # warm up the process
    parent = get_store().find_page(discussion_id=post.id, order="threaded", limit=1)[0]
    replies = iter(range(10**6))

    def reply():
        posted = services.post_comment(post=post, text=f"A measured reply {next(replies)}.",
                                       parent_slug=parent.slug,
                                       author=CommentAuthor(id=None, name="Bench", email="bench@example.com"))
        assert posted.comment.parent_id == parent.id and not posted.duplicate, posted

    def queue():
        counts = moderation.tab_counts(filters=QueueFilter())
        entries = moderation.queue_page(tab="recent", filters=QueueFilter(), skip=0, limit=QUEUE_PAGE)
        assert counts["recent"] >= total, counts
        posted = [entry.comment.posted for entry in entries]
        assert len(entries) == QUEUE_PAGE and posted == sorted(posted, reverse=True), posted

    return [
        ("a reader's page", timed(page(client, url), meter, repeat)),
        ("a post (reply)", timed(reply, meter, repeat)),
        ("a moderation-queue page", timed(queue, meter, repeat)),
    ]


def spread(cluster: Cluster, db_name: str, collection: str) -> dict[int, tuple[int, int]]:
    """Per worker port: (documents, distinct shard-key values) of the collection."""
    table = cluster.sql("coordinator", (
        "SELECT 'documentdb_data.documents_' || collection_id FROM documentdb_api_catalog.collections "
        f"WHERE database_name = '{db_name}' AND collection_name = '{collection}'"), fetch=True).strip()
    rows = cluster.sql("coordinator", (
        "SELECT s.nodeport, sum(split_part(r.result, ',', 1)::bigint), sum(split_part(r.result, ',', 2)::bigint) "
        f"FROM run_command_on_shards('{table}', "
        "'SELECT count(*) || '','' || count(DISTINCT shard_key_value) FROM %s') r "
        "JOIN citus_shards s ON s.shardid = r.shardid GROUP BY 1 ORDER BY 1"), fetch=True)
    return {int(port): (int(docs), int(keys)) for port, docs, keys in (line.split("|") for line in rows.split())}


def run_on(uri: str, args, meter: Meter, cluster: Cluster | None) -> tuple[list, dict | None]:
    settings.MONGODB_URI = uri
    settings.MONGODB_NAME = f"slugline_bench_{uuid.uuid4().hex[:8]}"
    settings.COMMENTS_STORE = args.store
    store_switch.forget()
    mongo.reset_client()
    mongo.ensure_all_indexes()
    try:
        for line in sharding.shard_where_possible(client=mongo.get_client(), db_name=settings.MONGODB_NAME,
                                                  keys=list(get_store(args.store).shard_keys)):
            print(f"  {line}", flush=True)
        started = time.perf_counter()
        post = build(args.discussions, args.comments, args.store, args.seed)
        print(f"  {args.discussions:,} discussions of {args.comments} comments in "
              f"{time.perf_counter() - started:.0f} s", flush=True)
        rows = measure(post, meter, args.repeat, args.discussions * args.comments)
        where = spread(cluster, settings.MONGODB_NAME, COLLECTION[args.store]) if cluster else None
        return rows, where
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--discussions", type=int, default=1000)
    parser.add_argument("--comments", type=int, default=20, help="comments per discussion")
    parser.add_argument("--store", default="documents", choices=sorted(COLLECTION))
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    single = os.environ.get("MONGODB_URI")
    if not single:
        parser.error("set MONGODB_URI to the single-node server to compare (make devdb prints it)")
    if args.discussions < 2 or args.comments < 1 or args.repeat < 1:
        parser.error("--discussions must be 2 or more, --comments and --repeat 1 or more")

    meter = Meter()
    monitoring.register(meter)
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.MONGODB_REQUEST_BUDGET_MS = 60_000
    settings.COMMENTS_RATE_PER_IP = settings.COMMENTS_RATE_PER_USER = 0
    settings.COMMENTS_DUPLICATE_WINDOW = 0
    settings.COMMENTS_CACHE_SECONDS = 0
    settings.COMMENTS_STORE_RECHECK_SECONDS = 24 * 3600
    collect_static()

    cluster = Cluster()
    server, started = cluster.start()
    try:
        print(f"Single node at {single}:", flush=True)
        one, _ = run_on(single, args, meter, None)
        print(f"Cluster at {server.uri} (a coordinator and two workers):", flush=True)
        many, where = run_on(server.uri, args, meter, cluster)
    finally:
        if started:
            cluster.stop()

    print(f"\nStore {args.store}; {args.discussions:,} discussions of {args.comments} comments; "
          f"{args.repeat} runs each; comments cache off; {os.cpu_count()} CPUs for everything.")
    print(f"{'work':<26}{'single ms (p95)':>18}{'cluster ms (p95)':>19}{'× single':>10}"
          f"{'commands':>10}")
    for (name, a), (_, b) in zip(one, many, strict=True):
        print(f"{name:<26}{a['median_ms']:>9.1f} ({a['p95_ms']:>6.1f}){b['median_ms']:>10.1f} ({b['p95_ms']:>6.1f})"
              f"{b['median_ms'] / a['median_ms']:>10.2f}{b['commands']:>10.0f}")
    if where:
        docs = [d for d, _ in where.values()]
        keys = [k for _, k in where.values()]
        mean = sum(docs) / len(docs)
        print(f"\nHow {COLLECTION[args.store]} spread over the workers (Citus' counts per shard):")
        for port, (d, k) in where.items():
            print(f"  worker on port {port}: {d:,} documents, {k:,} discussions")
        print(f"  imbalance: the fuller worker holds {max(docs) / mean - 1:+.1%} against an even split "
              f"({max(keys):,} of {sum(keys):,} discussions)")
    print("\n" + WHAT_IT_SHOWS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
