"""Import one post and its threaded comments exported by bench/peer.py.

The export (JSON) holds the post and its comments in Slugline's threaded order:

    {"post": {"title", "slug", "body_html", "published"},
     "comments": [{"slug", "parent", "key", "name", "email", "text", "posted"}, ...]}

where `parent` is the parent's slug (null for a top-level comment) and `key` the
last part of the comment's full_slug (its posting time to the microsecond, then its
slug part), which orders comments as they were posted.

The comments are saved through xtd's own model, in the order they were posted, so
xtd computes thread_id, parent_id, level and order itself, as it would have live
(one transaction: SQLite then writes once). The command then checks that xtd lists
them in exactly the export's threaded order, with the same parents and depths.
"""

import json
from datetime import datetime
from itertools import zip_longest

from django.contrib.contenttypes.models import ContentType
from django.contrib.sites.models import Site
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django_comments_xtd.models import XtdComment

from blog.models import Post


class Command(BaseCommand):
    help = "Import a post and its threaded comments from a bench/peer.py export."

    def add_arguments(self, parser):
        parser.add_argument("export", help="the JSON file bench/peer.py wrote")

    def handle(self, *args, export, **options):
        with open(export, encoding="utf-8") as f:
            data = json.load(f)
        with transaction.atomic():
            post = self._post(data["post"])
            ids = self._comments(post, data["comments"])
        self._check(post, data["comments"], ids)
        self.stdout.write(f"imported {len(ids)} comments on /posts/{post.slug}/")

    def _post(self, fields) -> Post:
        XtdComment.objects.all().delete()
        Post.objects.all().delete()
        return Post.objects.create(
            title=fields["title"],
            slug=fields["slug"],
            body=fields["body_html"],
            published=datetime.fromisoformat(fields["published"]),
        )

    def _comments(self, post, comments) -> dict[str, int]:
        """Save each comment in posting order; the ids xtd gave them, by slug."""
        content_type = ContentType.objects.get_for_model(Post)
        site = Site.objects.get_current()
        ids: dict[str, int] = {}
        for c in sorted(comments, key=lambda c: c["key"]):
            comment = XtdComment(
                content_type=content_type,
                object_pk=str(post.pk),
                site=site,
                user_name=c["name"],
                user_email=c["email"],
                user_url="",
                comment=c["text"],
                submit_date=datetime.fromisoformat(c["posted"]),
                is_public=True,
                is_removed=False,
                parent_id=ids[c["parent"]] if c["parent"] else 0,
            )
            comment.save()
            ids[c["slug"]] = comment.pk
        return ids

    def _check(self, post, comments, ids) -> None:
        """xtd's listing order, parents and levels are the export's."""
        listed = list(
            XtdComment.objects.filter(object_pk=str(post.pk)).values_list("pk", "parent_id", "level")
        )
        expected = [
            (ids[c["slug"]], ids[c["parent"]] if c["parent"] else ids[c["slug"]], c["slug"].count("/"))
            for c in comments
        ]
        for position, (got, want) in enumerate(zip_longest(listed, expected)):
            if got != want:
                raise CommandError(
                    f"xtd lists the comments differently from Slugline: at position {position}, "
                    f"(id, parent, level) {got} instead of {want}"
                )
