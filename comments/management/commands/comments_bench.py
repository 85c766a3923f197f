from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand

from comments import benchmark as bench
from comments.stores import STORES, get_store


class Command(BaseCommand):
    help = (
        "Build the same comments in each comment store (a scratch database, dropped after) "
        "and print one table: post a reply, threaded page 1, a deep page, a permalink, a "
        "sub-thread and the count, per store (median and p95 time, MongoDB commands, bytes read)."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--discussions", type=int, default=200)
        parser.add_argument("--max-comments", type=int, default=20_000, help="comments of the largest discussion")
        parser.add_argument("--tail", type=float, default=1.0,
                            help="the i-th discussion has about max-comments / i^tail comments")
        parser.add_argument("--repeat", type=int, default=15, help="runs of each operation")
        parser.add_argument("--deep-page", type=int, default=100, help="page number of the deep page")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--stores", default=",".join(STORES), help="comma-separated store names")

    def handle(self, *args: Any, **options: Any) -> None:
        names = [name for name in options["stores"].split(",") if name]
        for name in names:
            get_store(name)  # an unknown name fails here, before anything is built
        bench.main(
            discussions=options["discussions"], max_comments=options["max_comments"], tail=options["tail"],
            repeat=options["repeat"], deep_page=options["deep_page"], seed=options["seed"], stores=names,
            out=self.stdout.write,
        )
