"""Benchmark: a discussion's branches at scale (issue 38): finding a new comment's
followers, locking and unlocking a big branch, beside the threaded page of the same
discussion, in one run.

Builds, in a scratch MongoDB database, one discussion of --comments comments (default
100,000) in the store --store names (default documents), with the store's bulk insert
(`insert_documents`, as bench/comment_pages.py loads): one top-level comment whose
branch holds --branch of them (default a fifth), the rest threaded as readers thread
them (comments/benchmark.py). Then it has --followed comments followed (1 to 3 addresses
each, `subscriptions.subscribe`, as the follow form does), among them every ancestor of
the comments it measures, and measures:

- the followers of a new reply below a comment at each depth in --depths (the one
  query over its ancestors' full_slugs, `subscriptions.branch_followers`): each answer
  must be exactly the subscriptions on the comment and its ancestors, worked out here
  from what was subscribed; and `explain` of the command it sends must name its index;
- locking and unlocking the big branch (`branches.set_rule`, one update of the rule
  and the copy to the discussion's state): after each lock a reply to the branch's
  deepest comment must be refused as locked, after each unlock one must be stored;
- the threaded page 1 of the discussion through Django's test client (comments cache
  off), the reference: each answer must draw the comments the page drew as one unbounded
  query (bench/comment_pages.py).

It prints each one's median and p95 time, MongoDB's share, the commands, the ratio of
its median to the threaded page's, and the machine's load before and after.

    MONGODB_URI=mongodb://127.0.0.1:<port>/ .venv/bin/python bench/branches.py

The scratch database is dropped at the end. Say which server the figures came from
whenever you quote them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.comment_pages import LOAD_BATCH, page, timed  # noqa: E402 (sets Django up)
from bench.harness import load_average, server_description  # noqa: E402
from bench.page_plans import Sent, condensed  # noqa: E402
from bench.static import collect_static  # noqa: E402
from bson import ObjectId  # noqa: E402
from django.conf import settings  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import override_settings  # noqa: E402
from pymongo import monitoring  # noqa: E402

from cms import posts  # noqa: E402
from cms.posts import AuthorSummary  # noqa: E402
from comments import conf, slugs  # noqa: E402
from comments.benchmark import discussion_documents, insert_batches  # noqa: E402
from comments.moderation import branches  # noqa: E402
from comments.notifications import subscriptions  # noqa: E402
from comments.posting import services  # noqa: E402
from comments.records import CommentAuthor  # noqa: E402
from comments.stores import STORES, counters, get_store, store_switch, summaries  # noqa: E402
from infra import mongo  # noqa: E402
from infra.metering import Meter, median_and_p95_ms  # noqa: E402

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def big_branch(*, discussion_id: ObjectId, count: int, rng: random.Random) -> list[dict]:
    """A top-level comment and `count` comments below it: a discussion's worth of
    threads generated one level shallower, then put under the comment."""
    root = discussion_documents(discussion_id=discussion_id, count=1, rng=rng, start=START)[0]
    with override_settings(COMMENTS_MAX_DEPTH=conf.get().max_depth - 1):
        below = discussion_documents(discussion_id=discussion_id, count=count, rng=rng,
                                     start=START + timedelta(seconds=1))
    for doc in below:
        doc["slug"] = root["slug"] + slugs.SEPARATOR + doc["slug"]
        doc["full_slug"] = root["full_slug"] + slugs.SEPARATOR + doc["full_slug"]
        doc["thread"] = root["thread"]
        doc["parent_id"] = doc["parent_id"] or root["_id"]
    return [root, *below]


def build(*, comments: int, branch: int, rng: random.Random) -> tuple[posts.Post, list[dict]]:
    post = posts.create_post(
        title=f"{comments:,} comments", slug="branches", content="Benchmark post.",
        author=AuthorSummary(id=1, username="bench", name="Bench"), status=posts.PUBLISHED,
    )
    docs = big_branch(discussion_id=post.id, count=branch - 1, rng=rng)
    docs += discussion_documents(discussion_id=post.id, count=comments - branch, rng=rng,
                                 start=START + timedelta(days=30))
    started = time.perf_counter()
    insert_batches(get_store(), docs, size=LOAD_BATCH)
    counters.recount(post.id, store=get_store())
    summaries.refresh_summary(post_id=post.id)
    print(f"  {len(docs):,} comments ({branch:,} in the big branch) in {time.perf_counter() - started:.0f} s; "
          f"load {load_average()}", flush=True)
    return post, docs


def follow(*, post: posts.Post, docs: list[dict], measured: list[dict], followed: int,
           rng: random.Random) -> dict[str, set[str]]:
    """Subscriptions on `followed` comments (every ancestor of `measured` among them),
    1 to 3 addresses each; the ids subscribed, by the followed comment's full_slug."""
    wanted = {lineage for doc in measured for lineage in slugs.lineage_full_slugs(doc["full_slug"])}
    by_full_slug = {doc["full_slug"]: doc for doc in docs}
    others = rng.sample(docs, max(0, followed - len(wanted)))
    wanted.update(doc["full_slug"] for doc in others)
    subscribed: dict[str, set[str]] = {}
    started = time.perf_counter()
    for n, full_slug in enumerate(sorted(wanted)):
        doc = by_full_slug[full_slug]
        for reader in range(rng.randint(1, 3)):
            made = subscriptions.subscribe(kind=subscriptions.BRANCH, target=doc["_id"], discussion_id=post.id,
                                           email=f"reader{n}-{reader}@example.com", owner=True, full_slug=full_slug)
            subscribed.setdefault(full_slug, set()).add(made.id)
    print(f"  {sum(map(len, subscribed.values())):,} followers on {len(subscribed):,} comments in "
          f"{time.perf_counter() - started:.0f} s", flush=True)
    return subscribed


def at_depths(docs: list[dict], depths: list[int], rng: random.Random) -> list[dict]:
    """One comment of the big branch (docs[0]'s) at each depth that has one."""
    inside = [doc for doc in docs if doc["thread"] == docs[0]["thread"]]
    found = []
    for depth in depths:
        here = [doc for doc in inside if slugs.depth(doc["slug"]) == depth]
        if here:
            found.append(rng.choice(here))
    return found


def followers_case(post: posts.Post, doc: dict, subscribed: dict[str, set[str]]):
    """The followers of a new reply below `doc`: one query, checked against the set."""
    slug, full_slug = slugs.child_slugs(parent_slug=doc["slug"], parent_full_slug=doc["full_slug"],
                                        posted=datetime.now(timezone.utc), part=slugs.new_part())
    expected = set().union(*(subscribed.get(f, set()) for f in slugs.lineage_full_slugs(doc["full_slug"])))
    assert expected, doc["slug"]

    def work():
        found = subscriptions.branch_followers(discussion_id=post.id, full_slug=full_slug)
        assert {s.id for s in found} == expected, (doc["slug"], len(found), len(expected))
    return work, full_slug, len(expected)


def explain_followers(post: posts.Post, full_slug: str, sent: Sent) -> list[str]:
    """The plan of the command branch_followers sends (`sent` records the finds);
    fails unless it reads its index."""
    sent.finds.clear()
    subscriptions.branch_followers(discussion_id=post.id, full_slug=full_slug)
    command = sent.finds[-1]
    sent.finds.clear()
    plan = mongo.get_db().command("explain", command, verbosity="queryPlanner")["queryPlanner"]
    lines = condensed(plan)
    assert any(subscriptions.BRANCH_FOLLOWERS in line for line in lines), lines
    assert not any(line.lstrip().startswith(("COLLSCAN", "Seq Scan")) for line in lines), lines
    return lines


def lock_cases(post: posts.Post, docs: list[dict]):
    """Locking and unlocking the big branch, each checked by a reply below it."""
    root = get_store().find_by_id(docs[0]["_id"])
    inside = [doc for doc in docs if doc["thread"] == docs[0]["thread"]]
    deepest = max(inside, key=lambda doc: slugs.depth(doc["slug"]))["slug"]
    assert root is not None
    replies = iter(range(10**6))

    def reply() -> None:
        services.post_comment(post=post, text=f"A reply below the branch {next(replies)}.", parent_slug=deepest,
                              author=CommentAuthor(id=None, name="Bench", email="bench@example.com"))

    def lock():
        branches.set_rule(comment=root, locked=True)

    def unlock():
        branches.set_rule(comment=root, locked=False)

    def check_locked():
        try:
            reply()
        except services.CommentError as refused:
            assert refused.code == "locked", refused.code
        else:
            raise AssertionError("a reply below the locked branch was stored")

    return lock, unlock, check_locked, reply


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--comments", type=int, default=100_000)
    parser.add_argument("--branch", type=int, default=0, help="comments in the big branch (default a fifth)")
    parser.add_argument("--store", default="documents", choices=sorted(STORES))
    parser.add_argument("--followed", type=int, default=500, help="comments with followers")
    parser.add_argument("--depths", default="0,1,3,5,7", help="depths of the comments whose followers are found")
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--seed", type=int, default=38)
    args = parser.parse_args()
    branch = args.branch or args.comments // 5
    rng = random.Random(args.seed)

    meter, sent = Meter(), Sent()
    monitoring.register(meter)  # before the client is made: it takes the listeners then
    monitoring.register(sent)
    settings.MONGODB_NAME = f"slugline_bench_{uuid.uuid4().hex[:8]}"
    settings.COMMENTS_STORE = args.store
    settings.COMMENTS_STORE_RECHECK_SECONDS = 24 * 3600
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.MONGODB_REQUEST_BUDGET_MS = 60_000
    settings.COMMENTS_RATE_PER_IP = settings.COMMENTS_RATE_PER_USER = 0
    settings.COMMENTS_DUPLICATE_WINDOW = 0
    settings.COMMENTS_CACHE_SECONDS = 0
    store_switch.forget()
    collect_static()
    mongo.reset_client()
    mongo.ensure_all_indexes()
    server = server_description(mongo.get_client())
    print(f"Building {args.comments:,} comments in {settings.MONGODB_NAME} ({get_store().name}); "
          f"load {load_average()}…", flush=True)
    rows = []
    try:
        post, docs = build(comments=args.comments, branch=branch, rng=rng)
        measured = at_depths(docs, [int(d) for d in args.depths.split(",")], rng)
        subscribed = follow(post=post, docs=docs, measured=measured, followed=args.followed, rng=rng)
        print(f"Measuring ({args.repeat} runs each); load {load_average()}", flush=True)
        threaded = timed(page(Client(), f"/posts/{post.slug}/comments/?view=threaded"), meter, args.repeat)
        rows.append(("threaded page 1 (reference)", threaded))
        plan: list[str] = []
        for doc in measured:
            work, full_slug, count = followers_case(post, doc, subscribed)
            plan = explain_followers(post, full_slug, sent)  # the deepest's is printed
            rows.append((f"followers below depth {slugs.depth(doc['slug'])} ({count})", timed(work, meter, args.repeat)))
        lock, unlock, check_locked, reply = lock_cases(post, docs)
        locks, unlocks = [], []
        for _ in range(args.repeat):
            locks.append(timed(lock, meter, 1))
            check_locked()
            unlocks.append(timed(unlock, meter, 1))
            reply()  # stored: the branch is open again
        rows.append((f"lock the big branch ({branch:,})", merged(locks)))
        rows.append(("unlock it", merged(unlocks)))
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)

    print(f"Server: {server}; store {args.store}; {args.comments:,} comments; {args.repeat} runs each; "
          f"cache off.")
    print("Plan of the followers' query:\n" + "\n".join("  " + line for line in plan))
    print(f"{'work':<40}{'median ms':>10}{'p95 ms':>9}{'MongoDB ms':>11}{'commands':>9}{'× page':>8}")
    for name, row in rows:
        print(f"{name:<40}{row['median_ms']:>10.1f}{row['p95_ms']:>9.1f}{row['mongo_ms']:>11.1f}"
              f"{row['commands']:>9.0f}{row['median_ms'] / threaded['median_ms']:>8.3f}")
    print(f"load average after: {load_average()}")
    return 0


def merged(runs: list[dict]) -> dict:
    """One row of single timed runs (each `timed(..., repeat=1)`): medians and p95."""
    median_ms, p95_ms = median_and_p95_ms([run["median_ms"] / 1000 for run in runs])
    return {"median_ms": median_ms, "p95_ms": p95_ms, "mongo_ms": statistics.median(r["mongo_ms"] for r in runs),
            "commands": statistics.median(r["commands"] for r in runs)}


if __name__ == "__main__":
    sys.exit(main())
