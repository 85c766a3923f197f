import signal
import threading
from argparse import ArgumentParser
from datetime import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from pymongo.errors import PyMongoError

from webhooks import sender

DONE = "Webhooks: {delivered} delivered, {failed} failed (retried later, or given up after a day)."
DB_DOWN = "{at:%H:%M:%S} send_webhooks: the database did not answer ({error}); trying again in {every:g} s."
BAD_EVERY = "--every takes a number of seconds above 0."
# Deliveries one round takes at most before it reports.
ROUND = 100


class Command(BaseCommand):
    help = (
        "POST the webhook deliveries that are due, signed, then exit; safe to run from cron and "
        "several at once. With --loop, keep doing it every --every seconds until SIGTERM or Ctrl-C."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--loop", action="store_true", help="keep delivering what falls due")
        parser.add_argument("--every", type=float, default=2.0,
                            help="seconds between rounds with --loop (default 2)")

    def handle(self, *args: Any, loop: bool, every: float, **options: Any) -> None:
        if not loop:
            done = sender.deliver_due(limit=ROUND)
            self.stdout.write(DONE.format(delivered=done.delivered, failed=done.failed))
            return
        if every <= 0:
            raise CommandError(BAD_EVERY)
        stop = threading.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.set())
        while not stop.is_set():
            try:
                done = sender.deliver_due(limit=ROUND)
            except PyMongoError as exc:
                error = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
                self.stderr.write(DB_DOWN.format(at=datetime.now(), error=error, every=every))
                done = sender.Round()
            if done.delivered or done.failed:
                self.stdout.write(f"{datetime.now():%H:%M:%S} " + DONE.format(delivered=done.delivered,
                                                                              failed=done.failed))
            if done.delivered + done.failed < ROUND:
                stop.wait(every)  # Otherwise more is due: no pause.
