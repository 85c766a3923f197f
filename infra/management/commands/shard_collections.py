from argparse import ArgumentParser
from typing import Any

from bson import json_util
from django.core.management.base import BaseCommand, CommandError

from infra import conf, mongo, sharding


class Command(BaseCommand):
    help = (
        "Shard the collections the apps register (those of the comment store in use) with the shard "
        "keys of infra/sharding.py: on a mongos with shardCollection, on the development cluster "
        "(make devdb-cluster) with DocumentDB's SQL function on its coordinator. Refuses any other "
        "server. Collections already sharded on their key are left as they are: safe to rerun."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--dry-run", action="store_true",
                            help="print a mongos's commands without sending them")

    def handle(self, *args: Any, dry_run: bool, **options: Any) -> None:
        try:
            where: dict[str, Any] = {"db_name": conf.db_name(), "keys": sharding.shard_keys()}
            if dry_run:
                for command in sharding.shard_commands(**where):
                    self.stdout.write("Would send " + json_util.dumps(command))
                return
            done = sharding.shard_collections(client=mongo.get_client(), **where)
        except sharding.ShardingError as exc:
            raise CommandError(str(exc)) from exc
        for line in done:
            self.stdout.write(line)
