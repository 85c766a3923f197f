from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand

from comments.erasure import jobs, work

FINISHED = "Finished {done} erasure(s); {left} still under way."


class Command(BaseCommand):
    help = ("Run the erasures of members' data that are not done (started by a request, or "
            "cut short) until each is done or --seconds have passed. Safe to run again, and "
            "beside the background worker (publish_scheduled --loop does the same each round).")

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--seconds", type=float, default=3600.0,
                            help="stop after about this long (default 3600)")

    def handle(self, *args: Any, seconds: float, **options: Any) -> None:
        done = work.continue_all(seconds=seconds)
        self.stdout.write(FINISHED.format(done=done, left=len(jobs.unfinished())))
