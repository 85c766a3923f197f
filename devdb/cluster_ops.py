"""What an operator does to a running development cluster (devdb/cluster.py), beyond
starting and stopping it: ask each node whether it answers, keep a database's
unsharded collections on the coordinator, add a worker, see how a database's
discussions spread over the workers, and move shards onto a new worker with Citus'
rebalancer (docs/dev-cluster.md, "When a worker is lost" and "Adding a worker").

Every function runs SQL on the coordinator as the cluster's owner. No Django here.
"""

from __future__ import annotations

import json

from devdb.build import DevDBError, Progress
from devdb.cluster import Cluster
from devdb.processes import free_port

HOST = "'127.0.0.1'"
# Citus moves a shard (citus_move_shard_placement, the rebalancer) by connecting as its
# table's owner: DocumentDB's tables belong to this role, made without LOGIN.
# (Clusters made since carry it; an older one gets it here, once.)
OWNER_LOGIN = ("DO $$ BEGIN IF NOT (SELECT rolcanlogin FROM pg_roles WHERE rolname = 'documentdb_admin_role') "
               "THEN ALTER ROLE documentdb_admin_role LOGIN; END IF; END $$")
# Two sessions placing their databases at once (the test processes of make
# test-cluster) would both flip the coordinator's shouldhaveshards: one at a time.
PLACEMENT_LOCK = 4040

__all__ = ["add_worker", "keep_primary_on_coordinator", "node_health", "primary_node", "rebalance", "spread", "table_of"]


def literal(text: str) -> str:
    """A PostgreSQL string literal (standard_conforming_strings is on by default)."""
    if "\x00" in text:
        raise DevDBError("a database or collection name holds a NUL character")
    return "'" + text.replace("'", "''") + "'"


def table_of(db_name: str, collection: str) -> str:
    """SQL selecting the name of the table DocumentDB keeps `db_name.collection` in
    (no row for a collection it does not know)."""
    return ("SELECT 'documentdb_data.documents_' || collection_id FROM documentdb_api_catalog.collections "
            f"WHERE database_name = {literal(db_name)} AND collection_name = {literal(collection)}")


def node_health(cluster: Cluster, timeout_s: float = 1.0) -> dict[str, str]:
    """Each node: "ok" if it answers, "unavailable" if not, asked of the coordinator
    (Citus' run_command_on_workers, each connection bounded), all within about
    3 × `timeout_s`; every node unavailable when the coordinator does not answer."""
    ms = max(100, int(timeout_s * 1000))
    states = {node: "unavailable" for node in cluster.nodes()}
    try:
        found = cluster.sql("coordinator", (
            f"SET citus.node_connection_timeout = {ms}; SET statement_timeout = {2 * ms}; "
            "SELECT nodeport, success FROM run_command_on_workers('SELECT 1')"), fetch=True, timeout=3 * ms / 1000)
    except DevDBError:
        return states
    states["coordinator"] = "ok"
    ports = cluster.ports()
    by_port = {ports.of(node): node for node in cluster.nodes()}
    for line in found.split():
        port, success = line.split("|")
        if int(port) in by_port:
            states[by_port[int(port)]] = "ok" if success == "t" else "unavailable"
    return states


def _collection_shards(cluster: Cluster, db_name: str, where: str) -> list[tuple[str, int, int]]:
    """(collection, shard id, node port) of each shard of `db_name`'s collections matching `where`."""
    rows = cluster.sql("coordinator", (
        "SELECT c.collection_name, s.shardid, s.nodeport FROM documentdb_api_catalog.collections c "
        "JOIN citus_shards s ON s.table_name = ('documentdb_data.documents_' || c.collection_id)::regclass "
        f"WHERE c.database_name = {literal(db_name)} AND {where} ORDER BY 1, 2"), fetch=True)
    return [(name, int(shard), int(port)) for name, shard, port in (line.split("|") for line in rows.splitlines())]


def primary_node(cluster: Cluster, db_name: str) -> str | None:
    """The node holding `db_name`'s unsharded collections (DocumentDB keeps them
    together, colocated with the database's `system.dbSentinel`: its primary shard, in
    MongoDB's words); None for a database it does not know."""
    found = _collection_shards(cluster, db_name, "c.shard_key IS NULL")
    if not found:
        return None
    ports = cluster.ports()
    return next((node for node in cluster.nodes() if ports.of(node) == found[0][2]), None)


def keep_primary_on_coordinator(cluster: Cluster, db_name: str) -> str | None:
    """Move `db_name`'s unsharded collections onto the coordinator (what MongoDB's
    `movePrimary` does between shards), so that losing a worker costs only the shards
    of the sharded collections on it: the worker that held them would take every
    post, vote and rate limit with it. The node they were on, or None if they were
    on the coordinator already (or the database is unknown)."""
    found = _collection_shards(cluster, db_name, "c.shard_key IS NULL")
    node = primary_node(cluster, db_name)
    if node in (None, "coordinator"):
        return None
    ports = cluster.ports()
    # Citus moves shards only onto a node that should have them: the coordinator
    # takes them for the move (one transaction), so no sharded collection's shards
    # land there. Moving one shard of the colocated group moves them all. The move
    # logs in as the owner, so its LOGIN must be committed before (a cluster made
    # before clusters carried it).
    cluster.sql("coordinator", f"SELECT pg_advisory_xact_lock({PLACEMENT_LOCK}); {OWNER_LOGIN}")
    cluster.sql("coordinator", f"""
        SELECT pg_advisory_xact_lock({PLACEMENT_LOCK});
        SELECT citus_set_node_property({HOST}, {ports.coordinator}, 'shouldhaveshards', true);
        SELECT citus_move_shard_placement({found[0][1]}, {HOST}, {ports.of(node)}, {HOST},
                                          {ports.coordinator}, 'block_writes');
        SELECT citus_set_node_property({HOST}, {ports.coordinator}, 'shouldhaveshards', false);
    """)
    return node


def add_worker(cluster: Cluster, progress: Progress | None = None) -> str:
    """A new worker (worker3, then worker4, ...) made, started and added to the running
    cluster, on a free port kept in the cluster's record; its name. It holds no shard
    until shards are moved onto it (`rebalance`)."""
    progress = progress or Progress()
    if cluster.running() is None:
        raise DevDBError("the development cluster is not running; start it first (make devdb-cluster).")
    record = json.loads(cluster.record.read_text())
    worker = f"worker{len(cluster.workers()) + 1}"
    ports = cluster.ports()
    taken = {ports.of(node) for node in cluster.nodes()} | {ports.mongodb, ports.debug}
    port = free_port(taken)
    record["nodes"][worker] = {"port": port, "socket": str(cluster.socket_dir(worker))}
    cluster.record.write_text(json.dumps(record, indent=1))
    try:
        cluster.init_node(worker, cluster.ports(), progress)
        cluster.join(worker, cluster.ports(), progress)
    except DevDBError:
        del record["nodes"][worker]
        cluster.record.write_text(json.dumps(record, indent=1))
        raise
    progress.say(f"{worker} added on port {port}; it holds no shard until they are moved (rebalance_shards)")
    return worker


def spread(cluster: Cluster, db_name: str, collection: str) -> dict[str, tuple[int, int]]:
    """Per worker (every worker, those holding none too): (documents, distinct
    shard-key values, that is discussions) of the collection, from Citus' counts per shard."""
    table = cluster.sql("coordinator", table_of(db_name, collection), fetch=True).strip()
    if not table:
        raise DevDBError(f"{db_name}.{collection} does not exist on the cluster")
    rows = cluster.sql("coordinator", (
        "SELECT s.nodeport, sum(split_part(r.result, ',', 1)::bigint), sum(split_part(r.result, ',', 2)::bigint) "
        f"FROM run_command_on_shards('{table}', "
        "'SELECT count(*) || '','' || count(DISTINCT shard_key_value) FROM %s') r "
        "JOIN citus_shards s ON s.shardid = r.shardid GROUP BY 1 ORDER BY 1"), fetch=True)
    by_port = {int(port): (int(docs), int(keys)) for port, docs, keys in (line.split("|") for line in rows.split())}
    ports = cluster.ports()
    return {node: by_port.get(ports.of(node), (0, 0)) for node in cluster.workers()}


def rebalance(cluster: Cluster, db_name: str, strategy: str = "by_shard_count",
              mode: str = "block_writes") -> list[str]:
    """Move shards of `db_name`'s sharded collections so each worker holds as many
    (Citus' `rebalance_table_shards`, one collection's shards at a time; each shard
    whole, so a discussion's documents stay together and its reads on one shard).
    `mode` is Citus' shard transfer mode: block_writes (writes to the shard being
    copied wait until it is copied; reads go on) or force_logical (logical
    replication: writes go on during the copy and wait only for the switch-over; it
    needs wal_level = logical, and sets up a replication slot and subscription a move,
    several seconds each on this machine). `strategy` is Citus' rebalance strategy:
    by_shard_count (the same number of hash ranges on each worker, so discussions
    spread evenly on average) or by_disk_size (Citus' default: equal bytes, which on a
    small database moves every shard that holds anything and none that is empty).
    What it did: a line per collection."""
    if mode not in ("block_writes", "force_logical") or strategy not in ("by_shard_count", "by_disk_size"):
        raise DevDBError(f"no such transfer mode or strategy: {mode!r}, {strategy!r}")
    cluster.sql("coordinator", OWNER_LOGIN)
    done = []
    for name in sorted({name for name, _, _ in _collection_shards(cluster, db_name, "c.shard_key IS NOT NULL")}):
        before = _placements(cluster, db_name, name)
        cluster.sql("coordinator", (
            f"SELECT rebalance_table_shards(({table_of(db_name, name)})::regclass, "
            f"rebalance_strategy => {literal(strategy)}, shard_transfer_mode => '{mode}')"))
        after = _placements(cluster, db_name, name)
        moved = sum(1 for shard, port in after.items() if before.get(shard) != port)
        done.append(f"{db_name}.{name}: {moved} of {len(after)} shards moved ({mode})")
    return done


def _placements(cluster: Cluster, db_name: str, collection: str) -> dict[int, int]:
    return {shard: port for name, shard, port in
            _collection_shards(cluster, db_name, f"c.collection_name = {literal(collection)}")}
