from bson import json_util
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from infra import mongo, sharding


class Command(BaseCommand):
    help = (
        "Shard the collections the apps register (those of the comment store in use) on a mongos, "
        "with the shard keys of storage-patterns.md. Refuses any other server. Safe to rerun."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="print the commands without sending them")

    def handle(self, *args, dry_run: bool, **options):
        try:
            where = {"db_name": settings.MONGODB_NAME, "keys": sharding.shard_keys()}
            if dry_run:
                commands = sharding.shard_commands(**where)
            else:
                commands = sharding.shard_collections(client=mongo.get_client(), **where)
        except sharding.ShardingError as exc:
            raise CommandError(str(exc)) from exc
        for command in commands:
            self.stdout.write(("Would send " if dry_run else "Sent ") + json_util.dumps(command))
