"""Benchmark: what the best view and a vote cost as one discussion grows.

Builds, in a scratch MongoDB database dropped at the end, one discussion of each size
in `--sizes` (default 100, 10,000 and 100,000 comments) whose comments carry random
votes (tallies, score and Wilson key as a vote would leave them), and measures, per
size, through Django's test client with the comments cache off:

- the best view's page 1 (`?view=best`: the index of its order, the page's threads'
  replies in one query) and a later page reached by its Next links (the first Next
  records the walk's pinned ranking; the page measured is the one after it, a slice
  of the recorded walk read by id);
- the threaded view's page 1, in the same run, for comparison;
- a vote through the vote endpoint (JSON), with its tally `$inc`, the key, the rate
  limits and the summary refresh.

Each answer is checked: page 1 of best must start with the top-level comment of the
highest Wilson key (ties newer first), and a vote's answer must carry the tallies
read back. For each: median and p95 time, MongoDB's share, commands and documents.

    MONGODB_URI=mongodb://127.0.0.1:<port>/ .venv/bin/python bench/votes.py [--sizes 100,10000]

Without MONGODB_URI it uses (or starts) the dev database. Say which server the
figures came from whenever you quote them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.django_setup import setup  # noqa: E402

setup()

from django.conf import settings  # noqa: E402
from django.test import Client  # noqa: E402
from pymongo import monitoring  # noqa: E402

from bench.static import collect_static  # noqa: E402
from cms import posts  # noqa: E402
from cms.posts import AuthorSummary  # noqa: E402
from comments import conf  # noqa: E402
from comments import scores  # noqa: E402
from comments.stores import summaries  # noqa: E402
from comments.benchmark import discussion_documents, insert_batches  # noqa: E402
from comments.stores import get_store  # noqa: E402
from infra import mongo  # noqa: E402
from infra.metering import Meter, median_and_p95_ms  # noqa: E402
from tests.page_reading import Page  # noqa: E402

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def timed(work, meter: Meter, repeat: int) -> dict:
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


def with_votes(docs: list[dict], rng: random.Random) -> list[dict]:
    """The comments with random votes: most have none, a few many (a long tail)."""
    for doc in docs:
        up = int(rng.paretovariate(1.5)) - 1 if rng.random() < 0.4 else 0
        down = int(rng.paretovariate(2.0)) - 1 if rng.random() < 0.2 else 0
        doc.update(votes={"up": up, "down": down}, score=up - down, rank=scores.wilson_lower_bound(up, down),
                   picked=False)
    return docs


def build(size: int, rng: random.Random) -> tuple[posts.Post, list[dict]]:
    post = posts.create_post(
        title=f"{size:,} voted comments", slug=f"votes-{size}", content="Benchmark post.",
        author=AuthorSummary(id=1, username="bench", name="Bench"), status=posts.PUBLISHED,
    )
    started = time.perf_counter()
    docs = with_votes(discussion_documents(discussion_id=post.id, count=size, rng=rng, start=START), rng)
    insert_batches(get_store(), docs)
    summaries.refresh_summary(post_id=post.id)
    print(f"  {size:,} comments on {post.slug} in {time.perf_counter() - started:.0f} s", flush=True)
    return post, docs


def expected_first(docs: list[dict]) -> str:
    """The slug best page 1 must open with (what the page is meant to show)."""
    roots = [d for d in docs if d.get("parent_id") is None]
    best = max(roots, key=lambda d: (d["picked"], d["rank"], d["posted"], d["_id"]))
    return best["slug"]


def get(client: Client, url: str) -> Page:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return Page(response.content)


def measure_size(post: posts.Post, docs: list[dict], meter: Meter, repeat: int) -> list[tuple[str, dict]]:
    client = Client()
    base = f"/posts/{post.slug}/comments/"
    first = get(client, base + "?view=best")
    assert first.slugs[0] == expected_first(docs), "best page 1 does not open on the best thread"
    # The first Next records the walk (once: later readers of the same first page in the
    # same minute share it), so it is measured once, before anything else follows it.
    recording = timed(lambda: get(client, first.rel("next")), meter, 1) if first.rel("next") else None
    second = get(client, first.rel("next")) if first.rel("next") else first
    deep = second.rel("next") or first.rel("next")
    label = "best page 3 (walk)" if second.rel("next") else "best page 2 (walk)"
    target = next(d for d in docs if d.get("parent_id") is None)
    voter = Client()
    values = iter(["up", "down"] * repeat)

    def vote():
        response = voter.post(f"{base}{target['slug']}/vote/", {"vote": next(values)},
                              HTTP_ACCEPT="application/json")
        assert response.status_code == 200 and "up" in response.json(), response.content

    rows = [
        ("best page 1", timed(lambda: get(client, base + "?view=best"), meter, repeat)),
        ("threaded page 1", timed(lambda: get(client, base + "?view=threaded"), meter, repeat)),
        ("a vote (JSON)", timed(vote, meter, repeat)),
    ]
    if deep:
        rows.insert(1, (label, timed(lambda: get(client, deep), meter, repeat)))
    if recording is not None:
        rows.insert(2, ("best: first Next (records walk)", recording))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,10000,100000", help="comments per measured discussion")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sizes = sorted(int(size.replace("_", "")) for size in args.sizes.split(","))

    meter = Meter()
    monitoring.register(meter)
    settings.MONGODB_NAME = f"slugline_bench_{uuid.uuid4().hex[:8]}"
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.MONGODB_REQUEST_BUDGET_MS = 60_000
    settings.COMMENTS_VOTES_PER_IP = settings.COMMENTS_VOTES_PER_IP_PER_COMMENT = 0
    settings.COMMENTS_CACHE_SECONDS = 0
    collect_static()
    mongo.reset_client()
    mongo.ensure_all_indexes()
    rng = random.Random(args.seed)
    print(f"Building {', '.join(f'{s:,}' for s in sizes)} comments in {settings.MONGODB_NAME} "
          f"({get_store().name})…", flush=True)
    server = mongo.get_client().server_info()
    ferretdb = (server.get("ferretdb") or {}).get("version")
    print(f"Server: MongoDB {server.get('version')}" + (f" (FerretDB {ferretdb})" if ferretdb else "")
          + f"; store {get_store().name}; {args.repeat} runs each (the first Next: one); "
          f"{conf.get().per_page} per page; cache off.")
    try:
        for size in sizes:  # each size's rows as soon as they are measured
            post, docs = build(size, rng)
            print(f"{'comments':>9}  {'work':<32}{'median ms':>10}{'p95 ms':>9}{'MongoDB ms':>11}"
                  f"{'commands':>9}{'documents':>10}")
            for name, row in measure_size(post, docs, meter, args.repeat):
                print(f"{size:>9,}  {name:<32}{row['median_ms']:>10.1f}{row['p95_ms']:>9.1f}"
                      f"{row['mongo_ms']:>11.1f}{row['commands']:>9.0f}{row['documents']:>10.0f}", flush=True)
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)
    return 0


if __name__ == "__main__":
    sys.exit(main())
