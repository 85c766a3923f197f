from datetime import timedelta

from django.core.management.base import BaseCommand

from comments import changes, summaries


class Command(BaseCommand):
    help = (
        "Finish every moderation action that was cut short (comments/changes.py), then "
        "recompute every post's comment count and latest comments. Safe to run again, and "
        "while the site runs; cron-safe."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--pending-only", action="store_true",
            help="Only finish the actions cut short; do not recompute every summary.",
        )

    def handle(self, *args, pending_only=False, **options):
        # Actions younger than this may still be running in their request: running
        # them twice is harmless (every step is idempotent), so a short margin is enough.
        finished = changes.finish_pending(older_than=timedelta(seconds=5))
        self.stdout.write(f"Finished {finished} moderation action{'s' if finished != 1 else ''} cut short.")
        if not pending_only:
            refreshed = summaries.repair_all()
            self.stdout.write(f"Recomputed {refreshed} post comment summar{'ies' if refreshed != 1 else 'y'}.")
