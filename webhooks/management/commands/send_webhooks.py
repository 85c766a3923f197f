from argparse import ArgumentParser
from datetime import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from pymongo.errors import PyMongoError

from infra.stopping import stop_on_signals
from webhooks import sender

DONE = "Webhooks: {delivered} delivered, {failed} failed (retried later, or given up after a day)."
DB_DOWN = "{at:%H:%M:%S} send_webhooks: the database did not answer ({error}); trying again in {every:g} s."
BAD_EVERY = "--every takes a number of seconds above 0."
# Deliveries one round (without --loop) sends at most.
ROUND = 100


class Command(BaseCommand):
    help = (
        "POST the webhook deliveries that are due, signed, then exit; safe to run from cron and "
        "several at once. With --loop, keep sending what falls due (looking every --every seconds when "
        "nothing is) until SIGTERM or Ctrl-C."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--loop", action="store_true", help="keep delivering what falls due")
        parser.add_argument("--every", type=float, default=2.0,
                            help="with --loop, seconds between looks when nothing is due (default 2)")

    def handle(self, *args: Any, loop: bool, every: float, **options: Any) -> None:
        if not loop:
            done = sender.deliver_due(limit=ROUND)
            self.stdout.write(DONE.format(delivered=done.delivered, failed=done.failed))
            return
        if every <= 0:
            raise CommandError(BAD_EVERY)
        with stop_on_signals() as stop:
            while not stop.is_set():
                try:
                    sender.run(stop=stop, every=every, report=self.report)
                except PyMongoError as exc:
                    error = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
                    self.stderr.write(DB_DOWN.format(at=datetime.now(), error=error, every=every))
                    stop.wait(every)

    def report(self, done: sender.Round) -> None:
        self.stdout.write(f"{datetime.now():%H:%M:%S} "
                          + DONE.format(delivered=done.delivered, failed=done.failed))
