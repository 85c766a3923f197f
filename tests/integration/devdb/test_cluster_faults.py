"""The sharded cluster under faults and growth, on a development cluster of its own (a
temporary folder, its own ports: the cluster the other tests use is never touched):
a site under gunicorn whose readers read, post and vote across its discussions with
real concurrency on loopback (bench/cluster_faults.py) while one worker is killed with
SIGKILL and brought back, and while a worker is added and shards move onto it. Runs
under `make test-cluster` (it needs Citus built; skipped on any other server)."""

from __future__ import annotations

import shutil

import pytest

from bench.cluster_faults import own_cluster, shards_moved, site_on, worker_lost
from devdb.cluster import find_cluster
from infra import mongo

pytestmark = pytest.mark.lifecycle
POSTS = 12
READERS = 3
SECONDS = 4


@pytest.fixture(scope="module")
def faulty():
    if find_cluster(mongo.get_client().address) is None:
        pytest.skip("needs the development cluster's build (make test-cluster)")
    cluster = own_cluster()
    site = None
    try:
        site = site_on(cluster, posts=POSTS, comments=2)
        yield cluster, site
    finally:
        if site:
            site.stop()
        cluster.stop()
        shutil.rmtree(cluster.root.parent, ignore_errors=True)


def statuses(outcome, phase: str, kind: str, side: str) -> set[int]:
    return {status for (p, k, d, status) in outcome.answers if (p, k, d) == (phase, kind, side)}


def share(outcome, phase: str, kind: str, side: str, status: int) -> float:
    """The share of these answers that had `status`."""
    counts = {s: n for (p, k, d, s), n in outcome.answers.items() if (p, k, d) == (phase, kind, side)}
    return counts.get(status, 0) / (sum(counts.values()) or 1)


def test_a_worker_lost_costs_only_the_discussions_on_it(faulty):
    cluster, site = faulty
    # Durable, as production's nodes are: what the lost worker acknowledged outlives its kill.
    assert {cluster.sql(node, "SHOW synchronous_commit", fetch=True).strip() for node in cluster.nodes()} == {"on"}
    outcome = worker_lost(cluster, site, lose="worker2", readers=READERS, seconds=SECONDS)
    report = outcome.table() + f"\n{outcome.pages}\n{site.failures(size=20000)}"
    print(f"\nworker lost:\n{outcome.table()}\nanswered 303: {outcome.answered}, stored: {outcome.stored}; "
          f"recovered in {outcome.recovered_s:.1f} s; {outcome.pages}", flush=True)  # the figures, with -s
    assert outcome.problems() == [], report
    # The other worker's discussions kept serving: pages, posts and votes stored (a
    # 503 there is a request over its time budget on this shared machine, not the fault).
    assert statuses(outcome, "fault", "post", "live") <= {303, 503}, report
    assert statuses(outcome, "fault", "page", "live") <= {200, 503}, report
    assert statuses(outcome, "fault", "vote", "live") <= {303, 503}, report  # none on its own comment
    assert share(outcome, "fault", "post", "live", 303) >= 0.5, report
    assert share(outcome, "fault", "page", "live", 200) >= 0.5, report
    # The lost worker's: its pages from their last good copy or a 503 page, posts 503.
    assert statuses(outcome, "fault", "post", "lost") <= {503}, report
    assert statuses(outcome, "fault", "page", "lost") <= {200, 503}, report
    assert outcome.pages["home"] == 200 and outcome.pages["lost page"] in (200, 503), report
    assert outcome.pages["moderation queue"] in (200, 503), report  # it reads every shard
    assert outcome.pages["healthz/ready"] == 200 and outcome.pages["healthz names the worker"], report
    assert outcome.answered > 0 and outcome.stored == outcome.answered
    assert outcome.recovered_s < 30, report


def test_a_worker_added_takes_shards_while_readers_post_and_vote(faulty):
    cluster, site = faulty
    move = shards_moved(cluster, site, readers=READERS, seconds=SECONDS)
    outcome = move.outcome
    report = outcome.table() + f"\n{move.output}\n{site.failures(size=20000)}"
    print(f"\nworker added:\n{outcome.table()}\nanswered 303: {outcome.answered}, stored: {outcome.stored}; "
          f"add-worker and rebalance_shards {move.seconds:.0f} s; checks {outcome.checks}\n{move.output}\n"
          + "\n".join(line for line in site.log().splitlines() if "settled later" in line or "unsettled" in line),
          flush=True)
    assert outcome.problems() == [], report
    assert {status for (_, kind, _, status) in outcome.answers if kind in ("post", "vote")} <= {303, 503}, report
    assert outcome.answered > 0 and outcome.stored == outcome.answered, report
    # Each discussion's comments are read on one node before and after (placement
    # asserts it), and some moved onto the new worker.
    assert set(move.after) == set(move.before)
    assert move.worker in set(move.after.values()), move.output
    assert "Discussions over the workers before" in move.output and f"  {move.worker}: 0 discussions" in move.output
    # Then what a write lost with a moving shard may have left is counted again (docs/dev-cluster.md).
    assert f"Counted the comments of {POSTS} discussions again" in move.output, move.output
