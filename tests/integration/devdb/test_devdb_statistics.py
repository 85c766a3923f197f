"""devdb.statistics.analyze: the planner's statistics of one collection made current on
the dev database (and the cluster, whose coordinator analyzes every shard), nothing
done on a server that is neither."""

from __future__ import annotations

import pytest

from devdb.cluster import find_cluster
from devdb.cluster_ops import table_of
from devdb.server import DevDB
from devdb.statistics import analyze
from infra import mongo


def _run(sql: str) -> str:
    cluster = find_cluster(mongo.get_client().address)
    return cluster.sql("coordinator", sql, fetch=True) if cluster else DevDB().sql(sql)


def _analyzed(database: str, collection: str) -> int:
    """How many times the collection's table was analyzed (by hand; autovacuum's apart)."""
    table = _run(table_of(database, collection)).strip()
    return int(_run(f"SELECT analyze_count FROM pg_stat_user_tables WHERE relid = '{table}'::regclass").strip())


def test_the_collections_table_is_analyzed_on_the_session_server(mongo_db):
    recorded = DevDB().recorded()
    if find_cluster(mongo_db.client.address) is None and (recorded is None or recorded.port != mongo_db.client.address[1]):
        pytest.skip("the session's server is neither the dev database nor the dev cluster")
    mongo_db.statistics_probe.insert_many([{"n": n} for n in range(50)])
    before = _analyzed(mongo_db.name, "statistics_probe")
    assert analyze(mongo_db.client.address, mongo_db.name, "statistics_probe")
    assert _analyzed(mongo_db.name, "statistics_probe") == before + 1
    assert analyze(mongo_db.client.address, mongo_db.name, "no_such_collection")  # nothing to analyze


def test_another_server_is_left_alone(mongo_db):
    assert not analyze(("127.0.0.1", 9), mongo_db.name, "statistics_probe")
    assert not analyze(None, mongo_db.name, "statistics_probe")
