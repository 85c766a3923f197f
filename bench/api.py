"""Benchmark: the JSON API beside the HTML page, in one run.

Builds, in a scratch MongoDB database, one discussion of `--comments` comments
(default 2,000) and `--posts` more posts with a few comments each (default 50), then
measures, through Django's test client in this process (one worker, no network):

- the HTML discussion page (page 1, threaded) and the same page from the API
  (`/api/v1/posts/<slug>/comments/`), with the rendered-comments cache off (what each
  request costs the database) and then on (COMMENTS_CACHE_SECONDS=300, as deployed);
- the API page answered 304 for a client that sends its ETag back;
- `/api/v1/counts?posts=...` for all `--posts` posts at once.

It checks the answers first: the API's page lists the HTML page's comments in the
same order, and the counts are the posts' comment counts. Rate limits are off (they
cost one MongoDB write per request; measured on their own with --rate-limit).

    MONGODB_URI=mongodb://127.0.0.1:<port>/ .venv/bin/python bench/api.py

Say which server the figures came from whenever you quote them.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.django_setup import setup  # noqa: E402

setup()

from django.conf import settings  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.test import Client  # noqa: E402

from bench.static import collect_static  # noqa: E402
from cms import posts  # noqa: E402
from cms.posts import AuthorSummary  # noqa: E402
from comments import conf  # noqa: E402
from comments.stores import summaries  # noqa: E402
from comments.benchmark import insert_discussion  # noqa: E402
from comments.stores import get_store  # noqa: E402
from infra import mongo  # noqa: E402
from infra.metering import median_and_p95_ms  # noqa: E402
from tests.page_reading import Page  # noqa: E402

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
AUTHOR = AuthorSummary(id=1, username="bench", name="Bench")


def build(comments: int, others: int, seed: int) -> tuple[posts.Post, list[posts.Post]]:
    rng = random.Random(seed)
    main = posts.create_post(title="API bench", slug="api-bench", content="Bench.", author=AUTHOR,
                             status=posts.PUBLISHED)
    insert_discussion(get_store(), discussion_id=main.id, count=comments, rng=rng, start=START)
    summaries.refresh_summary(post_id=main.id)
    extra = []
    for n in range(others):
        post = posts.create_post(title=f"Other {n}", slug=f"other-{n}", content="Bench.", author=AUTHOR,
                                 status=posts.PUBLISHED)
        insert_discussion(get_store(), discussion_id=post.id, count=rng.randint(0, 5), rng=rng, start=START)
        summaries.refresh_summary(post_id=post.id)
        extra.append(posts.get_by_id(post.id))
    return posts.get_by_id(main.id), extra


def check(main: posts.Post, others: list[posts.Post]) -> None:
    """The API shows the HTML page's comments in its order; counts are the posts' counts."""
    client = Client()
    html = [c["slug"] for c in Page(client.get(f"/posts/{main.slug}/comments/?view=threaded").content).comments]
    api = [c["slug"] for c in json.loads(client.get(f"/api/v1/posts/{main.slug}/comments/?view=threaded").content)
           ["comments"]]
    assert html and html == api, "the API's page differs from the HTML page"
    slugs = ",".join(p.slug for p in others)
    counts = json.loads(client.get(f"/api/v1/counts?posts={slugs}").content)["counts"]
    assert counts == {p.slug: p.comment_count for p in others}, "counts differ from the posts' counts"


def rate(name: str, request, repeat: int) -> tuple[str, float, float, float]:
    request()  # warm up
    times = []
    started = time.perf_counter()
    for _ in range(repeat):
        begin = time.perf_counter()
        request()
        times.append(time.perf_counter() - begin)
    total = time.perf_counter() - started
    median_ms, p95_ms = median_and_p95_ms(times)
    return name, repeat / total, median_ms, p95_ms


def expect(client: Client, url: str, status: int = 200, **headers):
    def request():
        response = client.get(url, **headers)
        assert response.status_code == status, (url, response.status_code)
    return request


def measure(main: posts.Post, others: list[posts.Post], repeat: int) -> list[tuple[str, float, float, float]]:
    client = Client()
    html_url = f"/posts/{main.slug}/comments/?view=threaded"
    api_url = f"/api/v1/posts/{main.slug}/comments/?view=threaded"
    counts_url = "/api/v1/counts?posts=" + ",".join(p.slug for p in others)
    rows = []
    for seconds in (0, 300):
        settings.COMMENTS_CACHE_SECONDS = seconds
        cache.clear()
        label = "cache off" if not seconds else "cache on"
        rows.append(rate(f"HTML page 1 ({label})", expect(client, html_url), repeat))
        rows.append(rate(f"API page 1 ({label})", expect(client, api_url), repeat))
    etag = client.get(api_url)["ETag"]
    rows.append(rate("API page 1, 304", expect(client, api_url, 304, HTTP_IF_NONE_MATCH=etag), repeat))
    rows.append(rate(f"API counts, {len(others)} posts", expect(client, counts_url), repeat))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--comments", type=int, default=2000)
    parser.add_argument("--posts", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate-limit", action="store_true", help="keep API_RATE_PER_IP at its setting")
    args = parser.parse_args()
    settings.MONGODB_NAME = f"slugline_bench_{uuid.uuid4().hex[:8]}"
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.MONGODB_REQUEST_BUDGET_MS = 60_000
    settings.API_COUNTS_MAX = max(args.posts, 1)
    if not args.rate_limit:
        settings.API_RATE_PER_IP = 0
    collect_static()
    mongo.reset_client()
    mongo.ensure_all_indexes()
    print(f"Building {args.comments:,} comments and {args.posts} more posts in {settings.MONGODB_NAME} "
          f"({get_store().name})…", flush=True)
    try:
        main_post, others = build(args.comments, args.posts, args.seed)
        check(main_post, others)
        rows = measure(main_post, others, args.repeat)
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)
    server = mongo.get_client().server_info()
    ferretdb = (server.get("ferretdb") or {}).get("version")
    print(f"Server: MongoDB {server.get('version')}" + (f" (FerretDB {ferretdb})" if ferretdb else "")
          + f"; store {get_store().name}; {args.comments:,} comments, {conf.get().per_page} per page; "
          f"{args.repeat} requests each; API_RATE_PER_IP {'on' if args.rate_limit else 'off'}.")
    print(f"{'request':<28}{'req/s':>9}{'median ms':>11}{'p95 ms':>9}")
    for name, per_second, median_ms, p95_ms in rows:
        print(f"{name:<28}{per_second:>9.1f}{median_ms:>11.1f}{p95_ms:>9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
