"""Profile: where one post page with many comments spends its time.

Builds one post with N threaded demo comments (default 1,000) in a scratch MongoDB
database, then requests `/posts/<slug>/` through Django's test client, with the
rendered-comments cache off (cold) and, when Slugline has it, on (warm). Prints the
median time per request, the MongoDB commands and the time spent waiting for them,
the `{% url %}` calls per page, and pyinstrument's profile of the cold page.

    .venv/bin/python bench/profile_post.py --comments 1000 --repeat 30

Without MONGODB_URI it uses (or starts) the dev database. The time MongoDB takes is
that server's (say which whenever you quote it); Django's own work is what
Slugline's code decides.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.django_setup import setup  # noqa: E402

setup()

import django.urls  # noqa: E402
from django.conf import settings  # noqa: E402
from django.test import Client  # noqa: E402
from pymongo import monitoring  # noqa: E402

from bench.static import collect_static  # noqa: E402
from cms import demo, posts  # noqa: E402
from cms.posts import AuthorSummary  # noqa: E402
from comments import conf  # noqa: E402
from infra import mongo
from infra.metering import Meter, median_and_p95_ms  # noqa: E402


class UrlTags:
    """Counts reverse() calls (`{% url %}` tags import it from django.urls when they
    render) while installed."""

    def __init__(self):
        self.calls = 0
        self._reverse = django.urls.reverse

    def __enter__(self):
        def counted(*args, **kwargs):
            self.calls += 1
            return self._reverse(*args, **kwargs)

        django.urls.reverse = counted
        return self

    def __exit__(self, *exc):
        django.urls.reverse = self._reverse


def measure(client: Client, url: str, meter: Meter, repeat: int) -> dict:
    """Median and p95 ms per request, commands and ms waiting for MongoDB per request."""
    times, commands, waited = [], [], []
    for _ in range(repeat):
        meter.start()
        start = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - start)
        meter.stop()
        assert response.status_code == 200 and b'<article class="comment' in response.content, url
        commands.append(meter.commands)
        waited.append(meter.seconds)
    median_ms, p95_ms = median_and_p95_ms(times)
    return {
        "median_ms": median_ms,
        "p95_ms": p95_ms,
        "commands": statistics.median(commands),
        "mongo_ms": statistics.median(waited) * 1000,
    }


def seed(count: int, seed_value: int) -> posts.Post:
    """One published post with `count` threaded demo comments, as cms/demo.py makes them."""
    post = posts.create_post(
        title="Profile", slug="profile", content="A post to profile.",
        author=AuthorSummary(id=1, username="bench", name="Bench"), status=posts.PUBLISHED,
    )
    demo.seed_comments(post=post, count=count, rng=random.Random(seed_value), start=post.created)
    return posts.get_published(post.slug)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--comments", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-profile", action="store_true", help="skip pyinstrument's report")
    args = parser.parse_args()

    meter = Meter()
    monitoring.register(meter)
    settings.MONGODB_NAME = f"slugline_profile_{uuid.uuid4().hex[:8]}"
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.MONGODB_REQUEST_BUDGET_MS = 60_000  # measure the page, not the budget's cut
    collect_static()
    mongo.reset_client()
    mongo.ensure_all_indexes()
    has_cache = hasattr(settings, "COMMENTS_CACHE_SECONDS")
    rows = []
    try:
        post = seed(args.comments, args.seed)
        url = f"/posts/{post.slug}/"
        client = Client()
        if has_cache:
            settings.COMMENTS_CACHE_SECONDS = 0
        client.get(url)  # warm up the process
        with UrlTags() as tags:
            client.get(url)
        rows.append(("cold (no cache)", measure(client, url, meter, args.repeat)))
        if has_cache:
            settings.COMMENTS_CACHE_SECONDS = 300
            client.get(url)
            rows.append(("warm (cache hit)", measure(client, url, meter, args.repeat)))
            settings.COMMENTS_CACHE_SECONDS = 0
        profile = None
        if not args.no_profile:
            from pyinstrument import Profiler

            profile = Profiler(interval=0.0005)
            with profile:
                for _ in range(10):
                    client.get(url)
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)

    print(f"One post with {args.comments:,} comments, {conf.get().per_page} a page; "
          f"{args.repeat} requests each through Django's test client; server {mongo.server_uri()}.")
    print(f"{{% url %}} calls per page (cold): {tags.calls}")
    print(f"{'request':<20}{'median ms':>10}{'p95 ms':>9}{'commands':>10}{'MongoDB ms':>12}{'Django ms':>11}")
    for name, row in rows:
        print(f"{name:<20}{row['median_ms']:>10.1f}{row['p95_ms']:>9.1f}{row['commands']:>10.0f}"
              f"{row['mongo_ms']:>12.1f}{row['median_ms'] - row['mongo_ms']:>11.1f}")
    if profile is not None:
        print("\npyinstrument, 10 cold requests:")
        print(profile.output_text(unicode=True, color=False, show_all=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
