"""Current planner statistics for one collection of the dev database or the dev cluster.

DocumentDB keeps a collection in a PostgreSQL table, and PostgreSQL plans a query
from the statistics autovacuum last took of it: whenever it got round to it, perhaps
while the table held other rows or none. A production table has been analyzed long
since; a test that checks which index a query is read from makes the statistics
current first, so the plan it checks is the one the collection's rows give, not one
the table's history gives. MongoDB's planner races its candidate plans and keeps no
such statistics: on any other server this does nothing.
"""

from __future__ import annotations

from pathlib import Path

from devdb.cluster import find_cluster
from devdb.cluster_ops import table_of
from devdb.server import DEFAULT_ROOT, DevDB

__all__ = ["analyze"]


def analyze(address: tuple[str, int] | None, database: str, collection: str, *,
            root: Path = DEFAULT_ROOT) -> bool:
    """ANALYZE the table of `database.collection` on the dev database or dev cluster
    whose FerretDB answers at `address` (host, port); whether it was one of them."""
    cluster = find_cluster(address)
    if cluster is not None:
        def run(sql: str) -> str:
            return cluster.sql("coordinator", sql, fetch=True)
    else:
        devdb = DevDB(root)
        server = devdb.recorded()
        if address is None or server is None or int(address[1]) != server.port:
            return False
        run = devdb.sql
    table = run(table_of(database, collection)).strip()
    if table:
        run(f"ANALYZE {table}")  # on the cluster, Citus analyzes every shard of it
    return True
