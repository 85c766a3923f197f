from argparse import ArgumentParser
from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from comments.moderation import changes
from comments.stores import summaries

DRIFT_LINE = ("Post {post_id}: stored {stored[0]} comments, latest {stored[1]}; "
              "counted {counted[0]}, latest {counted[1]}.")
COUNTS_LINE = ("Post {post_id}: counters {stored}; counted {counted} "
               "({unfinished} change{s} not yet counted).")
DRIFT_FOUND = "{count} post comment summar{ies} drift from a recount; run repair_summaries without --check."


class Command(BaseCommand):
    help = (
        "Finish every moderation action that was cut short (comments/moderation/changes.py) and "
        "settle every discussion whose change was left unsettled (comments/stores/summaries.py), then "
        "finish every change not yet counted, fix every discussion's counters that drift "
        "from a recount and hand every post its comment count and latest comments again. "
        "Safe to run again, and while the site runs; cron-safe. With --check: report every "
        "counter and summary that drifts from a recount, change nothing, and exit 1 if any does."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--pending-only", action="store_true",
            help="Only finish the actions cut short; do not recompute every summary.",
        )
        parser.add_argument(
            "--check", action="store_true",
            help="Only compare every counter and stored summary with a recount and report the drift; change nothing.",
        )

    def handle(self, *args: Any, pending_only: bool = False, check: bool = False, **options: Any) -> None:
        if check:
            self._check()
            return
        # Actions younger than this may still be running in their request: running
        # them twice is harmless (every step is idempotent), so a short margin is enough.
        finished = changes.finish_pending(older_than=timedelta(seconds=5))
        self.stdout.write(f"Finished {finished} moderation action{'s' if finished != 1 else ''} cut short.")
        settled = summaries.settle_overdue(older_than=timedelta(seconds=5))
        self.stdout.write(f"Settled {settled} discussion{'s' if settled != 1 else ''} left unsettled.")
        if not pending_only:
            refreshed = summaries.repair_all()
            self.stdout.write(f"Recomputed {refreshed} post comment summar{'ies' if refreshed != 1 else 'y'}.")

    def _check(self) -> None:
        drifted = 0
        for drift in summaries.find_drift():
            drifted += 1
            if drift.counted_counts is not None:
                self.stdout.write(COUNTS_LINE.format(post_id=drift.post_id, stored=drift.stored_counts,
                                                     counted=drift.counted_counts, unfinished=drift.unfinished,
                                                     s="s" if drift.unfinished != 1 else ""))
            if drift.stored != drift.counted:
                self.stdout.write(DRIFT_LINE.format(post_id=drift.post_id, stored=drift.stored,
                                                    counted=drift.counted))
        if drifted:
            raise CommandError(DRIFT_FOUND.format(count=drifted, ies="ies" if drifted != 1 else "y"))
        self.stdout.write("Every post comment summary agrees with a recount.")
