"""Fault tests with a pass/fail verdict, against gunicorn and a database of their own.

    .venv/bin/python bench/faults.py            # all three scenarios
    .venv/bin/python bench/faults.py kill-db    # or one: kill-db, hup, db-stopped, worker-lost, worker-added
    FAULT_POSTS=300 FAULT_SECONDS=20 .venv/bin/python bench/faults.py worker-lost   # the cluster's size

- kill-db: readers post 500 comments through the form while the database (FerretDB
  and PostgreSQL) is killed with SIGKILL and restarted on the same port. A reader retries a refused
  or unanswered post with the same form. Passes when the stored comments are
  exactly the posts that got a success answer, none is stored twice, and no
  request answered 500.
- hup: `kill -HUP` the gunicorn master twice during a browsing run. Passes when
  no request fails.
- db-stopped: stop the database, then read and post. Passes when pages answer
  within the budget (a post read before still shows, with a notice that comments
  are unavailable; posting answers 503 with the reader's text kept), gunicorn logs
  no worker timeout, and everything works again once the database is back,
  without restarting the app.

- worker-lost: on a sharded development cluster of its own (bench/cluster_faults.py),
  readers read, post and vote across a few hundred discussions while one worker's
  PostgreSQL is killed with SIGKILL and brought back by `Cluster.start()` (what `make
  devdb-cluster` runs). Passes when no request answered a 5xx other than 503, every
  post answered 303 is stored exactly once and none answered 503 is, the discussions on
  the other worker kept taking posts, `/healthz/ready` named the worker, and
  `repair_summaries --check` and `repair_votes --check` are clean. Prints the answers
  by kind and status, answered against stored, and the time to recover.
- worker-added: the same readers while a third worker is added (`python -m devdb
  cluster add-worker`'s code) and `manage.py rebalance_shards` moves shards onto it.
  Passes when no request answered a 5xx other than 503, every post answered 303 is
  stored exactly once, discussions moved onto the new worker, each read on one node
  before and after, and the repair checks are clean. Prints the answers and what
  rebalance_shards printed (the spread before and after).

Each scenario starts its own database (FerretDB on PostgreSQL, devdb/server.py) under a
temporary folder (so the shared dev
database is never killed), talks only to 127.0.0.1, and is bounded in time.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import NO_RATE_LIMITS, Reader, Site, post_slugs  # noqa: E402
from devdb.server import DevDB  # noqa: E402

PAGE_BUDGET_S = 2.5


def own_database() -> DevDB:
    root = Path(tempfile.mkdtemp(prefix="slugline-fault-db-"))
    return DevDB(root=root)


def verdict(name: str, ok: bool, details: str) -> bool:
    print(f"{'PASS' if ok else 'FAIL'} {name}: {details}", flush=True)
    return ok


def post_until_answered(reader: Reader, slug: str, text: str, statuses: list[int], deadline: float) -> bool:
    """Post `text` through a fresh form, retrying the same form until the site says
    303 or the deadline passes. Records every status seen."""
    hidden = {}
    while not hidden and time.monotonic() < deadline:
        answer, hidden = reader.comment_form(f"/posts/{slug}/")
        statuses.append(answer.status)
        if not hidden:
            time.sleep(0.3)
    data = {**hidden, "text": text, "name": "Fault tester"}
    while time.monotonic() < deadline:
        answer = reader.post(f"/posts/{slug}/comments/", data)
        statuses.append(answer.status)
        if answer.status == 303:
            return True
        time.sleep(0.3)
    return False


def kill_db(total: int = 500, readers: int = 4) -> bool:
    db = own_database()
    server, _ = db.start()
    site = Site(mongodb_uri=server.uri)
    statuses: list[int] = []
    succeeded: list[str] = []
    lock = threading.Lock()
    try:
        site.prepare(posts=1, comments=0)
        site.start(**NO_RATE_LIMITS)
        slug = post_slugs(Reader(site.url))[0]
        deadline = time.monotonic() + 600
        queue = iter(range(total))

        def work():
            reader = Reader(site.url, timeout=10)
            while True:
                with lock:
                    n = next(queue, None)
                if n is None:
                    return
                seen: list[int] = []
                text = f"Fault comment {n:04d}"
                ok = post_until_answered(reader, slug, text, seen, deadline)
                with lock:
                    statuses.extend(seen)
                    if ok:
                        succeeded.append(text)

        threads = [threading.Thread(target=work) for _ in range(readers)]
        for thread in threads:
            thread.start()
        while len(succeeded) < total * 0.3 and any(t.is_alive() for t in threads):
            time.sleep(0.05)
        for pid in (db.running().pid, db.postmaster_pid()):
            os.kill(pid, signal.SIGKILL)
        killed_at = len(succeeded)
        time.sleep(2)
        db.state_file.unlink(missing_ok=True)
        assert db.start()[0].port == server.port  # the cluster keeps its ports
        for thread in threads:
            thread.join()

        from pymongo import MongoClient

        client = MongoClient(server.uri, serverSelectionTimeoutMS=5000)
        stored = [d["text"] for d in client[site.name].comments.find({}, {"text": 1})]
        client.close()
    finally:
        site.stop()
        site.drop()
        db.stop()
    duplicates = len(stored) - len(set(stored))
    errors_500 = statuses.count(500)
    ok = set(stored) == set(succeeded) and len(succeeded) == total and duplicates == 0 and errors_500 == 0
    refused = sum(1 for s in statuses if s not in (200, 303))
    return verdict("kill-db", ok, (
        f"{total} comments posted, killed after {killed_at}; {len(succeeded)} succeeded, {len(stored)} stored, "
        f"{duplicates} duplicates, {errors_500} answers of 500, {refused} refused or unanswered tries (retried)"
    ))


def hup(seconds: float = 20, readers: int = 3) -> bool:
    uri = os.environ.get("MONGODB_URI") or DevDB().start()[0].uri
    site = Site(mongodb_uri=uri, workers=2)
    failures: list[str] = []
    count = 0
    lock = threading.Lock()
    try:
        site.prepare(posts=2, comments=20)
        site.start(**NO_RATE_LIMITS)
        slugs = post_slugs(Reader(site.url))
        stop_at = time.monotonic() + seconds

        def work(n):
            nonlocal count
            reader = Reader(site.url, timeout=10)
            paths = ["/"] + [f"/posts/{s}/" for s in slugs] + [f"/posts/{s}/comments/?view=newest" for s in slugs]
            i = n
            while time.monotonic() < stop_at:
                path = paths[i % len(paths)]
                answer = reader.get(path)
                i += 1
                with lock:
                    count += 1
                    if answer.status != 200:
                        failures.append(f"{path}: {answer.status}")

        threads = [threading.Thread(target=work, args=(n,)) for n in range(readers)]
        for thread in threads:
            thread.start()
        for at in (seconds * 0.25, seconds * 0.6):
            time.sleep(max(0.0, stop_at - seconds + at - time.monotonic()))
            site.proc.send_signal(signal.SIGHUP)
        for thread in threads:
            thread.join()
        reloaded = site.log().count("Hang up")
    finally:
        site.stop()
        site.drop()
    return verdict("hup", not failures and reloaded >= 2,
                   f"{count} requests, 2 HUPs ({reloaded} seen in gunicorn's log), {len(failures)} failed"
                   + (f": {failures[:3]}" if failures else ""))


def db_stopped() -> bool:
    db = own_database()
    server, _ = db.start()
    site = Site(mongodb_uri=server.uri, workers=1)
    problems: list[str] = []
    try:
        site.prepare(posts=1, comments=5)
        # Without the rendered-comments cache, which would go on serving the comments
        # it holds while the database is down: this checks the pages that degrade.
        site.start(**NO_RATE_LIMITS, COMMENTS_CACHE_SECONDS="0")
        reader = Reader(site.url, timeout=10)
        slug = post_slugs(reader)[0]
        reader.get("/")
        reader.get(f"/posts/{slug}/")  # read once: the site keeps a copy of the article
        db.stop()

        def check(label, answer, status, needle=""):
            if answer.status != status:
                problems.append(f"{label}: {answer.status}, wanted {status}")
            if answer.seconds > PAGE_BUDGET_S:
                problems.append(f"{label}: {answer.seconds:.1f}s, over {PAGE_BUDGET_S}s")
            if needle and needle not in answer.body:
                problems.append(f"{label}: missing {needle!r}")

        post_page, hidden = reader.comment_form(f"/posts/{slug}/")
        check("post page", post_page, 200, "Comments are unavailable right now")
        check("home page", reader.get("/"), 200)
        check("comments page", reader.get(f"/posts/{slug}/comments/"), 503)
        check("unread post", reader.get("/posts/never-read/"), 503)
        text = "Kept while the database is down"
        posted = reader.post(f"/posts/{slug}/comments/", {**hidden, "text": text, "name": "Patient"})
        check("posting", posted, 503, text)

        assert db.start()[0].port == server.port  # the cluster keeps its ports
        time.sleep(2)  # pymongo's monitor notices within its heartbeat
        back = reader.get(f"/posts/{slug}/")
        check("post page after recovery", back, 200, 'class="comment"')
        again = reader.post(f"/posts/{slug}/comments/", {**hidden, "text": text, "name": "Patient"})
        check("posting after recovery", again, 303)
        timeouts = len(re.findall("WORKER TIMEOUT", site.log()))
        if timeouts:
            problems.append(f"{timeouts} worker timeouts in gunicorn's log")
    finally:
        site.stop()
        site.drop()
        db.stop()
    return verdict("db-stopped", not problems, "; ".join(problems) or
                   f"pages degraded within {PAGE_BUDGET_S}s, no worker timeout, recovered without a restart")


def worker_lost(posts: int = int(os.environ.get("FAULT_POSTS", 300)), readers: int = 4,
                seconds: float = float(os.environ.get("FAULT_SECONDS", 20))) -> bool:
    from bench.cluster_faults import on_own_cluster, worker_lost as run

    outcome = on_own_cluster(lambda cluster, site: run(cluster, site, readers=readers, seconds=seconds), posts=posts)
    print(outcome.table())
    print(f"pages during the fault: {outcome.pages}; a lost discussion took a post again "
          f"{outcome.recovered_s:.1f} s after the restart began")
    live_posts = sum(n for (phase, kind, side, status), n in outcome.answers.items()
                     if (phase, kind, side, status) == ("fault", "post", "live", 303))
    problems = outcome.problems() + ([] if live_posts else ["no post stored on the live worker during the fault"])
    problems += [] if outcome.pages.get("healthz names the worker") else ["/healthz/ready did not name the worker"]
    return verdict("worker-lost", not problems, "; ".join(problems) or (
        f"{outcome.answered} posts answered 303, {outcome.stored} stored once, 0 duplicated, "
        f"{len(outcome.refused_but_stored)} answered 503 but stored; {live_posts} stored on the live worker "
        f"during the fault; a lost discussion took a post again {outcome.recovered_s:.1f} s after the restart"))


def worker_added(posts: int = int(os.environ.get("FAULT_POSTS", 300)), readers: int = 4,
                 seconds: float = float(os.environ.get("FAULT_SECONDS", 20))) -> bool:
    from bench.cluster_faults import on_own_cluster, shards_moved

    move = on_own_cluster(lambda cluster, site: shards_moved(cluster, site, readers=readers, seconds=seconds),
                          posts=posts)
    outcome = move.outcome
    print(outcome.table())
    print(move.output.rstrip())
    moved = sum(1 for slug, node in move.after.items() if move.before[slug] != node)
    problems = outcome.problems() + ([] if move.worker in move.after.values() else ["no discussion moved"])
    return verdict("worker-added", not problems, "; ".join(problems) or (
        f"{move.worker} added and shards moved in {move.seconds:.0f} s while readers posted and voted; "
        f"{moved} of {len(move.after)} discussions moved, each read on one node before and after; "
        f"{outcome.answered} posts answered 303, {outcome.stored} stored once, 0 duplicated"))


SCENARIOS = {"kill-db": kill_db, "hup": hup, "db-stopped": db_stopped, "worker-lost": worker_lost,
             "worker-added": worker_added}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", nargs="*", help=f"any of {', '.join(SCENARIOS)} (default: all)")
    names = parser.parse_args().scenario or list(SCENARIOS)
    unknown = [name for name in names if name not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario {unknown[0]!r}; choose from {', '.join(SCENARIOS)}")
    results = [SCENARIOS[name]() for name in names]
    print(f"fault scenarios: {sum(results)} of {len(results)} passed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
