import sys
from argparse import ArgumentParser, ArgumentTypeError
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.utils.module_loading import import_string
from pymongo.errors import PyMongoError

from comments.errors import Refused
from comments.stores import get_store
from comments.transfer import backup, import_records, importing
from infra import extras, mongo

IMPORTED = "Imported {inserted} comments into {discussions} discussions ({skipped} already there)."
NEEDS_FILE = "--format {format} reads a file: name it (FILE or --input FILE)."
JSONL_ONLY = "{option} is for --format disqus or wordpress."
NOT_FOR_FORMAT = "{option} is not for --format {format}."
BAD_BATCH = "{value!r} is not a number of comments (a whole number, at least 1)."
OPTIONS = {"mapping_path": "map", "comments_only": "comments_only"}
NO_INDEXES = (
    "The database's indexes could not be made ({error}); nothing was imported. "
    "Run `manage.py ensure_indexes` and fix what it reports, then import again."
)


def positive(value: str) -> int:
    """--batch-size: a whole number of comments, at least 1."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise ArgumentTypeError(BAD_BATCH.format(value=value))
    return number


class Command(BaseCommand):
    help = (
        "Import comments. --format jsonl (the default) reads what export_comments wrote (from FILE or "
        "--input FILE, else standard input), keeping ids, slugs and times. --format disqus reads a Disqus "
        "XML export, --format wordpress a WordPress WXR export: streamed, threads matched to posts, "
        "threading, times and statuses kept. Every format skips what is already there, so a rerun is safe, "
        "and refreshes each post's comment summary."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("file", nargs="?", metavar="FILE", help="the file to import")
        parser.add_argument("--input", metavar="FILE", help="the file to import (same as FILE)")
        parser.add_argument("--format", choices=("jsonl", *importing.FORMATS), default="jsonl", help="the file's format (default jsonl)")
        parser.add_argument("--batch-size", type=positive, default=None,
                            help="comments per write (default: the comment store's own, 500 or 2,000)")
        parser.add_argument("--dry-run", action="store_true", help="read and report; write nothing")
        parser.add_argument("--map", metavar="FILE",
                            help="Disqus: a CSV of thread link or id, post slug (threads the site cannot match)")
        parser.add_argument("--create-missing", action="store_true",
                            help="make a draft post for each thread no post matches (else they are skipped)")
        parser.add_argument("--comments-only", action="store_true",
                            help="WordPress: import only the comments, onto existing posts matched by slug")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
        parser.add_argument("--verbose", action="store_true",
                            help="Disqus, WordPress: a line per discussion written to in the summary")
        parser.add_argument("--trust-names", action="store_true",
                            help="Disqus, WordPress: the file is trusted, so commenters named as this site's "
                                 "authors are imported (else those lines are refused)")
        parser.add_argument("--keep-staff", action="store_true",
                            help="JSON Lines: keep the Staff badge of comments the file says staff wrote "
                                 "(only for a file this site exported; else it is dropped)")

    def handle(self, *args: Any, file: str | None, input: str | None, format: str, batch_size: int | None,
               **options: Any) -> None:
        path = file or input
        batch_size = batch_size or get_store().import_batch
        if format == "jsonl":
            for option in ("dry_run", "map", "create_missing", "comments_only", "trust_names", "verbose"):
                if options[option]:
                    raise CommandError(JSONL_ONLY.format(option="--" + option.replace("_", "-")))
            self._ensure_indexes()
            self._jsonl(path, batch_size, keep_staff=options["keep_staff"])
            return
        if options["keep_staff"]:
            raise CommandError(NOT_FOR_FORMAT.format(option="--keep-staff", format=format))
        if not path:
            raise CommandError(NEEDS_FILE.format(format=format))
        run, takes = importing.FORMATS[format]
        extra = {name: options[option] for name, option in OPTIONS.items() if name in takes}
        if options["verbose"]:  # only then: a format of a host's own may not take it
            extra["verbose"] = True
        for name, option in OPTIONS.items():
            if name not in takes and options[option]:
                raise CommandError(NOT_FOR_FORMAT.format(option="--" + option.replace("_", "-"), format=format))
        if not options["dry_run"]:
            self._ensure_indexes()
        try:
            import_string(run)(path=path, dry_run=options["dry_run"], create_missing=options["create_missing"],
                               progress=not options["no_progress"], stdout=self.stdout, batch_size=batch_size,
                               trust_names=options["trust_names"], **extra)
        except (import_records.BadSource, OSError, ValueError, Refused, extras.MissingExtra) as exc:
            # Refused: e.g. a host that makes no discussions for unmatched threads.
            raise CommandError(str(exc)) from exc

    @staticmethod
    def _ensure_indexes() -> None:
        """Make every index the site's queries name (a fresh database has none, and a
        query hinted at a missing one fails half-way through the import), before the
        first write; a database that refuses them stops the run here."""
        try:
            mongo.ensure_all_indexes()
        except PyMongoError as exc:
            raise CommandError(NO_INDEXES.format(error=exc)) from exc

    def _jsonl(self, path: str | None, batch_size: int, *, keep_staff: bool) -> None:
        try:
            if path is None:
                done = backup.import_comments(lines=sys.stdin, batch_size=batch_size, keep_staff=keep_staff)
            else:
                with open(path, encoding="utf-8") as lines:
                    done = backup.import_comments(lines=lines, batch_size=batch_size, keep_staff=keep_staff)
        except backup.BadLine as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            IMPORTED.format(inserted=done.inserted, discussions=done.discussions, skipped=done.skipped)
        )
