from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from infra import conf, mongo, sharding

ON_MONGODB = (
    "{address} is a mongos: MongoDB's balancer moves chunks onto a new shard by itself once it "
    "is added (sh.addShard() on a mongos), a chunk at a time while the site serves, and each "
    "chunk whole, so a discussion's comments stay on one shard. Nothing was sent. Watch it "
    "with sh.status() and sh.balancerStatus(); see docs/deploy.md, \"Adding capacity\"."
)
NOT_SHARDED = (
    "The server at {address} is neither a mongos nor this checkout's development cluster "
    "(make devdb-cluster): there are no shards to move. Nothing was sent."
)


class Command(BaseCommand):
    help = (
        "Spread the shards of this site's sharded collections evenly over the workers of the "
        "development cluster (after `python -m devdb cluster add-worker`) with Citus' "
        "rebalancer, while the site serves, printing how the discussions spread over the "
        "workers before and after; each app holds its writes while the shards move and counts "
        "again what it derives from what it stores after (a write that reaches a shard while it "
        "moves may be lost on DocumentDB). On a mongos it sends nothing and says what MongoDB's "
        "balancer does instead."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--strategy", choices=("by_shard_count", "by_disk_size"), default="by_shard_count",
                            help="Citus' rebalance strategy (default by_shard_count: as many hash ranges "
                                 "on each worker)")
        parser.add_argument("--mode", choices=("block_writes", "force_logical"), default="block_writes",
                            help="Citus' shard transfer mode (default block_writes: Citus holds back its own writes "
                                 "to a shard while it is copied, not DocumentDB's; force_logical copies it "
                                 "by logical replication)")

    def handle(self, *args: Any, strategy: str, mode: str, **options: Any) -> None:
        client = mongo.get_client()
        host, port = client.address or ("?", "?")
        engine = sharding.engine_for(client)
        if isinstance(engine, sharding.Mongos):
            self.stdout.write(ON_MONGODB.format(address=f"{host}:{port}"))
            return
        if not isinstance(engine, sharding.DevCluster):
            raise CommandError(NOT_SHARDED.format(address=f"{host}:{port}"))
        from devdb.build import DevDBError
        from devdb.cluster_ops import rebalance, spread

        db_name = conf.db_name()
        keys = sharding.shard_keys()
        if not keys:
            raise CommandError(sharding.NOTHING_TO_SHARD)
        collection = keys[0].collection
        try:
            self._spread("before", spread(engine.cluster, db_name, collection), collection)
            try:
                for line in sharding.before_moves():
                    self.stdout.write(line)
                for line in rebalance(engine.cluster, db_name, strategy, mode):
                    self.stdout.write(line)
            finally:
                for line in sharding.after_moves():
                    self.stdout.write(line)
            self._spread("after", spread(engine.cluster, db_name, collection), collection)
        except DevDBError as exc:
            raise CommandError(str(exc)) from exc

    def _spread(self, when: str, where: dict[str, tuple[int, int]], collection: str) -> None:
        total = sum(keys for _, keys in where.values()) or 1
        self.stdout.write(f"Discussions over the workers {when} ({collection}):")
        for worker, (documents, keys) in where.items():
            self.stdout.write(f"  {worker}: {keys} discussions ({keys / total:.0%}), {documents} documents")
