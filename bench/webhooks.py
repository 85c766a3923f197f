"""Benchmark: a burst of webhook events against slow and failing receivers, and what
readers feel meanwhile.

In a scratch MongoDB database (dropped at the end), with the comments cache off (every
reader page reads MongoDB), a real HTTP receiver on loopback (http.server in threads)
that checks every delivery's signature with its webhook's secret and counts each
event id it receives. Per scenario, one webhook hears `comment.posted` at a path of
the receiver that answers:

    slow   after `--delay` seconds (2), within the cut-off: delivered
    hang   after `--hang` seconds (30), past WEBHOOKS_TIMEOUT_SECONDS (10): every
           attempt is cut off; run for `--hang-window` seconds (120), not until the
           day of retries is over
    flaky  500 to an event id's first attempt, 200 to the next (a retry 30 s later)

and a second webhook, at a path that answers 200 at once, hears nothing of the burst:
every `--canary-every` seconds (10) a test event is queued for it, and its wait from
queued to received tells whether the slow receiver holds up the others.

1. baseline: `--readers` threads (2) read a threaded post page of 200 comments through
   Django's test client for `--seconds` (20), no burst, no sender;
2. per scenario: `--events` comments (1,000) are posted through the comments app's
   service from `--posters` threads (4; each comment fires `comment.posted`: one
   delivery), then `manage.py send_webhooks
   --loop` runs in a process of its own, as the Procfile's `webhooks:` process does,
   while the readers read the same page, until every delivery is settled (or the
   window ends); the sender is then stopped with SIGTERM (it finishes what it sends).

Prints per scenario the readers' median and p95 against the baseline's, the time the
burst took to drain, the canary's waits, and checks: every signature good; each
event id received no more often than its delivery logged attempts (never twice in
one attempt) and at least as often as attempts that got an answer (none lost; one
cut off while connecting may not have reached the receiver); in slow and flaky every
event delivered, with one 2xx answer each (flaky: received exactly twice).

    MONGODB_URI=mongodb://127.0.0.1:<port>/ .venv/bin/python bench/webhooks.py [--events 1000]
        [--scenarios slow,flaky,hang] [--delay 2] [--hang 30] [--hang-window 120]

The sender takes WEBHOOKS_* settings from the environment (docs/reference.md).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.django_setup import setup  # noqa: E402

setup()

from django.conf import settings  # noqa: E402
from django.test import Client  # noqa: E402

from bench.harness import server_description  # noqa: E402
from bench.static import collect_static  # noqa: E402
from cms import demo, posts  # noqa: E402
from cms.posts import AuthorSummary  # noqa: E402
from comments import api as comments_api  # noqa: E402
from infra import mongo  # noqa: E402
from infra.metering import median_and_p95_ms  # noqa: E402
from webhooks import deliveries, events, hooks, signing  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
AUTHOR = AuthorSummary(id=1, username="bench", name="Bench")


class Receiver:
    """What the receiver saw: per path, the event ids received (with how often), bad
    signatures, the 2xx answers per id, and when each id was first received."""

    def __init__(self, *, delay: float, hang: float) -> None:
        self.delay, self.hang = delay, hang
        self.lock = threading.Lock()
        self.secrets: dict[str, str] = {}  # path -> the webhook's secret
        self.received: dict[str, Counter] = defaultdict(Counter)
        self.answered_ok: dict[str, Counter] = defaultdict(Counter)
        self.first_seen: dict[str, float] = {}
        self.bad_signatures = 0
        self.closing = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.answer(self, body)

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 256  # the listen backlog: no connection waits on a full queue

        self.server = Server(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        path = handler.path
        signature = handler.headers.get(signing.HEADER, "")
        good = signing.verify(secret=self.secrets.get(path, ""), value=signature, body=body,
                              now=int(time.time()))
        event_id = json.loads(body)["id"] if good else ""
        with self.lock:
            self.bad_signatures += not good
            seen = self.received[path][event_id]
            self.received[path][event_id] += 1
            self.first_seen.setdefault(event_id, time.monotonic())
        wait = {"/slow": self.delay, "/hang": self.hang}.get(path, 0.0)
        if wait:
            self.closing.wait(wait)
        code = 500 if path == "/flaky" and seen == 0 else 200
        try:
            handler.send_response(code)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
        except OSError:
            return  # The sender cut the attempt off and closed the connection.
        if code == 200 and good:
            with self.lock:
                self.answered_ok[path][event_id] += 1

    def ids(self, path: str) -> set[str]:
        with self.lock:
            return set(self.received[path])

    def close(self) -> None:
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()


def in_threads(work, count: int) -> None:
    """`work` in `count` threads, until each returns (daemons: an interrupted run ends)."""
    threads = [threading.Thread(target=work, daemon=True) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def read(page: str, keep_going, readers: int) -> list[float]:
    """Read `page` from `readers` threads while keep_going(); every answer's latency."""
    times: list[float] = []
    lock = threading.Lock()

    def reader() -> None:
        client = Client()
        while keep_going():
            started = time.perf_counter()
            response = client.get(page)
            took = time.perf_counter() - started
            assert response.status_code == 200, (page, response.status_code)
            with lock:
                times.append(took)

    in_threads(reader, readers)
    return times


def burst(post: posts.Post, count: int, threads: int) -> float:
    """`count` comments posted through the service from `threads` threads (as several
    web workers would), each firing comment.posted; seconds."""
    numbers = iter(range(count))
    lock = threading.Lock()

    def poster() -> None:
        while True:
            with lock:
                n = next(numbers, None)
            if n is None:
                return
            comments_api.post_comment(post=post, text=f"Burst comment number {n}: {uuid.uuid4().hex}",
                                      author=comments_api.CommentAuthor(id=None, name=f"Reader {n % 50}"),
                                      ip=f"10.0.{n % 200}.1")

    started = time.perf_counter()
    in_threads(poster, threads)
    return time.perf_counter() - started


def unsettled(hook: hooks.Hook) -> int:
    return mongo.get_db().webhook_deliveries.count_documents(
        {"hook": hook.id, "status": {"$in": [deliveries.DUE, deliveries.SENDING]}})


def canaries(canary: hooks.Hook, receiver: Receiver, path: str, every: float,
             stop: threading.Event) -> list[float]:
    """Once the sender has sent its first delivery to `path`, queue a test event for the
    canary webhook every `every` seconds until `stop`; each one's wait from queued to
    received (inf: not received 15 s after the end)."""
    queued: dict[str, float] = {}
    while not stop.is_set() and not receiver.received[path]:
        stop.wait(0.1)  # The sender is starting: the waits start from its first delivery.
    while not stop.is_set():
        events.send_test(canary)
        queued[deliveries.for_hook(hook_id=canary.id, limit=1)[0].event_id] = time.monotonic()
        stop.wait(every)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not set(queued) <= receiver.ids("/ok"):
        time.sleep(0.1)
    seen = receiver.ids("/ok")
    return [receiver.first_seen[i] - at if i in seen else float("inf") for i, at in queued.items()]


def scenario(name: str, args, receiver: Receiver, burst_post: posts.Post, page: str,
             baseline: tuple[float, float], canary: hooks.Hook) -> bool:
    hook = hooks.create_hook(url=f"{receiver.base}/{name}", events=["comment.posted"], created_by="bench")
    receiver.secrets[f"/{name}"] = hook.secret
    posting = burst(burst_post, args.events, args.posters)
    stored = mongo.get_db().webhook_deliveries.count_documents({"hook": hook.id})
    print(f"[{name}] posted {args.events:,} comments in {posting:.1f} s ({args.events / posting:.0f}/s); "
          f"{stored:,} deliveries stored.", flush=True)
    env = {**os.environ, "MONGODB_NAME": settings.MONGODB_NAME, "WEBHOOKS_ALLOW_PRIVATE": "true"}
    began = time.monotonic()
    window = args.hang_window if name == "hang" else args.limit
    log = tempfile.TemporaryFile(mode="w+")  # not a pipe: nothing reads it until the end
    worker = subprocess.Popen([sys.executable, "manage.py", "send_webhooks", "--loop"], env=env, cwd=REPO,
                              stdout=log, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    drained: list[float] = []
    stop, done = threading.Event(), threading.Event()

    def watch() -> None:
        while time.monotonic() - began < window:
            if unsettled(hook) == 0:
                drained.append(time.monotonic() - began)
                break
            time.sleep(0.5)
        done.set()

    waits: list[float] = []
    watcher = threading.Thread(target=lambda: waits.extend(
        canaries(canary, receiver, f"/{name}", args.canary_every, stop)), daemon=True)
    watcher.start()
    threading.Thread(target=watch, daemon=True).start()
    try:
        during = read(page, lambda: not done.is_set(), args.readers)
    finally:
        stop.set()
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=120)
        log.seek(0)
        output = log.read()
        log.close()
        watcher.join()
    stopped = time.monotonic() - began
    median, p95 = median_and_p95_ms(during)
    print(f"[{name}] readers while sending: {len(during):,} requests, median {median:.1f} ms "
          f"(x{median / baseline[0]:.2f}), p95 {p95:.1f} ms (x{p95 / baseline[1]:.2f})")
    if drained:
        print(f"[{name}] burst drained in {drained[0]:.1f} s (sender's start-up included)")
    else:
        print(f"[{name}] not drained after {window:.0f} s; sender stopped after {stopped:.1f} s")
    finite = sorted(w for w in waits if w != float("inf"))
    print(f"[{name}] canary test events: {len(waits)} queued, {len(finite)} received, waits "
          + ", ".join("never" if w == float("inf") else f"{w:.1f}" for w in waits) + " s")
    return check(name, hook, receiver, drained=bool(drained), output=output)


def answered_attempts(doc: dict) -> int:
    return sum(attempt.get("code") is not None for attempt in doc["log"])


def check(name: str, hook: hooks.Hook, receiver: Receiver, *, drained: bool, output: str) -> bool:
    docs = list(mongo.get_db().webhook_deliveries.find({"hook": hook.id}))
    received, answered = receiver.received[f"/{name}"], receiver.answered_ok[f"/{name}"]
    statuses = Counter(doc["status"] for doc in docs)
    attempts = sum(len(doc["log"]) for doc in docs)
    # An attempt is received at most once, and every attempt that got an answer was received
    # (one cut off before its request was read, e.g. while connecting, may be missing).
    mismatched = [doc["event_id"] for doc in docs
                  if not answered_attempts(doc) <= received[doc["event_id"]] <= len(doc["log"])]
    never = [doc["event_id"] for doc in docs if received[doc["event_id"]] == 0]
    twice_ok = [i for i, n in answered.items() if n > 1]
    codes = Counter(str(a.get("code") or a.get("error")) for doc in docs for a in doc["log"])
    print(f"[{name}] deliveries {dict(statuses)}; attempts logged {attempts:,}, received "
          f"{sum(received.values()):,} ({len(received):,} ids); answers {dict(codes)}; "
          f"bad signatures {receiver.bad_signatures}")
    problems = []
    if receiver.bad_signatures:
        problems.append(f"{receiver.bad_signatures} bad signatures")
    if mismatched:
        problems.append(f"{len(mismatched)} ids received more often than attempted or not when answered")
    if twice_ok:
        problems.append(f"{len(twice_ok)} ids answered 2xx more than once")
    if name != "hang" and (not drained or never or statuses.get(deliveries.DELIVERED, 0) != len(docs)):
        problems.append(f"not all delivered: {dict(statuses)}, {len(never)} never received")
    if name == "flaky" and any(n != 2 for n in received.values()):
        problems.append("a flaky event was not received exactly twice")
    fine = "no attempt received twice, every answered one received, signatures good"
    print(f"[{name}] check: " + ("; ".join(problems) if problems
                                 else fine + ("" if name == "hang" else ", every event delivered")))
    if problems:
        print(output[-2000:])
    hooks.update_hook(hook_id=hook.id, url=hook.url, events=hook.events, active=False)
    return not problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000)
    parser.add_argument("--scenarios", default="slow,flaky,hang")
    parser.add_argument("--delay", type=float, default=2.0, help="the slow receiver's answer time")
    parser.add_argument("--hang", type=float, default=30.0, help="the hanging receiver's answer time")
    parser.add_argument("--hang-window", type=float, default=120.0, help="how long the hang scenario runs")
    parser.add_argument("--limit", type=float, default=1800.0, help="a scenario's longest drain")
    parser.add_argument("--canary-every", type=float, default=10.0)
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--posters", type=int, default=4, help="threads posting the burst")
    parser.add_argument("--seconds", type=float, default=20, help="baseline's length")
    args = parser.parse_args()
    settings.MONGODB_NAME = f"slugline_bench_{uuid.uuid4().hex[:8]}"
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.COMMENTS_CACHE_SECONDS = 0
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    collect_static()
    mongo.reset_client()
    mongo.ensure_all_indexes()
    print(f"Server: {server_description(mongo.get_client())}; database {settings.MONGODB_NAME}; cache off; "
          "sender's WEBHOOKS_* from the environment: "
          + ", ".join(f"{k}={v}" for k, v in os.environ.items() if k.startswith("WEBHOOKS_")), flush=True)
    receiver = Receiver(delay=args.delay, hang=args.hang)
    ok = True
    try:
        read_post, burst_post = (
            posts.create_post(title=title, slug=slug, content="Benchmark post.", author=AUTHOR,
                              status=posts.PUBLISHED, published=datetime.now(UTC))
            for title, slug in (("Read", "read"), ("Burst", "burst")))
        demo.seed_comments(post=read_post, count=200, rng=random.Random(1), start=read_post.created)
        page = f"/posts/{read_post.slug}/"
        warm = iter(range(5))
        read(page, lambda: next(warm, None) is not None, 1)  # warm: templates compiled
        until = time.monotonic() + args.seconds
        times = read(page, lambda: time.monotonic() < until, args.readers)
        baseline = median_and_p95_ms(times)
        print(f"[baseline] readers, no burst, no sender: {len(times):,} requests, "
              f"median {baseline[0]:.1f} ms, p95 {baseline[1]:.1f} ms", flush=True)
        # Hears nothing of the bursts: it gets the test events that tell whether it waits.
        canary = hooks.create_hook(url=f"{receiver.base}/ok", events=["comment.flagged"], created_by="bench")
        receiver.secrets["/ok"] = canary.secret
        for name in args.scenarios.split(","):
            ok = scenario(name.strip(), args, receiver, burst_post, page, baseline, canary) and ok
    finally:
        receiver.close()
        mongo.get_client().drop_database(settings.MONGODB_NAME)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
