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
newest comments and its count is every comment). The cluster runs twice: with two
workers, then with a third added (`python -m devdb cluster add-worker`'s code), each
time in a new database, whose sharded collections spread over the workers it then
has. For each it prints how the comments and discussions spread over the workers
(Citus' own counts per shard) and how the measured work spread over the nodes: the
transactions each node's PostgreSQL committed per call (`pg_stat_database`), the
coordinator's own and each worker's.

    MONGODB_URI=mongodb://127.0.0.1:<single-node port>/ .venv/bin/python bench/cluster.py

The cluster is one of its own (bench/cluster_faults.own_cluster: a temporary folder,
its own ports), removed afterwards; this checkout's cluster is not touched. What a
cluster on one small machine can show is routing, correctness and the spread; not
throughput (docs/dev-cluster.md, "What the figures mean"). Say which servers and
machine the figures came from whenever you quote them.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.django_setup import setup  # noqa: E402

setup()

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
from bench.cluster_faults import own_cluster  # noqa: E402
from devdb.cluster import ROOT_VARIABLE, Cluster  # noqa: E402
from devdb.cluster_ops import add_worker, spread  # noqa: E402
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


def committed(cluster: Cluster | None) -> dict[str, int]:
    """Transactions each node's PostgreSQL has committed so far ({} for the single node)."""
    if cluster is None:
        return {}
    return {node: int(cluster.sql(node, "SELECT xact_commit FROM pg_stat_database WHERE datname = 'postgres'",
                                  fetch=True)) for node in cluster.nodes()}


def per_node(work, meter: Meter, repeat: int, cluster: Cluster | None) -> dict:
    """`timed`, and the transactions each node committed per call meanwhile."""
    before = committed(cluster)
    row = timed(work, meter, repeat)
    after = committed(cluster)
    return {**row, "nodes": {node: (after[node] - before[node]) / repeat for node in after}}


def measure(post: posts.Post, meter: Meter, repeat: int, total: int,
            cluster: Cluster | None) -> list[tuple[str, dict]]:
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
        ("a reader's page", per_node(page(client, url), meter, repeat, cluster)),
        ("a post (reply)", per_node(reply, meter, repeat, cluster)),
        ("a moderation-queue page", per_node(queue, meter, repeat, cluster)),
    ]


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
        rows = measure(post, meter, args.repeat, args.discussions * args.comments, cluster)
        where = spread(cluster, settings.MONGODB_NAME, COLLECTION[args.store]) if cluster else None
        return rows, where
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)


def report(args, runs: list[tuple[str, list, dict | None]]) -> None:
    print(f"\nStore {args.store}; {args.discussions:,} discussions of {args.comments} comments; "
          f"{args.repeat} runs each; comments cache off; {os.cpu_count()} CPUs for everything.")
    print(f"{'work':<26}" + "".join(f"{name + ' ms (p95)':>24}" for name, _, _ in runs) + f"{'commands':>10}")
    for index, (work, _) in enumerate(runs[0][1]):
        cells = "".join(f"{rows[index][1]['median_ms']:>15.1f} ({rows[index][1]['p95_ms']:>6.1f})"
                        for _, rows, _ in runs)
        print(f"{work:<26}{cells}{runs[-1][1][index][1]['commands']:>10.0f}")
    for name, rows, where in runs[1:]:
        print(f"\n{name}: transactions committed per call, by node (the coordinator's own, then each worker's):")
        for work, row in rows:
            print(f"  {work:<26}" + ", ".join(f"{node} {count:.1f}" for node, count in row["nodes"].items()))
        docs = [d for d, _ in where.values()]
        keys = [k for _, k in where.values()]
        print(f"  how {COLLECTION[args.store]} spread over the workers (Citus' counts per shard):")
        for worker, (d, k) in where.items():
            print(f"    {worker}: {d:,} documents, {k:,} discussions")
        print(f"    imbalance: the fuller worker holds {max(docs) / (sum(docs) / len(docs)) - 1:+.1%} against an "
              f"even split ({max(keys):,} of {sum(keys):,} discussions)")


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

    cluster = own_cluster()
    os.environ[ROOT_VARIABLE] = str(cluster.root)  # where shard_collections finds it
    runs = []
    try:
        server, _ = cluster.start()
        print(f"Single node at {single}:", flush=True)
        runs.append(("single node", *run_on(single, args, meter, None)))
        print(f"Cluster at {server.uri} (a coordinator and two workers):", flush=True)
        runs.append(("two workers", *run_on(server.uri, args, meter, cluster)))
        print(f"  adding {add_worker(cluster)}", flush=True)
        print("Cluster with three workers (a new database, spread over the three):", flush=True)
        runs.append(("three workers", *run_on(server.uri, args, meter, cluster)))
    finally:
        cluster.stop()
        shutil.rmtree(cluster.root.parent, ignore_errors=True)
    report(args, runs)
    print("\n" + WHAT_IT_SHOWS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
