"""The sharded cluster under faults: a worker killed while readers post and vote, on a
development cluster of its own (devdb/cluster.py under a temporary folder, its own
ports), never the shared one. Used by `bench/faults.py worker-lost` and by
tests/integration/devdb/test_cluster_faults.py (make test-cluster).

Readers (threads, each a cookie jar of its own) read, post through the comment form
and vote through the vote form across the site's discussions, on 127.0.0.1, for a
bounded time. Each answer is counted by kind (page, post, vote), by where the
discussion's comments live (on the worker that is lost, or on another) and by status.
The worker's PostgreSQL is killed with SIGKILL; `Cluster.start()` (what
`make devdb-cluster` runs) brings it back; a post to one of its discussions is
retried until it is stored (the time to recover). Then what was answered is compared
with what is stored, and `repair_summaries --check` and `repair_votes --check` run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from bench.harness import NO_RATE_LIMITS, Answer, Reader, Site, comment_form_fields
from devdb.cluster import ROOT_VARIABLE, Cluster

T = TypeVar("T")
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
VOTE_ACTION = re.compile(r'formaction="([^"]+/vote/)" name="vote" value="up"')


def own_cluster() -> Cluster:
    """A development cluster under a new temporary folder, on ports of its own; durable,
    as production's nodes are: what a killed worker acknowledged is still there after."""
    folder = Path(tempfile.mkdtemp(prefix="slugline-cluster-faults-"))
    folder.chmod(0o755)
    return Cluster(root=folder / "devdb-cluster", durable=True)


def site_on(cluster: Cluster, *, posts: int, comments: int, workers: int = 2) -> Site:
    """A scratch site on `cluster`: seeded, its collections sharded, served by gunicorn.
    Prints how long each step took."""
    steps = [time.monotonic()]
    # The Django database is migrated and the static files collected while the cluster
    # is made (neither reads MongoDB: the site learns the cluster's address after).
    site = Site(mongodb_uri="mongodb://127.0.0.1:9/", workers=workers, extra_env={ROOT_VARIABLE: str(cluster.root)})
    with ThreadPoolExecutor(max_workers=1) as pool:
        django_side = pool.submit(lambda: [site.manage(*command) for command in (
            ("migrate", "--noinput", "-v0"), ("collectstatic", "--noinput", "-v0"))])
        server, _ = cluster.start()
        django_side.result()
    site.mongodb_uri, site.collected = server.uri, True
    steps.append(time.monotonic())
    # ensure_indexes, seed_demo, then shard_collections, in one Django process.
    site.manage("shell", "-c", "from django.core.management import call_command as run; run('ensure_indexes'); "
                f"run('seed_demo', posts={posts}, comments={comments}); run('shard_collections')")
    steps.append(time.monotonic())
    # With the publishing loop, as a deployment runs it (the Procfile's `publish:`): it
    # settles the discussions whose changes were stored but not settled (a summary
    # refresh that met a lost shard, or one being moved), every 2 s here.
    site.start(**NO_RATE_LIMITS, SLUGLINE_PUBLISH_EVERY="2")
    steps.append(time.monotonic())
    took = [f"{name} {b - a:.0f} s" for name, a, b in
            zip(("cluster (and migrate, collectstatic)", "indexes, seed and shard_collections", "gunicorn"), steps, steps[1:])]
    print("set-up: " + ", ".join(took), flush=True)
    return site


def on_own_cluster(work: Callable[[Cluster, Site], T], *, posts: int, comments: int = 2) -> T:
    """`work(cluster, site)` on a cluster and site of their own, stopped and removed after."""
    cluster = own_cluster()
    site = None
    try:
        started = time.monotonic()
        site = site_on(cluster, posts=posts, comments=comments)
        print(f"a cluster of its own and {posts} discussions in {time.monotonic() - started:.0f} s", flush=True)
        return work(cluster, site)
    finally:
        if site:
            site.stop()
        cluster.stop()
        shutil.rmtree(cluster.root.parent, ignore_errors=True)


def placement(cluster: Cluster, site: Site) -> dict[str, str]:
    """Each published post's slug and the node its comments live on, from the
    server's own explain of the query of a discussion's comments (one task, one node)."""
    from pymongo import MongoClient

    ports = {cluster.ports().of(node): node for node in cluster.nodes()}
    where = {}
    with MongoClient(site.mongodb_uri, serverSelectionTimeoutMS=5000) as client:
        db = client[site.name]
        for post in db.posts.find({"status": "published"}, {"slug": 1}):
            plan = db.command("explain", {"find": "comments", "filter": {"discussion_id": post["_id"]}},
                              verbosity="queryPlanner")
            found = {int(port) for port in re.findall(r"port=(\d+)", json.dumps(plan, default=str))}
            assert len(found) == 1, f"{post['slug']}: its comments are read on {found}"
            where[post["slug"]] = ports[found.pop()]
    return where


@dataclass
class Traffic:
    """Readers reading, posting and voting across `slugs` until stopped."""

    url: str
    slugs: list[str]
    side_of: dict[str, str]
    readers: int = 4
    answers: Counter = field(default_factory=Counter)  # (phase, kind, side, status) -> count
    posted: dict[str, int] = field(default_factory=dict)  # text -> status of its one try
    phase: str = "before"
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)
    threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> None:
        self.threads = [threading.Thread(target=self._read, args=(n,), daemon=True) for n in range(self.readers)]
        for thread in self.threads:
            thread.start()

    def stop(self) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=60)

    def _count(self, kind: str, slug: str, answer: Answer, phase: str) -> None:
        """Counted in the phase the request was sent in (one sent just before the fault
        may be answered after it)."""
        with self.lock:
            self.answers[(phase, kind, self.side_of[slug], answer.status)] += 1

    def _read(self, number: int) -> None:
        # A reader votes only on comments it saw before it posted to the discussion
        # (a vote on one's own comment is refused: 403).
        reader, voted, votable = Reader(self.url, timeout=10), set(), {}
        turn = number
        while not self.stopping.is_set():
            slug = self.slugs[turn % len(self.slugs)]
            turn += self.readers
            path = f"/posts/{urllib.parse.quote(slug)}/"
            phase = self.phase
            page = reader.get(path)
            self._count("page", slug, page, phase)
            hidden = comment_form_fields(page.body)
            if page.status != 200 or not hidden:
                continue
            votable.setdefault(slug, VOTE_ACTION.findall(page.body))
            text = f"Cluster reader {number} says {turn:06d} on {slug[:20]}."
            phase = self.phase
            answer = reader.post(path + "comments/", {**hidden, "text": text, "name": f"Reader {number}"})
            self._count("post", slug, answer, phase)
            with self.lock:
                self.posted[text] = answer.status
            action = next((a for a in votable[slug] if a not in voted), None)
            token = CSRF.search(page.body)
            if action and token:
                voted.add(action)
                phase = self.phase
                vote = reader.post(action, {"csrfmiddlewaretoken": token.group(1), "vote": "up", "next": path})
                self._count("vote", slug, vote, phase)


def editor(site: Site) -> Reader:
    """A reader logged in as the demo editor (who sees the moderation queue)."""
    password = re.search(r"Password: (\S+)", site.manage("demo_login")).group(1)  # type: ignore[union-attr]
    reader = Reader(site.url, timeout=10)
    token = CSRF.search(reader.get("/accounts/login/").body)
    assert token, "the login page has no form"
    answer = reader.post("/accounts/login/", {"csrfmiddlewaretoken": token.group(1), "login": "bruno",
                                              "password": password})
    assert answer.status in (302, 303), f"logging in as the editor answered {answer.status}"
    return reader


def kill_node(cluster: Cluster, node: str) -> None:
    """SIGKILL the node's PostgreSQL (its postmaster), as a crashed machine would."""
    pid = int((cluster.data_dir(node) / "postmaster.pid").read_text().split()[0])
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while cluster._node_running(node) and time.monotonic() < deadline:
        time.sleep(0.1)


def stored_texts(site: Site, prefix: str = "Cluster reader ") -> Counter:
    from pymongo import MongoClient

    with MongoClient(site.mongodb_uri, serverSelectionTimeoutMS=5000) as client:
        found = client[site.name].comments.find({"text": {"$regex": f"^{re.escape(prefix)}"}}, {"text": 1})
        return Counter(document["text"] for document in found)


@dataclass
class Outcome:
    answers: Counter
    answered: int  # posts answered 303
    stored: int  # of those, stored (once or more)
    missing: list[str]
    duplicated: list[str]
    refused_but_stored: list[str]
    recovered_s: float
    checks: dict[str, str]
    pages: dict[str, int]

    @property
    def errors_500(self) -> int:
        return sum(count for (_, _, _, status), count in self.answers.items() if status >= 500 and status != 503)

    def problems(self) -> list[str]:
        found = [f"{self.errors_500} answers of 5xx other than 503"] if self.errors_500 else []
        found += [f"{len(self.missing)} posts answered 303 not stored"] if self.missing else []
        found += [f"{len(self.duplicated)} posts stored twice"] if self.duplicated else []
        found += [f"{len(self.refused_but_stored)} posts answered 503 but stored"] if self.refused_but_stored else []
        found += [f"{name}: {said}" for name, said in self.checks.items() if said != "clean"]
        return found

    def table(self) -> str:
        lines = [f"{'phase':<8}{'kind':<6}{'side':<6} answers by status"]
        keys = sorted({(phase, kind, side) for phase, kind, side, _ in self.answers})
        for phase, kind, side in keys:
            statuses = {s: n for (p, k, d, s), n in self.answers.items() if (p, k, d) == (phase, kind, side)}
            lines.append(f"{phase:<8}{kind:<6}{side:<6} " + ", ".join(f"{s}: {n}" for s, n in sorted(statuses.items())))
        return "\n".join(lines)


def check(site: Site, command: str, seconds: float = 30) -> str:
    """`command --check`: "clean", or what it reported for `seconds` (a post's summary
    refreshed after its answer, a vote's tally, may still be on its way when the
    readers stop; drift that stays is what counts)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            site.manage(command, "--check")
            return "clean"
        except RuntimeError as exc:
            said = str(exc)[-2000:]
        if time.monotonic() > deadline:
            return said
        time.sleep(2)


def checks_after(site: Site) -> dict[str, str]:
    """`repair_summaries --check` and `repair_votes --check` (`check`), the two at once."""
    names = ("repair_summaries", "repair_votes")
    with ThreadPoolExecutor(max_workers=len(names)) as pool:
        return dict(zip(names, pool.map(lambda name: check(site, name), names)))


def after(traffic: Traffic, site: Site) -> tuple[int, list[str], list[str], list[str]]:
    stored = stored_texts(site)
    answered = [text for text, status in traffic.posted.items() if status == 303]
    missing = [text for text in answered if not stored[text]]
    duplicated = [text for text, count in stored.items() if count > 1]
    refused = [text for text, status in traffic.posted.items() if status != 303 and stored[text]]
    return len(answered), missing, duplicated, refused


def worker_lost(cluster: Cluster, site: Site, *, lose: str = "worker2", readers: int = 4,
                seconds: float = 8) -> Outcome:
    """Readers on every discussion; `lose` killed after `seconds`; `seconds` of the
    fault; the cluster restarted; `seconds` more once a post to a lost discussion is stored."""
    where = placement(cluster, site)
    side_of = {slug: "lost" if node == lose else "live" for slug, node in where.items()}
    lost_slug = next(slug for slug, side in side_of.items() if side == "lost")
    traffic = Traffic(site.url, sorted(where), side_of, readers=readers)
    probe = Reader(site.url, timeout=10)
    probe.get(f"/posts/{urllib.parse.quote(lost_slug)}/")  # read once: a last good copy exists
    moderator = editor(site)
    traffic.start()
    try:
        time.sleep(seconds)
        traffic.phase = "fault"
        kill_node(cluster, lose)
        time.sleep(seconds)
        pages = {"home": probe.get("/").status, "lost page": probe.get(f"/posts/{urllib.parse.quote(lost_slug)}/").status}
        health = probe.get("/healthz/ready")
        pages["moderation queue"] = moderator.get("/dashboard/moderation/").status
        pages["healthz/ready"] = health.status
        pages["healthz names the worker"] = int(f'"{lose}": "unavailable"' in health.body)
        started = time.monotonic()
        traffic.phase = "back"
        cluster.start()
        recovered_s = _first_stored(probe, lost_slug, started + 60) - started
        time.sleep(seconds)
    finally:
        traffic.stop()
    answered, missing, duplicated, refused = after(traffic, site)
    checks = checks_after(site)
    return Outcome(traffic.answers, answered, answered - len(missing), missing, duplicated, refused,
                   recovered_s, checks, pages)


@dataclass
class Move:
    outcome: Outcome
    worker: str
    output: str  # what rebalance_shards printed
    before: dict[str, str]  # slug -> node its comments were read on
    after: dict[str, str]
    seconds: float  # add-worker and rebalance_shards, end to end


def shards_moved(cluster: Cluster, site: Site, *, readers: int = 4, seconds: float = 8) -> Move:
    """Readers on every discussion while a worker is added (`add_worker`) and
    `manage.py rebalance_shards` moves shards onto it; `seconds` of traffic before and after."""
    from devdb.cluster_ops import add_worker

    before = placement(cluster, site)
    traffic = Traffic(site.url, sorted(before), {slug: "any" for slug in before}, readers=readers)
    traffic.start()
    try:
        time.sleep(seconds)
        traffic.phase = "move"
        started = time.monotonic()
        worker = add_worker(cluster)
        output = site.manage("rebalance_shards")
        took = time.monotonic() - started
        traffic.phase = "after"
        time.sleep(seconds)
    finally:
        traffic.stop()
    after_move = placement(cluster, site)
    answered, missing, duplicated, refused = after(traffic, site)
    checks = checks_after(site)
    outcome = Outcome(traffic.answers, answered, answered - len(missing), missing, duplicated, refused,
                      0.0, checks, {})
    return Move(outcome, worker, output, before, after_move, took)


def _first_stored(reader: Reader, slug: str, deadline: float) -> float:
    """When a post to `slug` is first answered 303 (retrying the same form), or the deadline."""
    path = f"/posts/{urllib.parse.quote(slug)}/"
    while time.monotonic() < deadline:
        hidden = comment_form_fields(reader.get(path).body)
        if hidden:
            answer = reader.post(path + "comments/", {**hidden, "text": "Back after the worker returned.",
                                                      "name": "Probe"})
            if answer.status == 303:
                return time.monotonic()
        time.sleep(0.2)
    return deadline
