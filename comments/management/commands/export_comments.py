from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from comments.host import get_host
from comments.transfer import backup

NO_SUCH_POST = "No post has the slug {slug!r}."


class Command(BaseCommand):
    help = (
        "Write comments as JSON Lines (MongoDB Extended JSON, one comment per line): one "
        "post's with --post, else all; to --output FILE, else to standard output. Streamed."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--post", metavar="SLUG", help="only this post's comments")
        parser.add_argument("--output", metavar="FILE", help="write here instead of standard output")

    def handle(self, *args: Any, post: str | None, output: str | None, **options: Any) -> None:
        discussion_id = None
        if post is not None:
            found = get_host().get_by_slug(post)
            if found is None:
                raise CommandError(NO_SUCH_POST.format(slug=post))
            discussion_id = found.id
        if output is None:
            written = backup.export_comments(out=self.stdout, discussion_id=discussion_id)
        else:
            with open(output, "w", encoding="utf-8") as out:
                written = backup.export_comments(out=out, discussion_id=discussion_id)
        # On standard error, so that standard output holds nothing but the comments.
        self.stderr.write(f"Exported {written} comment{'s' if written != 1 else ''}.")
