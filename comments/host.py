"""What the comments app needs from the site it runs in, and nothing more.

Comments belong to discussions that the app knows only by id. The site (the *host*)
owns the discussions: their titles and pages, the summary of their comments that
its list pages show, who may moderate. The setting `COMMENTS_HOST` names a class
that implements `Host`; Slugline's blog is `cms.comments_host.BlogHost`, where each
discussion is a post and its id is the post's `_id`. The comments app imports no
module of its host's: it asks `get_host()`.

The comments app keeps its own per-discussion state (counters, the version of cached
pages, the buckets store's page counter: comments/discussion_state.py). The host only
stores what the subset pattern of `storage-patterns.md` embeds in its discussion
documents, the comment count and the latest comments, when the app hands them over
(`store_comment_summary`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Protocol

from bson import ObjectId
from django.conf import settings
from django.core.signals import setting_changed
from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string


@dataclass(frozen=True)
class LatestComment:
    """One of the few latest comments a discussion carries for list pages."""

    slug: str
    author_name: str
    posted: datetime
    excerpt: str


class DiscussionAuthor(Protocol):
    @property
    def id(self) -> int: ...


class Discussion(Protocol):
    """A discussion as the comments app reads it (the blog's `Post` is one)."""

    @property
    def id(self) -> ObjectId: ...
    @property
    def slug(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def author(self) -> DiscussionAuthor: ...
    @property
    def published(self) -> datetime | None: ...
    @property
    def comments_closed(self) -> bool: ...
    @property
    def comment_count(self) -> int: ...
    @property
    def latest_comments(self) -> Sequence[LatestComment]: ...
    def get_absolute_url(self) -> str: ...


class Host(Protocol):
    """The interface a host implements (see `cms/comments_host.py`)."""

    # Discussions
    def get(self, discussion_id: ObjectId | str) -> Discussion | None: ...
    def get_many(self, ids: Iterable[ObjectId]) -> list[Discussion]: ...
    def get_by_slug(self, slug: str) -> Discussion | None: ...
    def published_or_404(self, slug: str) -> Discussion: ...
    def create_draft(self, *, title: str, slug: str, dry_run: bool = False) -> Discussion: ...
    def discussion_page(
        self, request: HttpRequest, discussion: Discussion, *, form: object, status: int
    ) -> HttpResponse: ...

    # The comment summary kept on each discussion: stored only if `seq` is newer than
    # the one it was last stored with; whether it was.
    def store_comment_summary(
        self, discussion_id: ObjectId, *, seq: int, count: int, latest: list[LatestComment]
    ) -> bool: ...

    # People
    def author_names(self) -> list[str]: ...
    def commenter_name(self, user) -> str: ...
    def can_moderate(self, user) -> bool: ...
    def moderation_url(self) -> str: ...
    def moderators(self) -> Iterable: ...


@cache
def _host(path: str) -> Host:
    return import_string(path)()


def get_host() -> Host:
    """The host named by COMMENTS_HOST (one instance per process and setting)."""
    return _host(settings.COMMENTS_HOST)


def _forget(*, setting: str, **kwargs) -> None:
    if setting == "COMMENTS_HOST":
        _host.cache_clear()


setting_changed.connect(_forget)
