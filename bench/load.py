"""Load test: readers browsing and commenting at a steady rate against gunicorn.

Starts a scratch site (its own MongoDB database, dropped at the end) under gunicorn
on a free loopback port, then runs `--readers` simulated readers for at most
`--seconds` seconds or `--requests` requests in all, whichever comes first. Each
reader opens the home page, a post, a page of comments in some view, a permalink,
and every `--comment-every`-th step posts a comment through the form. Prints
throughput, p50/p95/p99 latency per kind of request, and the error count.

    .venv/bin/python bench/load.py --seconds 30 --readers 4

Without MONGODB_URI it uses (or starts) the dev database. Loopback only.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import NO_RATE_LIMITS, Reader, Site, percentile, post_slugs  # noqa: E402
from devdb.server import DevDB  # noqa: E402

VIEWS = ("threaded", "newest", "chronological")


class Tally:
    def __init__(self, limit: int, deadline: float):
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.sent = 0
        self.limit, self.deadline = limit, deadline

    def claim(self) -> bool:
        with self.lock:
            if self.sent >= self.limit or time.monotonic() >= self.deadline:
                return False
            self.sent += 1
            return True

    def record(self, kind: str, answer, ok: bool) -> None:
        with self.lock:
            self.latency[kind].append(answer.seconds)
            if not ok:
                self.errors[f"{kind} {answer.status}"] += 1


def browse(base_url: str, slugs: list[str], tally: Tally, seed: int, comment_every: int) -> None:
    rng = random.Random(seed)
    reader = Reader(base_url)
    step = 0
    while True:
        step += 1
        slug = rng.choice(slugs)
        if not tally.claim():
            return
        home = reader.get("/")
        tally.record("home", home, home.status == 200)
        if not tally.claim():
            return
        answer, hidden = reader.comment_form(f"/posts/{slug}/")
        tally.record("post", answer, answer.status == 200)
        if not tally.claim():
            return
        view = rng.choice(VIEWS)
        listing = reader.get(f"/posts/{slug}/comments/?view={view}")
        tally.record("comments", listing, listing.status == 200)
        permalinks = re.findall(rf'href="(/posts/{re.escape(slug)}/comments/[a-z2-7/]+/)"', listing.body)
        if permalinks and tally.claim():
            permalink = reader.get(rng.choice(permalinks))
            tally.record("permalink", permalink, permalink.status == 200)
        if step % comment_every == 0 and hidden and tally.claim():
            data = {**hidden, "text": f"Load test comment {seed}-{step}", "name": f"Reader {seed}"}
            posted = reader.post(f"/posts/{slug}/comments/", data)
            tally.record("post comment", posted, posted.status == 303)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--comment-every", type=int, default=5)
    parser.add_argument("--posts", type=int, default=5)
    parser.add_argument("--comments", type=int, default=60, help="demo comments per post")
    args = parser.parse_args()

    uri = os.environ.get("MONGODB_URI") or DevDB().start()[0].uri
    site = Site(mongodb_uri=uri, workers=args.workers)
    try:
        site.prepare(posts=args.posts, comments=args.comments)
        site.start(**NO_RATE_LIMITS)
        slugs = post_slugs(Reader(site.url))
        tally = Tally(limit=args.requests, deadline=time.monotonic() + args.seconds)
        started = time.perf_counter()
        threads = [
            threading.Thread(target=browse, args=(site.url, slugs, tally, n, args.comment_every))
            for n in range(args.readers)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
    finally:
        site.stop()
        site.drop()

    total = sum(len(v) for v in tally.latency.values())
    print(f"{total} requests in {elapsed:.1f} s from {args.readers} readers against gunicorn "
          f"({args.workers} workers) on {uri} (FerretDB unless MONGODB_URI says otherwise)")
    print(f"throughput: {total / elapsed:.1f} requests/s; errors: {sum(tally.errors.values())}")
    print(f"{'request':<14}{'count':>7}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
    every = [s for values in tally.latency.values() for s in values]
    for kind, values in sorted(tally.latency.items()) + [("all", every)]:
        print(f"{kind:<14}{len(values):>7}{percentile(values, .5) * 1000:>9.1f}"
              f"{percentile(values, .95) * 1000:>9.1f}{percentile(values, .99) * 1000:>9.1f}")
    for error, count in sorted(tally.errors.items()):
        print(f"error: {error} × {count}")
    return 1 if tally.errors else 0


if __name__ == "__main__":
    sys.exit(main())
