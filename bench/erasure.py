"""Benchmark: erasing a member with many comments, and what readers feel meanwhile.

Builds, in a scratch MongoDB database dropped at the end, `--posts` discussions holding
`--comments` comments of one member among others' (replies to them too) and
`--votes` of the member's votes on others' comments. Then, with the comments cache
off (every reader page reads MongoDB):

1. baseline: reader page requests (post pages, page 1 of the comments in the three
   views, through Django's test client) for `--seconds`;
2. erasure: the erasure is recorded (comments.api.start_erasure) and run by
   `manage.py finish_erasures` in a process of its own, as the background worker
   would; the same reader requests run until it ends.

Prints the erasure's time and pace (comments a second), the requests' median and p95
latency in both phases and their ratio to the baseline's, then checks the result: no
comment of the member left, every one blank and nameless, placeholders exactly on those
with approved replies, the votes out of the tallies, the counters without drift, and no
summary naming the member; and runs `manage.py repair_summaries --check` and
`repair_votes --check` on the scratch database (both must find nothing).

    MONGODB_URI=mongodb://127.0.0.1:<port>/ .venv/bin/python bench/erasure.py [--comments 10000]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
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

from bench.static import collect_static  # noqa: E402
from cms import posts  # noqa: E402
from cms.posts import AuthorSummary  # noqa: E402
from comments import api as comments_api  # noqa: E402
from comments.benchmark import discussion_documents, insert_batches  # noqa: E402
from comments.records import DELETED, HIDDEN, Comment  # noqa: E402
from comments.stores import counters, get_store, summaries  # noqa: E402
from comments.votes import collection as votes  # noqa: E402
from infra import mongo  # noqa: E402
from infra.metering import median_and_p95_ms  # noqa: E402

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
MEMBER = 900_000_001
NAME = "Erasable Member"


def build(args, rng: random.Random) -> tuple[list[posts.Post], list[Comment]]:
    """The posts, the member's share of their comments, and the comments they voted on."""
    per_post = -(-args.comments * 3 // 2 // args.posts)  # about a third are others'
    made, left, voted = [], args.comments, []
    for n in range(args.posts):
        post = posts.create_post(title=f"Erasure {n}", slug=f"erasure-{n}", content="Benchmark post.",
                                 author=AuthorSummary(id=1, username="bench", name="Bench"), status=posts.PUBLISHED)
        docs = discussion_documents(discussion_id=post.id, count=per_post, rng=rng, start=START)
        for doc in docs:
            if left and rng.random() < 2 / 3:
                doc["author"] = {"id": MEMBER, "name": NAME, "email": "erasable@example.org", "staff": False}
                left -= 1
        insert_batches(get_store(), docs)
        counters.recount(post.id, store=get_store())
        summaries.refresh_summary(post_id=post.id)
        made.append(post)
    others = [c for p in made for c in comments_api.latest_comments(discussion_id=p.id, limit=500)
              if c.author.id != MEMBER]
    for comment in rng.sample(others, min(args.votes, len(others))):
        votes.cast(comment=comment, voter=f"u:{MEMBER}", vote="up")
        voted.append(comment)
    return made, voted


def reader_urls(made: list[posts.Post]) -> list[str]:
    return [url for p in made for url in (f"/posts/{p.slug}/", f"/posts/{p.slug}/comments/?view=newest",
                                          f"/posts/{p.slug}/comments/?view=best")]


def read(client: Client, urls: list[str], keep_going) -> list[float]:
    times: list[float] = []
    while keep_going():
        url = urls[len(times) % len(urls)]
        started = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - started)
        assert response.status_code == 200, (url, response.status_code)
    return times


def check(made: list[posts.Post], voted: list[Comment], erasure_id, expected: int) -> None:
    store = get_store()
    done = comments_api.erasure(erasure_id=erasure_id)
    assert done is not None and done.done, done
    assert done.counts["comments"] == expected and done.counts["votes"] == len(voted), done.counts
    for post in made:
        assert counters.check(post.id, store=store) is None, f"counters drift on {post.slug}"
        raw = str(mongo.get_db().posts.find_one({"_id": post.id}))
        assert NAME not in raw and "erasable@" not in raw, "a summary still names the member"
        for doc in store.iter_documents(discussion_id=post.id):
            comment = Comment.from_doc(doc)
            assert comment.author.id != MEMBER and comment.author.name != NAME
            if comment.status == DELETED and comment.author.id is None and not comment.text:
                assert comment.placeholder == store.has_approved_reply(comment=comment), comment.slug
    for comment in voted:
        after = store.find_by_id(comment.id)
        assert after is not None and after.votes_up == comment.votes_up, "a vote is still in a tally"
    assert mongo.get_db().comment_votes.count_documents({"voter": f"u:{MEMBER}"}) == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--comments", type=int, default=10_000, help="the member's comments")
    parser.add_argument("--posts", type=int, default=10)
    parser.add_argument("--votes", type=int, default=1_000)
    parser.add_argument("--seconds", type=float, default=20, help="baseline's length")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    settings.MONGODB_NAME = f"slugline_bench_{uuid.uuid4().hex[:8]}"
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.MONGODB_REQUEST_BUDGET_MS = 60_000
    settings.COMMENTS_CACHE_SECONDS = 0
    collect_static()
    mongo.reset_client()
    mongo.ensure_all_indexes()
    server = mongo.get_client().server_info()
    ferretdb = (server.get("ferretdb") or {}).get("version")
    print(f"Server: MongoDB {server.get('version')}" + (f" (FerretDB {ferretdb})" if ferretdb else "")
          + f"; store {get_store().name}; database {settings.MONGODB_NAME}; cache off.", flush=True)
    try:
        started = time.perf_counter()
        made, voted = build(args, random.Random(args.seed))
        print(f"Built {args.comments:,} comments of the member on {args.posts} posts and {len(voted):,} "
              f"of their votes in {time.perf_counter() - started:.0f} s.", flush=True)
        urls, client = reader_urls(made), Client()
        for url in urls:  # warm: templates compiled, indexes' pages read once
            client.get(url)
        until = time.monotonic() + args.seconds
        baseline = read(client, urls, lambda: time.monotonic() < until)
        erasure = comments_api.start_erasure(user_id=MEMBER, emails=["erasable@example.org"])
        env = {**os.environ, "MONGODB_NAME": settings.MONGODB_NAME}
        began = time.perf_counter()
        worker = subprocess.Popen([sys.executable, "manage.py", "finish_erasures"], env=env,
                                  cwd=Path(__file__).resolve().parent.parent, stdout=subprocess.PIPE, text=True)
        during = read(client, urls, lambda: worker.poll() is None)
        took = time.perf_counter() - began
        print(f"finish_erasures: {(worker.stdout.read() if worker.stdout else '').strip()}")
        base_median, base_p95 = median_and_p95_ms(baseline)
        for label, times in (("baseline", baseline), ("during erasure", during)):
            median, p95 = median_and_p95_ms(times)
            print(f"{label:>15}: {len(times):>5} reader requests, median {median:.1f} ms "
                  f"(x{median / base_median:.2f}), p95 {p95:.1f} ms (x{p95 / base_p95:.2f})")
        print(f"Erasure of {args.comments:,} comments and {len(voted):,} votes: {took:.1f} s, "
              f"{args.comments / took:.0f} comments/s (the worker process's whole run, its start-up included).")
        check(made, voted, erasure.id, args.comments)
        print("Checked: every comment blank and nameless, placeholders right, votes out, no drift, summaries clean.")
        for command in ("repair_summaries", "repair_votes"):
            checked = subprocess.run([sys.executable, "manage.py", command, "--check"], env=env, text=True,
                                     cwd=Path(__file__).resolve().parent.parent, capture_output=True)
            print(f"manage.py {command} --check: exit {checked.returncode} {checked.stdout.strip()[-200:]}")
            clean = checked.returncode == 0 and (command != "repair_votes" or " 0 comments drifted" in checked.stdout)
            assert clean, checked.stdout + checked.stderr
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)
    return 0


if __name__ == "__main__":
    sys.exit(main())
