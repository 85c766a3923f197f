"""Benchmark: what a reader's page, the count and a post cost as one discussion grows.

Builds, in a scratch MongoDB database, one discussion of each size in `--sizes`
(default 100, 10,000 and 100,000 comments) among other discussions, so that the
collection holds at least `--collection` comments (default 200,000): a page query
that scanned the collection instead of its index would show. Then, per size, it
measures:

- page 1 and page 100 reached by cursor (`?after=`; the last page of a smaller
  discussion) of the threaded, newest and chronological views, requested through
  Django's test client with the comments cache off: what a cold reader's page costs.
  Every answer must be a 200 that draws exactly the comments (`data-slug`, in order)
  that the same page drew when it was read as one unbounded query, as before pages
  were read in windows (infra/page_windows.py, MAX_WINDOWS 0);
- the count of a reader's listing (`get_store().tally_listing`), a recount;
- the counters (`counters.state`), what paging, summaries and the queue tabs read instead
  (checked against the recount first);
- a post: `services.post_comment` of a reply, with the post's summary refresh;
- the post page `/posts/<slug>/` cold, and the limit: the same page rendered from the
  post and its first threaded page held in memory (bench/peer/limit_page.py, as
  bench/peer.py's limit), both drawing the same comments. The target, printed met or
  not: the cold page at least 0.8x the limit's pages per second at every size.

For each: the median and p95 time, the time spent waiting for MongoDB (server time
plus the round trips), the commands and the documents their replies carried, and the
ratio of the median against the smallest size.

    make devdb
    MONGODB_URI=mongodb://127.0.0.1:<port>/ .venv/bin/python bench/comment_pages.py

Without MONGODB_URI it uses (or starts) the dev database. Say which server the
figures came from whenever you quote them.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
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
from django.core.cache import cache  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import override_settings  # noqa: E402
from pymongo import monitoring  # noqa: E402

from bench.static import collect_static  # noqa: E402
from cms import posts  # noqa: E402
from cms.posts import AuthorSummary  # noqa: E402
from comments import conf  # noqa: E402
from comments.posting import services  # noqa: E402
from infra import page_windows  # noqa: E402
from comments.reading import cursors  # noqa: E402
from comments.stores import counters, summaries  # noqa: E402
from comments.benchmark import discussion_documents, insert_batches, insert_discussion  # noqa: E402
from comments.records import READERS, CommentAuthor  # noqa: E402
from comments.stores import get_store  # noqa: E402
from infra import mongo
from infra.metering import Meter, median_and_p95_ms  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent / "peer"))
import limit_page  # noqa: E402  (bench/peer/limit_page.py: a URLconf, bench/peer.py's limit)

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
FILLER_SIZE = 5_000
VIEWS = ("threaded", "newest", "chronological")
# The measured discussions go in 200 at a time: on DocumentDB each insert's unique-index
# check grows with the discussion (docs/performance.md), and a batch of 1,000 into
# 90,000 comments outlasted the client's 60-second socket timeout on a busy server.
LOAD_BATCH = 200
COLD, LIMIT = "post page, cold", "post page, limit (no database)"
# The cold post page's pages per second against the limit's, at least (figures, not tests).
COLD_TARGET = 0.8
DRAWN = re.compile(rb'data-slug="([^"]+)"')


def timed(work, meter: Meter, repeat: int) -> dict:
    """Run `work` `repeat` times; its time, MongoDB's share, commands and documents."""
    times, waits, commands, documents = [], [], [], []
    for _ in range(repeat):
        meter.start()
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
        meter.stop()
        waits.append(meter.seconds * 1000)
        commands.append(meter.commands)
        documents.append(meter.documents)
    median_ms, p95_ms = median_and_p95_ms(times)
    return {"median_ms": median_ms, "p95_ms": p95_ms, "mongo_ms": statistics.median(waits),
            "commands": statistics.median(commands), "documents": statistics.median(documents)}


def drawn(client: Client, url: str) -> list[bytes]:
    """The comments a page draws (their `data-slug`, in order); a 200 or it fails."""
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    assert b"Comments are unavailable" not in response.content, url
    return DRAWN.findall(response.content)


def as_one_query(client: Client, url: str) -> list[bytes]:
    """What the page draws read as one unbounded query (no windows, no hints)."""
    saved, page_windows.MAX_WINDOWS = page_windows.MAX_WINDOWS, 0
    try:
        return drawn(client, url)
    finally:
        page_windows.MAX_WINDOWS = saved


def page(client: Client, url: str):
    """A request for `url` that must draw what the page drew as one query."""
    expected = as_one_query(client, url)
    assert expected, url

    def work():
        assert drawn(client, url) == expected, url
    return work


def build(sizes: list[int], at_least: int, seed: int) -> dict[int, posts.Post]:
    """One post per size with that many comments, plus filler discussions."""
    rng = random.Random(seed)
    active = get_store()
    built: dict[int, posts.Post] = {}
    for size in sizes:
        post = posts.create_post(
            title=f"{size:,} comments", slug=f"size-{size}", content="Benchmark post.",
            author=AuthorSummary(id=1, username="bench", name="Bench"), status=posts.PUBLISHED,
        )
        started = time.perf_counter()
        docs = discussion_documents(discussion_id=post.id, count=size, rng=rng, start=START)
        insert_batches(active, docs, size=LOAD_BATCH)
        print(f"  {size:,} comments on {post.slug} in {time.perf_counter() - started:.0f} s", flush=True)
        built[size] = post
    filler = max(0, at_least - sum(sizes))
    started = time.perf_counter()
    while filler > 0:
        count = min(FILLER_SIZE, filler)
        insert_discussion(active, discussion_id=ObjectId(), count=count, rng=rng, start=START)
        filler -= count
    print(f"  filler discussions in {time.perf_counter() - started:.0f} s", flush=True)
    for post in built.values():
        summaries.refresh_summary(post_id=post.id)
    return built


def cursor_url(post: posts.Post, per_page: int, base: str, view: str) -> tuple[str, int]:
    """The URL of page 100 of `view` reached by cursor (or the last page, if fewer)."""
    listed = posts.get_by_id(post.id).comment_count
    target = max(2, min(100, -(-listed // per_page)))
    before = get_store().find_page(discussion_id=post.id, order=view, limit=1, skip=(target - 1) * per_page - 1)[0]
    cursor = cursors.encode(view=view, scope=str(post.id), key=before.key(view), page=target)
    return f"{base}&after={cursor}", target


def post_pages(post: posts.Post, meter: Meter, repeat: int) -> list[tuple[str, dict]]:
    """The post page cold and the limit's, each drawing the comments the other draws."""
    client, url = Client(), f"/posts/{post.slug}/"
    limit_page.keep(posts.get_published(post.slug))
    with override_settings(ROOT_URLCONF="limit_page"):
        expected = drawn(client, url)
    assert expected and drawn(client, url) == expected, url

    def work():
        assert drawn(client, url) == expected, url
    cold = timed(work, meter, repeat)
    with override_settings(ROOT_URLCONF="limit_page"):
        return [(COLD, cold), (LIMIT, timed(work, meter, repeat))]


def print_targets(results: dict[int, list[tuple[str, dict]]]) -> None:
    print("targets (figures, not tests):")
    for size, rows in results.items():
        found = dict(rows)
        value = found[LIMIT]["median_ms"] / found[COLD]["median_ms"]
        print(f"  cold post page >= {COLD_TARGET}x the limit's pages/s at {size:,}: {value:.2f}x, "
              f"{'met' if value >= COLD_TARGET else 'NOT met'} (medians: {found[COLD]['median_ms']:.1f} ms cold, "
              f"{found[LIMIT]['median_ms']:.1f} ms limit)")


def measure_size(post: posts.Post, meter: Meter, repeat: int) -> list[tuple[str, dict]]:
    per_page = conf.get().per_page
    client = Client()
    pages = []
    for view in VIEWS:
        base = f"/posts/{post.slug}/comments/?view={view}"
        deep, number = cursor_url(post, per_page, base, view)
        # Reading each once as one query leaves the hints (where page 1 ends, what
        # a page spans) that every later read of the discussion starts from.
        first, cursor = page(client, base), page(client, deep)
        pages += [(f"{view} page 1", timed(first, meter, repeat)),
                  (f"{view} page {number} by cursor", timed(cursor, meter, repeat))]
        # What the first read after the hints are lost costs (a new cache, a new worker).
        pages.append((f"{view} page 1, no hints", timed(lambda first=first: (cache.clear(), first()), meter, repeat)))
    parent = get_store().find_page(discussion_id=post.id, order="threaded", limit=1)[0]
    replies = iter(range(10**6))

    def reply():
        services.post_comment(post=post, text=f"A measured reply {next(replies)}.", parent_slug=parent.slug,
                              author=CommentAuthor(id=None, name="Bench", email="bench@example.com"))

    counted = get_store().tally_listing(discussion_id=post.id, viewer=READERS)
    kept = counters.state(post.id, store=get_store()).counts
    assert (kept.listed, kept.placeholders) == (counted.total, counted.placeholders), (kept, counted)
    return [
        *pages,
        ("the count", timed(lambda: get_store().tally_listing(discussion_id=post.id, viewer=READERS), meter, repeat)),
        ("the counters", timed(lambda: counters.state(post.id, store=get_store()), meter, repeat)),
        *post_pages(post, meter, repeat),
        ("a post (reply)", timed(reply, meter, repeat)),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,10000,100000", help="comments per measured discussion")
    parser.add_argument("--collection", type=int, default=200_000, help="comments in the collection at least")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--cache-seconds", type=int, default=0,
        help="COMMENTS_CACHE_SECONDS while measuring (default 0: what the database does for each page)",
    )
    args = parser.parse_args()
    sizes = sorted(int(size.replace("_", "")) for size in args.sizes.split(","))

    meter = Meter()
    monitoring.register(meter)
    settings.MONGODB_NAME = f"slugline_bench_{uuid.uuid4().hex[:8]}"
    settings.ALLOWED_HOSTS = ["testserver"]
    # Measure what the work costs, not where the web budget or the limits cut it off.
    settings.MONGODB_REQUEST_BUDGET_MS = 60_000
    settings.COMMENTS_RATE_PER_IP = settings.COMMENTS_RATE_PER_USER = 0
    settings.COMMENTS_DUPLICATE_WINDOW = 0
    # Off by default: with the rendered-comments cache every repeat after the first
    # would be a hit (one command, the post) and say nothing about the pages' queries.
    settings.COMMENTS_CACHE_SECONDS = args.cache_seconds
    collect_static()
    mongo.reset_client()
    mongo.ensure_all_indexes()
    print(f"Building {', '.join(f'{s:,}' for s in sizes)} comments and filler up to "
          f"{args.collection:,} in {settings.MONGODB_NAME} ({get_store().name})…", flush=True)
    try:
        built = build(sizes, args.collection, args.seed)
        results = {size: measure_size(post, meter, args.repeat) for size, post in built.items()}
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)

    server = mongo.get_client().server_info()
    ferretdb = (server.get("ferretdb") or {}).get("version")
    print(f"Server: MongoDB {server.get('version')}" + (f" (FerretDB {ferretdb})" if ferretdb else "")
          + f"; store {get_store().name}; collection of at least {args.collection:,} comments"
          + f"; {args.repeat} runs each; "
          f"COMMENTS_CACHE_SECONDS={args.cache_seconds}; {conf.get().per_page} per page.")
    print(f"{'comments':>9}  {'work':<34}{'median ms':>10}{'p95 ms':>9}{'MongoDB ms':>11}"
          f"{'commands':>9}{'documents':>10}{'× smallest':>11}")
    smallest = {name: row["median_ms"] for name, row in results[sizes[0]]}
    for size in sizes:
        for n, (name, row) in enumerate(results[size]):
            base = list(smallest.values())[n]
            print(f"{size:>9,}  {name:<34}{row['median_ms']:>10.1f}{row['p95_ms']:>9.1f}{row['mongo_ms']:>11.1f}"
                  f"{row['commands']:>9.0f}{row['documents']:>10.0f}{row['median_ms'] / base:>11.2f}")
    print_targets(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
