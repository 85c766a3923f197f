from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand

from comments.votes import collection as votes


class Command(BaseCommand):
    help = (
        "Compare every comment's vote tallies, score and best-view key with its votes in "
        "comment_votes (the source of truth) and fix those that drifted (a crash between "
        "a vote and its tally, comments stored before votes existed). A comment voted on "
        "in the last minute is left for the next run. Safe to run again, and while the "
        "site runs; cron-safe."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--check", action="store_true",
                            help="Only report the comments that drifted; change nothing.")

    def handle(self, *args: Any, check: bool = False, **options: Any) -> None:
        done = votes.repair_all(check=check, each=self._report)
        verb = "found" if check else "fixed"
        count = done.found if check else done.fixed
        self.stdout.write(f"Vote tallies: {done.found} comment{'s' if done.found != 1 else ''} drifted, "
                          f"{count} {verb}, {done.settling} left for the next run.")

    def _report(self, drift: votes.Drift) -> None:
        comment = drift.comment
        self.stdout.write(
            f"{comment.discussion_id} {comment.slug}: stored up {comment.votes_up} down "
            f"{comment.votes_down}, votes say up {drift.up} down {drift.down}"
            + (" (voted on just now: left for the next run)" if drift.settling else "")
        )
