"""What the server's own `explain` says a query reads: the commands a call sends to a
collection, each one's plan (MongoDB's stages or PostgreSQL's nodes under FerretDB
v2/DocumentDB), the indexes it reads and whether it scans the whole collection. For
the tests that check which index serves which query (tests/integration/comments/
test_query_plans.py, tests/integration/cms/test_post_query_plans.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

COLLECTION_SCANS = {"COLLSCAN", "Seq Scan"}
QUERIES = {"find", "aggregate", "count", "distinct", "update"}
# On a sharded collection of the development cluster (DocumentDB on Citus) every
# shard's `_id_` index leads with the hashed shard key's value: reached by that value,
# it is the discussion's own index (make test-cluster).
SHARD_KEY_INDEX = "the shard key's value"


def sent_queries(commands, call: Callable[[], Any], collection: str) -> list[dict]:
    """The queries `call` sends to `collection` (tests/database.py's command counter
    keeps every command)."""
    commands.reset()
    call()
    return [command for command in commands.sent
            if next(iter(command)) in QUERIES and next(iter(command.values())) == collection]


def plan_nodes(plan) -> list[dict]:
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


def explain(db, command: dict) -> list[dict]:
    """The plan nodes of `command` as the server would run it."""
    command = {key: value for key, value in command.items()
               if key not in {"lsid", "$db", "$clusterTime", "maxTimeMS", "$readPreference", "txnNumber"}}
    # FerretDB 2.7 explains neither a distinct nor an update: the find of the same filter.
    if "distinct" in command:
        command = {"find": command["distinct"], "filter": command.get("query", {})}
    elif "update" in command:
        command = {"find": command["update"], "filter": command["updates"][0]["q"]}
    return plan_nodes(db.command("explain", command, verbosity="queryPlanner")["queryPlanner"])


def indexes_used(nodes: list[dict]) -> set[str]:
    return {_index_name(node) for node in nodes} - {None}


def _index_name(node: dict) -> str | None:
    name = node.get("indexName") or node.get("Index Name")
    if name == "_id_" and "shard_key_value =" in str(node.get("Index Cond", "")):
        return SHARD_KEY_INDEX
    return name


def collection_scans(nodes: list[dict]) -> set[str]:
    return {node.get("stage") or node.get("Node Type") for node in nodes} & COLLECTION_SCANS
