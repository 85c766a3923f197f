from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from media import library

CLEANED = "Cleaned up after {count} interrupted upload(s) or deletion(s)."
BAD_AGE = "--older-than takes a number of seconds, 0 or more."


class Command(BaseCommand):
    help = (
        "Delete the picture files that uploads and deletions cut short (a worker killed on the way) "
        "left behind and no picture names. Safe to run from cron, and again; uploads do it too."
    )

    def add_arguments(self, parser):
        parser.add_argument("--older-than", type=float, default=None,
                            help="only what was left this many seconds ago or more "
                                 "(default MEDIA_PENDING_SECONDS: an upload under way is never touched)")

    def handle(self, *args, older_than: float | None, **options):
        seconds = settings.MEDIA_PENDING_SECONDS if older_than is None else older_than
        if seconds < 0:
            raise CommandError(BAD_AGE)
        count, cleaned = 0, -1
        while cleaned:  # a batch at a time, until none is left
            cleaned = library.clean_interrupted(older_than=timedelta(seconds=seconds), limit=100)
            count += cleaned
        self.stdout.write(CLEANED.format(count=count))
