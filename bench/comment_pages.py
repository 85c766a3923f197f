"""Benchmark: the cost of comment pages in one large discussion.

Builds one discussion of N comments (default 10,000) in a scratch MongoDB database,
then requests through Django's test client: threaded page 1, a page in the middle
reached with `?page=`, and the same page reached by cursor (`?after=`). For each it
prints the median and p95 time per request, the MongoDB commands per request and
the documents those commands returned, with ratios against page 1.

    MONGODB_URI=mongodb://127.0.0.1:<port>/ .venv/bin/python bench/comment_pages.py

Without MONGODB_URI it uses (or starts) the dev database (FerretDB v2 on PostgreSQL
with DocumentDB). Say which server the figures came from whenever you quote them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.test import Client  # noqa: E402
from pymongo import monitoring  # noqa: E402

from bench.metering import Meter, median_and_p95_ms  # noqa: E402
from cms import demo, mongo, posts  # noqa: E402
from cms.posts import AuthorSummary  # noqa: E402
from comments import cursors, store  # noqa: E402


def measure(client: Client, url: str, meter: Meter, repeat: int) -> dict:
    times, commands, documents = [], [], []
    for _ in range(repeat):
        meter.start()
        start = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - start)
        meter.stop()
        assert response.status_code == 200, (url, response.status_code)
        commands.append(meter.commands)
        documents.append(meter.documents)
    median_ms, p95_ms = median_and_p95_ms(times)
    return {
        "median_ms": median_ms,
        "p95_ms": p95_ms,
        "commands": statistics.median(commands),
        "documents": statistics.median(documents),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--comments", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--cache-seconds", type=int, default=0,
        help="COMMENTS_CACHE_SECONDS while measuring (default 0: what the database does for each page)",
    )
    args = parser.parse_args()

    meter = Meter()
    monitoring.register(meter)
    settings.MONGODB_NAME = f"slugline_bench_{uuid.uuid4().hex[:8]}"
    settings.ALLOWED_HOSTS = ["testserver"]
    # Measure what the pages cost, not where the web budget would cut them off.
    settings.MONGODB_REQUEST_BUDGET_MS = 60_000
    # Off by default: with the rendered-comments cache every repeat after the first
    # would be a hit (one command, the post) and say nothing about the pages' queries.
    settings.COMMENTS_CACHE_SECONDS = args.cache_seconds
    mongo.reset_client()
    mongo.ensure_all_indexes()
    try:
        post = posts.create_post(
            title="Benchmark", slug="benchmark", content="Benchmark post.",
            author=AuthorSummary(id=1, username="bench", name="Bench"), status=posts.PUBLISHED,
        )
        import random

        started = time.perf_counter()
        demo.seed_comments(post=post, count=args.comments, rng=random.Random(args.seed), start=post.created)
        build_s = time.perf_counter() - started
        per_page = settings.COMMENTS_PER_PAGE
        middle = max(1, -(-args.comments // per_page) // 2)
        before_middle = store.find_page(
            discussion_id=post.id, order="threaded", limit=1, skip=(middle - 1) * per_page - 1
        )[0]
        cursor = cursors.encode(
            view="threaded", scope=str(post.id), key=before_middle.key("threaded"), page=middle
        )
        base = f"/posts/{post.slug}/comments/?view=threaded"
        client = Client()
        client.get(base)  # warm up the process
        rows = [
            ("threaded page 1", measure(client, base, meter, args.repeat)),
            (f"page {middle} by ?page=", measure(client, f"{base}&page={middle}", meter, args.repeat)),
            (f"page {middle} by cursor", measure(client, f"{base}&after={cursor}", meter, args.repeat)),
        ]
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)

    server = mongo.get_client().server_info()
    print(f"One discussion of {args.comments:,} comments, {per_page} per page; built in {build_s:.1f} s.")
    print(f"Server: {mongo.server_uri()} (reports MongoDB {server.get('version')}; "
          f"{'FerretDB' if 'ferretdb' in str(server).lower() else 'see server'}); "
          f"{args.repeat} requests each through Django's test client; "
          f"COMMENTS_CACHE_SECONDS={args.cache_seconds}.")
    print(f"{'request':<24}{'median ms':>10}{'p95 ms':>9}{'commands':>10}{'documents':>11}{'× page 1':>10}")
    first = rows[0][1]["median_ms"]
    for name, row in rows:
        print(f"{name:<24}{row['median_ms']:>10.1f}{row['p95_ms']:>9.1f}{row['commands']:>10.0f}"
              f"{row['documents']:>11.0f}{row['median_ms'] / first:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
