import threading
from datetime import datetime

from django.core.management.base import BaseCommand, CommandError
from pymongo.errors import PyMongoError

from cms import posts
from comments import api as comments_api
from infra.stopping import stop_on_signals

PUBLISHED = "Published {count} scheduled post{s}."
UNREACHABLE = "{at:%H:%M:%S} publish_scheduled: the database did not answer ({error}); trying again in {every:g} s."
FINISHED = "Finished {count} moderation action(s) or discussion(s) left unsettled that had been cut short."
ERASED = "Finished {count} erasure(s) of a member's data."
BAD_EVERY = "--every takes a number of seconds above 0."


class Command(BaseCommand):
    help = (
        "Publish the scheduled posts whose time has come. Safe to run from cron, and again. "
        "With --loop, keep doing it every --every seconds until SIGTERM or Ctrl-C, and finish "
        "any moderation action or comment change whose settling was cut short (as "
        "repair_summaries --pending-only does) and the "
        "erasures of members' data under way (as finish_erasures does)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--loop", action="store_true",
                            help="keep publishing what falls due (a database outage is retried)")
        parser.add_argument("--every", type=float, default=15.0,
                            help="seconds between rounds with --loop (default 15)")

    def handle(self, *args, loop: bool, every: float, **options):
        if not loop:
            self.stdout.write(_published(posts.publish_due()))
            return
        if every <= 0:
            raise CommandError(BAD_EVERY)
        self._loop(every)

    def _loop(self, every: float) -> None:
        """Publish, sleep, repeat; says only when it published something or the
        database failed. SIGTERM and SIGINT end it after the round in progress."""
        with stop_on_signals() as stop:
            self._rounds(stop, every)

    def _rounds(self, stop: threading.Event, every: float) -> None:
        while not stop.is_set():
            try:
                count = posts.publish_due()
                finished = comments_api.finish_pending_changes()
                # Erasures a request began, a round's worth at most (the rest next round).
                erased = comments_api.continue_erasures(seconds=every)
            except PyMongoError as exc:
                self.stderr.write(UNREACHABLE.format(at=datetime.now(), error=_first_line(exc), every=every))
            else:
                if count:
                    self.stdout.write(f"{datetime.now():%H:%M:%S} {_published(count)}")
                if finished:
                    self.stdout.write(f"{datetime.now():%H:%M:%S} {FINISHED.format(count=finished)}")
                if erased:
                    self.stdout.write(f"{datetime.now():%H:%M:%S} {ERASED.format(count=erased)}")
            stop.wait(every)


def _first_line(exc: Exception) -> str:
    """pymongo's outage messages describe the whole topology; the first line says it."""
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__


def _published(count: int) -> str:
    return PUBLISHED.format(count=count, s="s" if count != 1 else "")
