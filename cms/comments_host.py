"""The blog as the comments app's host (`COMMENTS_HOST`, see comments/host.py): each
discussion is a published post, its id the post's `_id`, its page the post's page.
Readers' accounts (accounts/commenting.py, accounts/avatars.py) give members' names,
addresses and pictures.
`BaseHost` gives the rest: `get` (through `get_many`) and `moderators` (the users
with an address whom `can_moderate` admits: the editors)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from bson import ObjectId
from django.core.cache import cache
from django.urls import reverse

from accounts import avatars, commenting
from cms import authors, posts, roles
from cms.published import published_post_or_404
from comments.api import BaseHost, LatestComment, MemberFacts, MemberPicture
from infra import stale
from infra.cache_prefix import delete_prefix

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

    def forget_copies(self, discussion_id: ObjectId) -> None:
        """The last good copies of the post's page and of the home pages (their summaries
        list its latest comments) go; the next reader's visit keeps new ones."""
        for post in posts.find_by_ids(ids=[discussion_id]):
            cache.delete(stale.PREFIX + f"post:{post.slug}")
        delete_prefix(cache, stale.PREFIX + "home:")

    def author_names(self) -> list[str]:
        """The display names of the authors of the site's posts."""
        return [author.name for author in posts.distinct_authors()]

    def commenter_name(self, user) -> str:
        """A reader's display name (accounts.Profile), else an author's name."""
        return commenting.display_name(user) or authors.summary_for(user).name

    def member_names(self) -> list[str]:
        """Readers' display names: strangers may not take them either."""
        return commenting.display_names()

    def member_pictures(self, user_ids: Iterable[int]) -> dict[int, MemberPicture]:
        """Readers' own pictures (accounts/avatars.py), served under /media/: one query."""
        return avatars.pictures(user_ids)

    def member_pictures_version(self) -> str:
        return avatars.version()

    def member_address(self, user) -> str:
        """A reader's verified primary address (accounts.commenting.member_address); an
        editor's account address (staff skip verification: accounts.stages)."""
        return str(user.email or "") if user.is_staff else commenting.member_address(user)[0]

    def member_verification_url(self, user) -> str | None:
        """A reader comments as a member once their address is verified: until then, the
        account's addresses page (where a verification code is sent again)."""
        if user.is_staff or commenting.member_address(user)[1]:
            return None
        return reverse("account_email")

    def member_facts(self, user_ids: Iterable[int]) -> dict[int, MemberFacts]:
        """Each reader's sign-up time and whether their address is verified
        (accounts.commenting.account_facts: two queries for a page of the queue)."""
        return {user_id: MemberFacts(joined=joined, verified=verified)
                for user_id, (joined, verified) in commenting.account_facts(user_ids).items()}

    def can_moderate(self, user) -> bool:
        return roles.is_editor(user)

    def moderation_url(self) -> str:
        """Where editors moderate: the dashboard's queue."""
        return reverse("dashboard:moderation")
