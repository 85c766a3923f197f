"""Benchmark: the cost of polling for new comments (comments/reading/polling.py), beside a
cached post page, in one run.

1. Commands per request, in this process through Django's test client with pymongo's
   command monitoring: a poll whose counts are not cached (one read of the post), a
   cached one (none), one answered 304; and a post page whose comments come from the
   cache.
2. Requests per second on gunicorn with `--workers` sync workers (default 4) on a
   scratch site: `--readers` readers (default 1,000), each polling with the ETag of its
   last answer as the page's script does (so, after its first poll, 304s), sent as
   fast as `--threads` client threads can for `--seconds`; then the post page for as
   long. 1,000 readers polling every 15 seconds need 67 polls a second.

Every answer is checked: polls say what the post page says ("N comments"), a 304 has
no body, pages carry their comments.

    .venv/bin/python bench/polling.py --seconds 20 --threads 16

Without MONGODB_URI it uses (or starts) the dev database. Loopback only; the client
threads share the machine with the server (say so when quoting the figures).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.django_setup import setup  # noqa: E402

setup()

from django.conf import settings  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.test import Client  # noqa: E402
from pymongo import monitoring  # noqa: E402

from bench.harness import NO_RATE_LIMITS, Reader, Site, percentile, post_slugs  # noqa: E402
from bench.static import collect_static  # noqa: E402
from cms import demo, posts  # noqa: E402
from cms.posts import AuthorSummary  # noqa: E402
from infra import mongo  # noqa: E402
from infra.metering import Meter  # noqa: E402

POLL_EVERY_SECONDS = 15
COUNT = re.compile(r'<h2 id="comments-title">([\d,]+) comments?</h2>')


def shown_count(html: str) -> int:
    found = COUNT.search(html)
    assert found, "the page has no comment count"
    return int(found.group(1).replace(",", ""))


# --- 1. Commands per request --------------------------------------------------------


def commands_per_request(comments: int) -> list[tuple[str, int]]:
    meter = Meter()
    monitoring.register(meter)
    settings.MONGODB_NAME = f"slugline_polling_{uuid.uuid4().hex[:8]}"
    settings.ALLOWED_HOSTS = ["testserver"]
    collect_static()
    mongo.reset_client()
    mongo.ensure_all_indexes()
    try:
        post = posts.create_post(
            title="Polled", slug="polled", content="A post to poll.",
            author=AuthorSummary(id=1, username="bench", name="Bench"), status=posts.PUBLISHED,
        )
        demo.seed_comments(post=post, count=comments, rng=random.Random(1), start=post.created)
        client = Client()
        page_url, poll_url = f"/posts/{post.slug}/", f"/posts/{post.slug}/comments/latest/"
        page = client.get(page_url)
        count = shown_count(page.content.decode())

        def counted(label: str, send) -> tuple[str, int]:
            meter.start()
            response = send()
            meter.stop()
            return label, meter.commands, response

        rows = []
        cache.clear()
        label, commands, miss = counted("poll, counts not cached (200)", lambda: client.get(poll_url, {"seen": 0}))
        assert miss.status_code == 200 and miss.json()["comments"] == count, miss.content
        rows.append((label, commands))
        label, commands, hit = counted("poll, counts cached (200)", lambda: client.get(poll_url, {"seen": 1}))
        assert hit.status_code == 200 and hit.json()["new"] == count - 1
        rows.append((label, commands))
        label, commands, same = counted(
            "poll, nothing changed (304)",
            lambda: client.get(poll_url, {"seen": 0}, headers={"If-None-Match": miss["ETag"]}),
        )
        assert same.status_code == 304 and same.content == b""
        rows.append((label, commands))
        client.get(page_url)
        label, commands, cached = counted("post page, comments cached", lambda: client.get(page_url))
        assert cached.status_code == 200 and shown_count(cached.content.decode()) == count
        rows.append((label, commands))
        return rows
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)


# --- 2. Requests per second on gunicorn ------------------------------------------------


def get(port: int, path: str, headers: dict) -> tuple[int, bytes, dict, float]:
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        return response.status, body, dict(response.getheaders()), time.perf_counter() - started
    finally:
        connection.close()


def hammer(port: int, seconds: float, threads: int, send) -> dict:
    """`send(port)` from `threads` threads for `seconds`: rate, latencies, statuses."""
    lock, times, statuses, failures = threading.Lock(), [], Counter(), []
    deadline = time.monotonic() + seconds

    def work():
        while time.monotonic() < deadline:
            try:
                status, took = send(port)
            except (OSError, AssertionError) as exc:
                with lock:
                    failures.append(repr(exc))
                continue
            with lock:
                times.append(took)
                statuses[status] += 1

    started = time.monotonic()
    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    elapsed = time.monotonic() - started
    return {"rate": len(times) / elapsed, "p50": percentile(times, 0.5) * 1000, "p95": percentile(times, 0.95) * 1000,
            "statuses": dict(statuses), "failures": failures[:3], "errors": len(failures)}


def on_gunicorn(args) -> list[tuple[str, dict]]:
    from devdb.server import DevDB

    uri = os.environ.get("MONGODB_URI") or DevDB().ensure_running()
    site = Site(mongodb_uri=uri, workers=args.workers)
    site.prepare(posts=3, comments=args.comments)
    site.start(**NO_RATE_LIMITS)
    try:
        slug = post_slugs(Reader(site.url))[0]
        page_path, poll_path = f"/posts/{slug}/", f"/posts/{slug}/comments/latest/"
        status, body, _, _ = get(site.port, page_path, {})
        count = shown_count(body.decode())
        # Each reader's page showed the count at some moment: some are behind.
        readers = [{"seen": max(0, count - random.Random(n).randrange(3)), "etag": None} for n in range(args.readers)]
        turn = iter(range(10**12))
        turn_lock = threading.Lock()

        def poll(port):
            with turn_lock:
                reader = readers[next(turn) % len(readers)]
            headers = {"If-None-Match": reader["etag"]} if reader["etag"] else {}
            status, body, headers_in, took = get(port, f"{poll_path}?seen={reader['seen']}", headers)
            if status == 200:
                data = json.loads(body)
                assert data["comments"] == count and data["new"] == count - reader["seen"], data
                reader["etag"] = headers_in.get("ETag")
            else:
                assert status == 304 and body == b"", status
            return status, took

        def view(port):
            status, body, _, took = get(port, page_path, {})
            assert status == 200 and b'<article class="comment' in body, status
            return status, took

        get(site.port, page_path, {})  # warm the page's cache in some worker
        rows = [("poll (ETag kept per reader)", hammer(site.port, args.seconds, args.threads, poll)),
                ("post page (comments cached)", hammer(site.port, args.seconds, args.threads, view))]
        return rows
    finally:
        site.stop()
        site.drop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--comments", type=int, default=200)
    parser.add_argument("--readers", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()

    print("MongoDB commands per request (one post,", args.comments, "comments):")
    for label, commands in commands_per_request(args.comments):
        print(f"  {label:<34}{commands:>3}")
    print()
    print(f"gunicorn, {args.workers} sync workers, {args.threads} client threads, {args.seconds:.0f} s each;"
          f" {args.readers} readers polling every {POLL_EVERY_SECONDS} s need"
          f" {args.readers / POLL_EVERY_SECONDS:.0f} polls/s:")
    print(f"  {'request':<30}{'req/s':>8}{'p50 ms':>8}{'p95 ms':>8}  statuses")
    for label, row in on_gunicorn(args):
        print(f"  {label:<30}{row['rate']:>8.0f}{row['p50']:>8.1f}{row['p95']:>8.1f}  {row['statuses']}"
              + (f"  errors: {row['errors']} {row['failures']}" if row["errors"] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
