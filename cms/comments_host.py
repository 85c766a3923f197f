"""The blog as the comments app's host (`COMMENTS_HOST`, see comments/host.py): each
discussion is a published post, its id the post's `_id`, its page the post's page.
`BaseHost` gives the rest: `get` (through `get_many`) and `moderators` (the users
with an address whom `can_moderate` admits: the editors)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from bson import ObjectId
from django.urls import reverse

from cms import authors, posts, roles
from cms.published import published_post_or_404
from comments.api import BaseHost, LatestComment

# Drafts made for imported threads that no post matches are signed by this author.
IMPORT_AUTHOR = posts.AuthorSummary(id=0, username="imported", name="Imported")


class BlogHost(BaseHost):
    def get_many(self, ids: Iterable[ObjectId]) -> list[posts.Post]:
        return posts.find_by_ids(ids=ids)

    def get_by_slug(self, slug: str) -> posts.Post | None:
        return posts.get_by_slug(slug)

    def published_by_slugs(self, slugs: list[str]) -> list[posts.Post]:
        """The published posts among `slugs`, in one query (optional hook: the API's counts)."""
        return posts.find_published_by_slugs(slugs)

    def published_or_404(self, slug: str) -> posts.Post:
        return published_post_or_404(slug)

    def create_draft(self, *, title: str, slug: str, dry_run: bool = False) -> posts.Post:
        """A draft post for an imported thread; not stored on a dry run."""
        if dry_run:
            return posts.Post(id=ObjectId(), title=title, slug=slug, content="", content_html="",
                              created=datetime.now(UTC), published=None, status=posts.DRAFT,
                              author=IMPORT_AUTHOR)
        return posts.create_post(title=title, slug=slug, content="", author=IMPORT_AUTHOR, status=posts.DRAFT)

    def store_comment_summary(self, discussion_id: ObjectId, *, seq: int, count: int,
                              latest: list[LatestComment]) -> bool:
        return posts.store_comment_summary(post_id=discussion_id, seq=seq, count=count, latest=latest)

    def author_names(self) -> list[str]:
        """The display names of the authors of the site's posts."""
        return [author.name for author in posts.distinct_authors()]

    def commenter_name(self, user) -> str:
        return authors.summary_for(user).name

    def can_moderate(self, user) -> bool:
        return roles.is_editor(user)

    def moderation_url(self) -> str:
        """Where editors moderate: the dashboard's queue."""
        return reverse("dashboard:moderation")
