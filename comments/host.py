"""What the comments app needs from the site it runs in, and nothing more.

Comments belong to discussions that the app knows only by id. The site (the *host*)
owns the discussions: their titles and pages, the summary of their comments that
its list pages show, who may moderate. The setting `COMMENTS_HOST` names a subclass
of `BaseHost` (django-allauth's adapter shape: every method has a default where one
makes sense, a host overrides what differs); Slugline's blog is
`cms.comments_host.BlogHost`, where each discussion is a post and its id is the
post's `_id`. The comments app imports no module of its host's: it asks `get_host()`.

The comments app keeps its own per-discussion state (counters, the version of cached
pages, the buckets store's page counter: comments/stores/discussion_state.py). The host only
stores what the subset pattern of `storage-patterns.md` embeds in its discussion
documents, the comment count and the latest comments, when the app hands them over
(`store_comment_summary`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, Protocol

from bson import ObjectId
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.signals import setting_changed
from django.db.models import Q
from django.http import Http404
from django.utils.module_loading import import_string
from django.utils.translation import gettext, gettext_noop

from comments.errors import Refused
from infra.ids import parse_id

NO_SUCH_DISCUSSION = gettext_noop("There is no discussion at this address.")
NO_GET = "{host} must define get() or get_many() (comments.host.BaseHost)."
CANNOT_CREATE = (
    "{host} cannot create discussions, so the imported thread {title!r}, which matches no "
    "discussion, cannot be imported: a host that imports such threads defines create_draft()."
)


class CannotCreate(Refused):
    """The host makes no discussions (an import's thread that matches none)."""


@dataclass(frozen=True)
class LatestComment:
    """One of the few latest comments a discussion carries for list pages."""

    slug: str
    author_name: str
    posted: datetime
    excerpt: str


@dataclass(frozen=True)
class MemberFacts:
    """What editors see of a member's account beside their comments in the queue: when
    it was made (None: unknown) and whether it may comment as a member (its address
    verified, for a host that asks for that)."""

    joined: datetime | None
    verified: bool


@dataclass(frozen=True)
class MemberPicture:
    """A member's own picture, drawn in place of their initials, served by the host
    (no reader's browser asks anyone else for it): `src`, the small square (48 CSS
    pixels) in a format every browser reads; `srcset`, its sizes for denser screens
    ("… 1x, … 2x"); `webp_srcset`, the same in WebP ("" for none)."""

    src: str
    srcset: str = ""
    webp_srcset: str = ""


class DiscussionAuthor(Protocol):
    @property
    def id(self) -> int | None: ...


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


class BaseHost:
    """The interface a host implements, with a default for every method that can have
    one: a host subclasses it and overrides what differs (Slugline's blog:
    cms/comments_host.py). Only `get` or `get_many` must be written; the system check
    `comments.E006` names what a host lacks."""

    # --- Discussions --------------------------------------------------------------

    def get(self, discussion_id: ObjectId | str) -> Discussion | None:
        """The discussion with this id (any state), or None. By default: `get_many`."""
        if type(self).get_many is BaseHost.get_many:
            raise NotImplementedError(NO_GET.format(host=type(self).__name__))
        oid = parse_id(discussion_id)
        found = self.get_many([oid]) if oid is not None else []
        return found[0] if found else None

    def get_many(self, ids: Iterable[ObjectId]) -> list[Discussion]:
        """The discussions with these ids that exist. By default: `get` for each."""
        if type(self).get is BaseHost.get:
            raise NotImplementedError(NO_GET.format(host=type(self).__name__))
        return [found for found in map(self.get, ids) if found is not None]

    def discussion_of(self, obj: Any) -> Any:
        """The discussion a page's object is (`{% comment_section obj %}`): by default
        the object itself."""
        return obj

    def get_by_slug(self, slug: str) -> Discussion | None:
        """The discussion with this slug, in any state (exports and imports name
        discussions by slug). By default none: a host without slugs."""
        return None

    def published_or_404(self, slug: str) -> Discussion:
        """The discussion readers may see at this slug, or Http404 (in the site's layout)."""
        discussion = self.get_by_slug(slug)
        if discussion is None or discussion.published is None:
            raise Http404(gettext(NO_SUCH_DISCUSSION))
        return discussion

    def create_draft(self, *, title: str, slug: str, dry_run: bool = False) -> Discussion:
        """A new, unpublished discussion for an imported thread that matches none (not
        stored on a dry run). By default refused: such imports need a host that makes one."""
        raise CannotCreate(CANNOT_CREATE.format(host=type(self).__name__, title=title), "cannot_create")

    # --- People -------------------------------------------------------------------

    def author_names(self) -> list[str]:
        """Names commenters may not take (the site's authors'): none by default."""
        return []

    def commenter_name(self, user: Any) -> str:
        """The name a member's comments are signed with: their full name, or username."""
        return str(user.get_full_name() or user.get_username())

    def member_names(self) -> list[str]:
        """The display names of the site's members, which strangers may not take
        either (as `author_names`): none by default. A host that returns them calls
        `forget_reserved_names()` when one changes, or waits a minute for the check to see it."""
        return []

    def member_pictures(self, user_ids: Iterable[int]) -> dict[int, MemberPicture]:
        """The pictures of those of these members who have one, by user id, in one
        query (asked once per page of comments, never per comment): none by default,
        and every member is drawn with their initials."""
        return {}

    def member_pictures_version(self) -> str:
        """A text that changes whenever a member's picture does (part of the key of
        every cached page of comments, so a page cached before shows no picture that is
        gone): "" by default, for a host without pictures."""
        return ""

    def member_address(self, user: Any) -> str:
        """Where a member's reply mail and follows go, with no confirmation asked: an
        address the host knows they own ("" for none). By default the account's
        `email`, which a host that does not verify addresses overrides."""
        return str(getattr(user, "email", "") or "")

    def member_verification_url(self, user: Any) -> str | None:
        """None when this signed-in user may comment as a member; else the page where
        they verify their account first (the form links it). By default None: every
        account may."""
        return None

    def member_facts(self, user_ids: Iterable[int]) -> dict[int, MemberFacts]:
        """The account facts of these members that still have an account, by user id
        (the queue asks once a page). By default: the user model's `date_joined`, and
        verified when `member_verification_url` lets them comment."""
        ids = sorted({int(user_id) for user_id in user_ids})
        users = get_user_model()._default_manager.filter(pk__in=ids) if ids else []
        return {int(user.pk): MemberFacts(joined=getattr(user, "date_joined", None),
                                          verified=self.member_verification_url(user) is None)
                for user in users}

    def can_moderate(self, user: Any) -> bool:
        """Whether this user moderates comments: active staff, by default."""
        return bool(user.is_authenticated and user.is_active and user.is_staff)

    def moderators(self) -> Iterable[Any]:
        """The users whose moderation digest lists held comments: the active users
        with an address (staff or superusers) that `can_moderate` admits."""
        candidates = get_user_model().objects.filter(is_active=True).exclude(email="")
        return [user for user in candidates.filter(Q(is_staff=True) | Q(is_superuser=True)).order_by("pk")
                if self.can_moderate(user)]

    def moderation_url(self) -> str | None:
        """Where moderators moderate (the digest mail links it); None: nowhere to link."""
        return None

    # --- The comment summary (the subset pattern) --------------------------------

    def store_comment_summary(
        self, discussion_id: ObjectId, *, seq: int, count: int, latest: list[LatestComment]
    ) -> bool:
        """Keep a discussion's approved comment count and latest comments where its list
        pages read them, only if `seq` (the comments app's change number they were read
        at) is newer than the one stored with them; whether it was stored. By default
        nothing is kept: a host whose pages show no summaries."""
        return False

    def forget_copies(self, discussion_id: ObjectId) -> None:
        """Drop what the host keeps of a discussion's comments beyond its stored summary
        (cached pages, last good copies showing its latest comments): an erased member's
        words were in them. By default nothing: a host that keeps no such copies."""


# The methods a host must write itself: none alone (the others have defaults), but
# one of these two (each has a default built on the other).
REQUIRED: tuple[str, ...] = ()
ONE_OF = ("get", "get_many")


def missing_methods(host: type) -> list[str]:
    """What the host class `host` lacks: for a subclass of BaseHost, the required
    methods it does not override; for any other class, every method of BaseHost it
    does not have. Empty for a complete host."""
    if not isinstance(host, type) or not issubclass(host, BaseHost):
        wanted = [name for name, value in vars(BaseHost).items() if not name.startswith("_") and callable(value)]
        return [name for name in wanted if not callable(getattr(host, name, None))]
    missing = [name for name in REQUIRED if getattr(host, name) is getattr(BaseHost, name)]
    if all(getattr(host, name) is getattr(BaseHost, name) for name in ONE_OF):
        missing.insert(0, " or ".join(ONE_OF))
    return missing


@cache
def _host(path: str) -> BaseHost:
    return import_string(path)()


# Without COMMENTS_HOST, every instance of COMMENTS_DISCUSSION_MODEL is a discussion.
MODEL_HOST = "comments.model_host.ModelHost"


def get_host() -> BaseHost:
    """The host named by COMMENTS_HOST, else the model host (one instance per process
    and setting)."""
    return _host(getattr(settings, "COMMENTS_HOST", "") or MODEL_HOST)


def _forget(*, setting: str, **kwargs: Any) -> None:
    if setting in ("COMMENTS_HOST", "COMMENTS_DISCUSSION_MODEL", "COMMENTS_DISCUSSION_SLUG_FIELD"):
        _host.cache_clear()


setting_changed.connect(_forget)
