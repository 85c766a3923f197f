import threading
from argparse import ArgumentParser
from datetime import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from pymongo.errors import PyMongoError

from comments.notifications import sender
from infra.stopping import stop_on_signals

SENT = "Sent {sent} notification {mails}; {dropped} no longer needed."
NOT_SENT = "{at:%H:%M:%S} send_notifications: the mail server refused or did not answer; trying again at {retry:%H:%M:%S}."
UNREACHABLE = "{at:%H:%M:%S} send_notifications: the database did not answer ({error}); trying again in {every:g} s."
BAD_EVERY = "--every takes a number of seconds above 0."


def sent_line(*, sent: int, dropped: int) -> str:
    """SENT filled in, "mail" or "mails" as the count asks."""
    return SENT.format(sent=sent, mails="mail" if sent == 1 else "mails", dropped=dropped)


class Command(BaseCommand):
    help = (
        "Deliver the notification mail that is due from the outbox, then exit. Safe to run "
        "from cron, and several at once. With --loop, keep doing it every --every seconds "
        "until SIGTERM or Ctrl-C."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--loop", action="store_true", help="keep delivering what falls due")
        parser.add_argument("--every", type=float, default=5.0,
                            help="seconds between rounds with --loop (default 5)")

    def handle(self, *args: Any, loop: bool, every: float, **options: Any) -> None:
        if not loop:
            delivery = sender.deliver_due()
            self.stdout.write(sent_line(sent=delivery.sent, dropped=delivery.dropped))
            if delivery.failed and delivery.retry_at:
                self.stderr.write(NOT_SENT.format(at=datetime.now(), retry=delivery.retry_at.astimezone()))
            return
        if every <= 0:
            raise CommandError(BAD_EVERY)
        self._loop(every)

    def _loop(self, every: float) -> None:
        """Deliver, sleep, repeat; says only when it sent something or something failed.
        SIGTERM and SIGINT end it after the mail in progress."""
        with stop_on_signals() as stop:
            self._rounds(stop, every)

    def _rounds(self, stop: threading.Event, every: float) -> None:
        while not stop.is_set():
            try:
                delivery = sender.deliver_due(limit=100)
            except PyMongoError as exc:
                error = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
                self.stderr.write(UNREACHABLE.format(at=datetime.now(), error=error, every=every))
            else:
                if delivery.sent:
                    self.stdout.write(f"{datetime.now():%H:%M:%S} " + sent_line(sent=delivery.sent,
                                                                                 dropped=delivery.dropped))
                if delivery.failed and delivery.retry_at:
                    self.stderr.write(NOT_SENT.format(at=datetime.now(), retry=delivery.retry_at.astimezone()))
                if delivery.sent + delivery.dropped >= 100:
                    continue  # More is due: no pause.
            stop.wait(every)
