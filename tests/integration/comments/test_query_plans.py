"""The documents store's hot reader queries are served from their indexes: the
server's own `explain` of each query the store sends shows an index of the
discussion and no scan of the whole collection. Runs against the real server
(MongoDB's plan, or PostgreSQL's plan under FerretDB v2/DocumentDB)."""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest
from bson import ObjectId

from comments.benchmark import insert_discussion
from comments.records import READERS
from comments.stores import get_store

DOCUMENTS = get_store("documents")
pytestmark = pytest.mark.usefixtures("documents_store")

DISCUSSIONS = 40
PER_DISCUSSION = 150
COLLECTION_SCANS = {"COLLSCAN", "Seq Scan"}
# The index each view's order must be served by (comments/stores/documents.py INDEXES).
ORDER_INDEXES = {
    "threaded": "discussion_full_slug",
    "chronological": "discussion_posted",
    "newest": "discussion_thread_newest",
}


@pytest.fixture
def documents_store(settings, mongo_db):
    settings.COMMENTS_STORE = "documents"
    DOCUMENTS.ensure_indexes(mongo_db)


@pytest.fixture
def busy_collection(mongo_db):
    """Many discussions in one `comments` collection; the id of one of them."""
    rng = random.Random(7)
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    ids = [ObjectId() for _ in range(DISCUSSIONS)]
    for discussion_id in ids:
        insert_discussion(DOCUMENTS, discussion_id=discussion_id, count=PER_DISCUSSION, rng=rng, start=start)
    return ids[DISCUSSIONS // 2]


def _sent(commands, call) -> list[dict]:
    """The queries `call` sends (conftest's command counter keeps every command)."""
    commands.reset()
    call()
    return [command for command in commands.sent if next(iter(command)) in {"find", "aggregate", "count"}]


def _plan_nodes(plan) -> list[dict]:
    """Every node of an explain's plan tree: MongoDB's stages or PostgreSQL's nodes."""
    nodes, stack = [], [plan]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            nodes.append(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return nodes


def _explain(db, command: dict) -> list[dict]:
    command = {key: value for key, value in command.items()
               if key not in {"lsid", "$db", "$clusterTime", "maxTimeMS", "$readPreference", "txnNumber"}}
    return _plan_nodes(db.command("explain", command, verbosity="queryPlanner")["queryPlanner"])


# On a sharded collection of the development cluster (DocumentDB on Citus) every
# shard's `_id_` index leads with the hashed shard key's value: reached by that value,
# it is the discussion's own index (make test-cluster).
SHARD_KEY_INDEX = "the shard key's value"


def _indexes_used(nodes: list[dict]) -> set[str]:
    return {_index_name(node) for node in nodes} - {None}


def _index_name(node: dict) -> str | None:
    name = node.get("indexName") or node.get("Index Name")
    if name == "_id_" and "shard_key_value =" in str(node.get("Index Cond", "")):
        return SHARD_KEY_INDEX
    return name


def _scans(nodes: list[dict]) -> set[str]:
    return {node.get("stage") or node.get("Node Type") for node in nodes} & COLLECTION_SCANS


def _assert_indexed(db, commands, call, *expected: str) -> None:
    sent = _sent(commands, call)
    assert sent, "the store sent no query"
    for command in sent:
        nodes = _explain(db, command)
        used = _indexes_used(nodes)
        assert not _scans(nodes), f"{command} scans the collection: {nodes[:1]}"
        assert used & set(expected), f"{command} used {used or 'no index'}, not {expected}"


@pytest.mark.parametrize("order", ["threaded", "chronological", "newest"])
def test_the_first_page_of_each_view_uses_an_index_of_the_discussion(mongo_db, commands, busy_collection, order):
    """Page 1 of the threaded, chronological and newest views is found through the
    index of that order, not by scanning every comment of every discussion."""
    _assert_indexed(
        mongo_db, commands,
        lambda: DOCUMENTS.find_page(discussion_id=busy_collection, order=order, limit=51),
        ORDER_INDEXES[order],
    )


@pytest.mark.parametrize("order", ["threaded", "chronological", "newest"])
def test_a_cursor_page_uses_an_index_of_the_discussion(mongo_db, commands, busy_collection, order):
    """A page reached by cursor (the key of the previous page's last comment) is
    found through the index of its order."""
    first = DOCUMENTS.find_page(discussion_id=busy_collection, order=order, limit=51)
    key = first[49].key(order)
    _assert_indexed(
        mongo_db, commands,
        lambda: DOCUMENTS.find_page(discussion_id=busy_collection, order=order, limit=51, after=key),
        ORDER_INDEXES[order],
    )


def test_a_permalink_uses_the_slug_index(mongo_db, commands, busy_collection):
    """A permalink finds its comment by the unique `{discussion_id, slug}` index."""
    some = DOCUMENTS.find_page(discussion_id=busy_collection, order="threaded", limit=80)[-1]
    _assert_indexed(mongo_db, commands, lambda: DOCUMENTS.find_by_slug(discussion_id=busy_collection, slug=some.slug),
                    "discussion_slug")


def test_the_count_uses_an_index_of_the_discussion(mongo_db, commands, busy_collection):
    """The count of a discussion's listing (what paging needs) reads its index."""
    _assert_indexed(
        mongo_db, commands,
        lambda: DOCUMENTS.tally_listing(discussion_id=busy_collection, viewer=READERS),
        "discussion_full_slug", "discussion_posted", "discussion_thread_newest", "discussion_slug",
        SHARD_KEY_INDEX,
    )


def test_the_latest_comments_read_the_discussion_s_own_index(mongo_db, commands, busy_collection):
    """A post's latest comments (every write refreshes them) come from the
    discussion's `{discussion_id, posted, _id}` index, not the collection-wide one."""
    _assert_indexed(mongo_db, commands, lambda: DOCUMENTS.find_latest(discussion_id=busy_collection, limit=3),
                    "discussion_posted")
