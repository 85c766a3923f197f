import sys

from django.core.management.base import BaseCommand, CommandError

from comments import backup

IMPORTED = "Imported {inserted} comments into {discussions} discussions ({skipped} already there)."


class Command(BaseCommand):
    help = (
        "Read comments written by export_comments (from --input FILE, else standard input) "
        "into the comment store in batches, keeping their ids, slugs and times; comments "
        "already there are skipped, so a rerun is safe. Refreshes each post's comment summary."
    )

    def add_arguments(self, parser):
        parser.add_argument("--input", metavar="FILE", help="read here instead of standard input")
        parser.add_argument("--batch-size", type=int, default=backup.BATCH_SIZE, help="comments per insert")

    def handle(self, *args, input: str | None, batch_size: int, **options):
        try:
            if input is None:
                done = backup.import_comments(lines=sys.stdin, batch_size=batch_size)
            else:
                with open(input, encoding="utf-8") as lines:
                    done = backup.import_comments(lines=lines, batch_size=batch_size)
        except backup.BadLine as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            IMPORTED.format(inserted=done.inserted, discussions=done.discussions, skipped=done.skipped)
        )
