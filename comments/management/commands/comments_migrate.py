from argparse import ArgumentParser, ArgumentTypeError
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from comments.stores import STORES, get_store, store_switch
from comments.transfer import migration
from infra import conf as infra_conf, mongo, sharding

DONE = (
    "Moved {comments} comments of {discussions} discussions from {source} to {target} "
    "({copied} copied now, {resumed} verified by an earlier run, {recopied} copied again "
    "because they changed meanwhile); comment writes were paused for {paused:.1f} s. "
    "The site now uses {target}; set COMMENTS_STORE={target} "
    "in its environment so that a fresh database agrees. The {source} store's data was left in place."
)
LAST_PASS = (
    "Every discussion copied and verified. Last pass: comment writes are paused; waiting "
    "{seconds:g} s for every process to see that, then checking every discussion again..."
)

MAX_WORKERS = 32


def worker_count(value: str) -> int:
    """`--workers`: a whole number from 1 to MAX_WORKERS."""
    if not value.isdigit() or not 1 <= int(value) <= MAX_WORKERS:
        raise ArgumentTypeError(f"a whole number from 1 to {MAX_WORKERS}")
    return int(value)


class Command(BaseCommand):
    help = (
        "Copy every discussion's comments from the store in use to another comment store, "
        "verify counts and order per discussion, then switch the site to it. Resumable: "
        "run it again after an interruption."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--to", required=True, choices=sorted(STORES), help="the target store")
        parser.add_argument(
            "--from", dest="source", choices=sorted(STORES),
            help="the source store (default: the one in use)",
        )
        parser.add_argument(
            "--workers", type=worker_count, default=migration.WORKERS,
            help=f"discussions copied and checked at once, each in a thread (default {migration.WORKERS})",
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args: Any, to: str, source: str | None, workers: int, no_progress: bool,
               **options: Any) -> None:
        source = source or store_switch.in_use()
        if to != source:
            self._shard(to)
        total = len(get_store(source).discussion_ids())
        # The bar goes to the stream under Django's OutputWrapper, which would end each
        # of tqdm's carriage-return updates with a newline.
        bar = tqdm(total=total, unit="discussion", desc=f"{source} → {to}", file=self.stderr._out,
                   disable=no_progress)
        try:
            report = migration.migrate(target=to, source=source, progress=bar.update, workers=workers,
                                       last_pass=lambda: self._last_pass(bar))
        except migration.MigrationError as exc:
            raise CommandError(str(exc)) from exc
        finally:
            bar.close()
        self.stdout.write(DONE.format(
            comments=report.comments, discussions=report.discussions, source=report.source, target=report.target,
            copied=report.copied, resumed=report.resumed, recopied=report.recopied, paused=report.paused_seconds,
        ))

    def _shard(self, store: str) -> None:
        """On a server that shards (a mongos, the development cluster), the target
        store's collections are sharded before anything is copied into them."""
        try:
            done = sharding.shard_where_possible(client=mongo.get_client(), db_name=infra_conf.db_name(),
                                                 keys=list(get_store(store).shard_keys))
        except sharding.ShardingError as exc:
            raise CommandError(str(exc)) from exc
        for line in done:
            self.stdout.write(line)

    def _last_pass(self, bar: Any) -> None:
        bar.close()
        self.stderr.write(LAST_PASS.format(seconds=store_switch.grace_seconds()))
