"""Routing on the development cluster (make test-cluster; skipped on any other server):
the session's store collections are sharded (tests/database.py), a discussion's page is
served by one shard, the moderation queue fans out to every shard, counts add up across
shards, and `shard_collections` and `comments_migrate` shard through DocumentDB's SQL
function on the coordinator, idempotently. Each routing claim is read from the
server's own `explain`, sent through the wire protocol like any query."""

from __future__ import annotations

import random
import re
import uuid
from datetime import datetime, timezone
from io import StringIO

import pytest
from bson import ObjectId
from django.core.management import call_command

from comments.benchmark import insert_discussion
from comments.moderation import queue as moderation
from comments.records import QueueFilter
from comments.stores import get_store, store_switch
from infra import mongo
from devdb.cluster import find_cluster
from devdb.cluster_ops import primary_node

pytestmark = [pytest.mark.usefixtures("each_store")]
DISCUSSIONS = 24
PER_DISCUSSION = 12
NOT_SENT = {"lsid", "$db", "$clusterTime", "maxTimeMS", "$readPreference", "txnNumber"}
SHARDED = {"documents": "comments", "buckets": "comment_pages", "embedded": "discussions"}


@pytest.fixture(autouse=True)
def cluster():
    found = find_cluster(mongo.get_client().address)
    if found is None:
        pytest.skip("needs the development cluster (make test-cluster)")
    return found


@pytest.fixture
def discussions(each_store):
    """DISCUSSIONS discussions of PER_DISCUSSION comments each in the store under test."""
    rng, start = random.Random(32), datetime(2026, 1, 1, tzinfo=timezone.utc)
    ids = [ObjectId() for _ in range(DISCUSSIONS)]
    for discussion_id in ids:
        insert_discussion(get_store(each_store), discussion_id=discussion_id, count=PER_DISCUSSION, rng=rng,
                          start=start)
    return ids


def task_counts(db, commands, call) -> list[int]:
    """Citus' task count of each query `call` sends to a sharded collection (the most
    shards any step of it reads), from the server's explain of that very command."""
    commands.reset()
    call()
    sharded = set(SHARDED.values()) | {"comment_claims"}
    sent = [c for c in commands.sent if next(iter(c)) in {"find", "aggregate", "count"}
            and c[next(iter(c))] in sharded]
    assert sent, "no query reached a sharded collection"
    counts = []
    for command in sent:
        plan = db.command("explain", {k: v for k, v in command.items() if k not in NOT_SENT},
                          verbosity="queryPlanner")["queryPlanner"]
        found = _every(plan, "Task Count")
        assert found, f"no distributed job in the plan of {command}"
        counts.append(int(max(found)))
    return counts


def _every(node, name) -> list:
    """Every value of `name` in a plan tree: a query Citus plans in steps (a subplan
    that fans out, then a step on the coordinator) has a task count per step."""
    found, stack = [], [node]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if name in node:
                found.append(node[name])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def per_worker(cluster, db_name: str, collection: str) -> dict[int, int]:
    """How many documents of the collection each worker's shards hold (Citus' own count)."""
    table = cluster.sql("coordinator", (
        "SELECT 'documentdb_data.documents_' || collection_id FROM documentdb_api_catalog.collections "
        f"WHERE database_name = '{db_name}' AND collection_name = '{collection}'"), fetch=True).strip()
    rows = cluster.sql("coordinator", (
        f"SELECT s.nodeport, sum(r.result::bigint) FROM run_command_on_shards('{table}', 'SELECT count(*) FROM %s') r "
        "JOIN citus_shards s ON s.shardid = r.shardid GROUP BY 1"), fetch=True)
    return {int(port): int(n) for port, n in (line.split("|") for line in rows.split())}


def test_the_session_s_store_collections_are_sharded_on_their_keys(cluster, mongo_db, each_store):
    for key in get_store(each_store).shard_keys:
        found = cluster.sql("coordinator", (
            "SELECT documentdb_core.bson_to_json_string(shard_key) FROM documentdb_api_catalog.collections "
            f"WHERE database_name = '{mongo_db.name}' AND collection_name = '{key.collection}'"), fetch=True)
        assert found.strip().replace(" ", "") == str(key.key).replace("'", '"').replace(" ", "")


def test_a_discussion_s_page_is_served_by_one_shard(mongo_db, commands, discussions, each_store):
    """Every query of a reader's page names the discussion: one task on one worker."""
    store = get_store(each_store)
    for order in ("threaded", "chronological", "newest"):
        counts = task_counts(mongo_db, commands,
                             lambda: store.find_page(discussion_id=discussions[3], order=order, limit=51))
        assert counts == [1] * len(counts), (order, counts)


def test_the_moderation_queue_fans_out_to_every_shard(mongo_db, commands, discussions, each_store, cluster):
    """The queue spans discussions: its query is a task on each of the collection's shards."""
    counts = task_counts(mongo_db, commands, lambda: moderation.queue_page(
        tab="recent", filters=QueueFilter(), skip=0, limit=20))
    assert min(counts) > 1, counts
    shards = int(cluster.sql("coordinator", "SELECT count(*) FROM citus_shards WHERE table_name::text = "
                             f"'documentdb_data.documents_' || (SELECT collection_id FROM documentdb_api_catalog."
                             f"collections WHERE database_name = '{mongo_db.name}' AND collection_name = "
                             f"'{SHARDED[each_store]}')", fetch=True))
    assert max(counts) == shards


def test_counts_are_right_across_shards(mongo_db, discussions, each_store, cluster):
    """The discussions landed on both workers, and the queue counts and each page add up."""
    spread = per_worker(cluster, mongo_db.name, SHARDED[each_store])
    assert len([n for n in spread.values() if n]) == 2, spread
    assert moderation.tab_counts(filters=QueueFilter())["recent"] == DISCUSSIONS * PER_DISCUSSION
    store = get_store(each_store)
    for discussion_id in discussions[:4]:
        assert len(store.find_page(discussion_id=discussion_id, order="chronological", limit=None)) == PER_DISCUSSION


@pytest.mark.parametrize("each_store", ["documents"], indirect=True)
def test_shard_collections_shards_a_new_database_once_and_says_so(settings, each_store, cluster):
    """...and keeps the database's unsharded collections on the coordinator, so that a
    lost worker holds none of them (docs/dev-cluster.md)."""
    settings.MONGODB_NAME = f"slugline_test_{uuid.uuid4().hex[:12]}"
    try:
        first, again = StringIO(), StringIO()
        call_command("shard_collections", stdout=first)
        primary = primary_node(cluster, settings.MONGODB_NAME)
        call_command("shard_collections", stdout=again)
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)
    *sharded, moved = first.getvalue().splitlines()
    assert sharded == [
        f'Sharded {settings.MONGODB_NAME}.comments on {{"discussion_id": "hashed"}}.',
        f'Sharded {settings.MONGODB_NAME}.discussion_state on {{"_id": "hashed"}}.',
        f'Sharded {settings.MONGODB_NAME}.comment_branch_rules on {{"discussion_id": "hashed"}}.',
        f'Sharded {settings.MONGODB_NAME}.media.chunks on {{"files_id": "hashed"}}.']
    assert re.fullmatch(rf"Moved {settings.MONGODB_NAME}'s unsharded collections from worker\d to the "
                        r"coordinator\.", moved), moved
    assert primary == "coordinator"
    assert again.getvalue().splitlines() == [
        f'{settings.MONGODB_NAME}.comments was already sharded on {{"discussion_id": "hashed"}}; left as it is.',
        f'{settings.MONGODB_NAME}.discussion_state was already sharded on {{"_id": "hashed"}}; left as it is.',
        f'{settings.MONGODB_NAME}.comment_branch_rules was already sharded on {{"discussion_id": "hashed"}}; left as it is.',
        f'{settings.MONGODB_NAME}.media.chunks was already sharded on {{"files_id": "hashed"}}; left as it is.']


@pytest.mark.parametrize("each_store", ["documents"], indirect=True)
def test_a_migration_shards_the_new_store_s_collections(settings, each_store, cluster):
    """comments_migrate --to embedded shards `discussions` before copying into it."""
    settings.MONGODB_NAME = f"slugline_test_{uuid.uuid4().hex[:12]}"
    settings.COMMENTS_STORE_RECHECK_SECONDS = 0
    try:
        insert_discussion(get_store("documents"), discussion_id=ObjectId(), count=5, rng=random.Random(1),
                          start=datetime(2026, 1, 1, tzinfo=timezone.utc))
        out = StringIO()
        call_command("comments_migrate", "--to", "embedded", "--no-progress", stdout=out, stderr=StringIO())
        assert out.getvalue().splitlines()[0] == f'Sharded {settings.MONGODB_NAME}.discussions on {{"_id": "hashed"}}.'
        assert sum(per_worker(cluster, settings.MONGODB_NAME, "discussions").values()) == 1
    finally:
        store_switch.forget()
        mongo.get_client().drop_database(settings.MONGODB_NAME)
