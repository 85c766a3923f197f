"""Do writes survive a shard move on the development cluster (DocumentDB on Citus)?

On a cluster of its own (a temporary folder, ports of its own), 200 documents in a
collection sharded on `_id`; four threads `update_one(..., {"$inc": {"n": 1}})` them
without pause while a worker is added and `devdb.cluster_ops.rebalance` (what
`manage.py rebalance_shards` runs) moves shards onto it. Then it compares each
document's `n` with the increments acknowledged to the writers and prints what was
lost: the increments acknowledged and not stored. Nothing is lost is the answer a
database owes; DocumentDB sends its writes on a sharded collection as a SELECT of its
worker function on the shard, which Citus does not hold back during a move
(docs/dev-cluster.md).

    .venv/bin/python bench/shard_moves.py [--mode block_writes|force_logical]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pymongo import MongoClient  # noqa: E402

from bench.cluster_faults import own_cluster  # noqa: E402
from devdb.cluster_ops import add_worker, rebalance  # noqa: E402

DOCUMENTS = 200
WRITERS = 4


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=("block_writes", "force_logical"), default="block_writes")
    parser.add_argument("--seconds", type=float, default=2.0, help="writes before and after the move")
    args = parser.parse_args()
    cluster = own_cluster()
    try:
        server, _ = cluster.start()
        db = MongoClient(server.uri).moves
        db.c.insert_many([{"_id": i, "n": 0} for i in range(DOCUMENTS)])
        cluster.sql("coordinator", "SELECT documentdb_api.shard_collection('moves', 'c', "
                                   "'{\"_id\": \"hashed\"}'::documentdb_core.bson, false)")
        acknowledged: Counter = Counter()
        errors: Counter = Counter()
        stop = threading.Event()

        def write(start: int) -> None:
            collection, turn = MongoClient(server.uri).moves.c, start
            while not stop.is_set():
                key = turn % DOCUMENTS
                try:
                    if collection.update_one({"_id": key}, {"$inc": {"n": 1}}).modified_count == 1:
                        acknowledged[key] += 1
                except Exception as exc:  # noqa: BLE001 - counted and printed
                    errors[type(exc).__name__] += 1
                turn += 7

        writers = [threading.Thread(target=write, args=(n,)) for n in range(WRITERS)]
        for thread in writers:
            thread.start()
        time.sleep(args.seconds)
        add_worker(cluster)
        started = time.monotonic()
        moved = rebalance(cluster, "moves", mode=args.mode)
        took = time.monotonic() - started
        time.sleep(args.seconds)
        stop.set()
        for thread in writers:
            thread.join()
        stored = {doc["_id"]: doc["n"] for doc in db.c.find({})}
        lost = sum(max(0, acknowledged[key] - stored.get(key, 0)) for key in range(DOCUMENTS))
        extra = sum(max(0, stored.get(key, 0) - acknowledged[key]) for key in range(DOCUMENTS))
        short = sum(1 for key in range(DOCUMENTS) if stored.get(key, 0) < acknowledged[key])
        print(f"{'; '.join(moved)} in {took:.1f} s")
        print(f"increments acknowledged {sum(acknowledged.values())}, stored {sum(stored.values())}: "
              f"lost {lost} (on {short} documents), stored but not acknowledged {extra}, errors {dict(errors) or 0}")
        print("no write lost: met" if lost == 0 else "writes lost during the move: NOT met")
        return 0 if lost == 0 else 1
    finally:
        cluster.stop()
        shutil.rmtree(cluster.root.parent, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
