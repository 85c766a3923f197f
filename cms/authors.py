"""Authors: Django users with a public profile, the summary posts embed, and renames.

A rename follows storage-patterns.md ("Renaming a user"): the profile changes first,
keeping the old username in `old_usernames` (the safety record, and what old author
URLs redirect by), then `update_many` brings every denormalised copy in posts and
comments in line, then the comment summaries posts carry. Each step only writes
copies that disagree with the profile, so if the process dies half-way, running the
same steps again (`sync_authors`) finishes the job, and running them when nothing
disagrees writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.translation import gettext_noop

from cms import posts
from cms.models import AuthorProfile
from cms.posts import AuthorSummary
from comments import api as comments_api
from comments.api import Refused

# Marked for translation; the dashboard translates it where it shows it.
USERNAME_TAKEN = gettext_noop("Another account already has this username.")
# Posts whose comment summaries are checked against the comments per query.
SUMMARY_BATCH = 500


class AuthorError(Refused):
    """A profile change that cannot be made; the message is for the editor."""


@dataclass(frozen=True)
class PublicProfile:
    """What an author page shows about its author."""

    username: str
    name: str
    bio: str
    avatar_url: str


@dataclass(frozen=True)
class Repaired:
    """How many copies a sync changed: posts, comments and post comment summaries."""

    posts: int = 0
    comments: int = 0
    summaries: int = 0

    @property
    def total(self) -> int:
        return self.posts + self.comments + self.summaries


def summary_for(user) -> AuthorSummary:
    """The fields a post embeds about its author (read afresh from the profile)."""
    profile = public_profile(user)
    return AuthorSummary(id=user.pk, username=profile.username, name=profile.name, picture=profile.avatar_url)


def create_author(
    *,
    username: str,
    display_name: str,
    bio: str = "",
    avatar_url: str = "",
    is_staff: bool = True,
    password: str | None = None,
):
    """A user with a public profile (staff by default: authors use the dashboard)."""
    user = get_user_model().objects.create_user(username=username, password=password, is_staff=is_staff)
    AuthorProfile.objects.create(user=user, display_name=display_name, bio=bio, avatar_url=avatar_url)
    return user


def find_author(*, username: str):
    """The author with this username: a staff user or anyone with a public profile."""
    authors = get_user_model().objects.filter(Q(is_staff=True) | Q(profile__isnull=False))
    return authors.filter(username=str(username)).first()


def find_renamed(*, username: str):
    """The author who used to be called `username`, or None.

    SQLite cannot look inside a JSON list (`contains` is not supported there), so
    the few profiles with old usernames are checked here.
    """
    profiles = AuthorProfile.objects.exclude(old_usernames=[]).select_related("user").order_by("-pk")
    return next((p.user for p in profiles if str(username) in p.old_usernames), None)


def _public(user, profile: AuthorProfile | None) -> PublicProfile:
    return PublicProfile(
        username=user.get_username(),
        name=(profile.display_name if profile else "") or user.get_full_name() or user.get_username(),
        bio=profile.bio if profile else "",
        avatar_url=profile.avatar_url if profile else "",
    )


def public_profile(user) -> PublicProfile:
    """The author's public profile as it is now (read afresh, never from a cache)."""
    return _public(user, AuthorProfile.objects.filter(user=user).first())


def staff_profiles() -> list[PublicProfile]:
    """Every staff user's public profile, by username: the editors' list of authors."""
    profiles = {p.user_id: p for p in AuthorProfile.objects.filter(user__is_staff=True)}
    users = get_user_model().objects.filter(is_staff=True).order_by("username")
    return [_public(user, profiles.get(user.pk)) for user in users]


def update_author(
    *, user, display_name: str, bio: str, avatar_url: str, username: str | None = None
) -> Repaired:
    """Change an author's public profile and, if given, username; then every copy.

    The profile (with the old username kept) is saved first, in one transaction of
    Django's database; the copies in MongoDB follow (`sync_author`). AuthorError if
    the username is taken.
    """
    old, new = user.get_username(), username or user.get_username()
    try:
        with transaction.atomic():
            profile, _ = AuthorProfile.objects.select_for_update().get_or_create(
                user=user, defaults={"display_name": display_name}
            )
            if new != old:
                kept = [name for name in profile.old_usernames if name not in (old, new)]
                profile.old_usernames = kept + [old]
                user.username = new
                user.save(update_fields=["username"])
            profile.display_name, profile.bio, profile.avatar_url = display_name, bio, avatar_url
            profile.save()
    except IntegrityError:
        user.username = old
        raise AuthorError(USERNAME_TAKEN, code="username_taken") from None
    return sync_author(user=user)


def sync_author(*, user) -> Repaired:
    """Make every copy of this user's author fields agree with the profile."""
    summary = summary_for(user)
    repaired_posts = posts.set_author(author=summary)
    commented_on = comments_api.discussions_commented_by(author_id=user.pk)
    return Repaired(
        posts=repaired_posts,
        comments=_rename_in_comments(author_id=user.pk, name=summary.name, post_ids=commented_on),
        summaries=repair_comment_summaries(post_ids=commented_on),
    )


def _rename_in_comments(*, author_id: int, name: str, post_ids: list | None = None) -> int:
    """Give this user's comments `name`; when any changed, give the posts they are on
    (`post_ids`, looked up when not given) a new version of their comments, so that no cached
    comment list shows the old name. Returns how many comments changed."""
    changed = comments_api.rename_author(author_id=author_id, name=name)
    if changed:
        if post_ids is None:
            post_ids = comments_api.discussions_commented_by(author_id=author_id)
        comments_api.touch_discussions(post_ids)
    return changed


def sync_all_authors() -> Repaired:
    """Repair every author copy in posts and comments that disagrees with its user's
    profile, and every comment summary that disagrees with the comments.

    Copies of users that no longer exist are left as they are.
    """
    post_copies = posts.distinct_authors()
    comment_copies = comments_api.member_authors()
    ids = {c.id for c in [*post_copies, *comment_copies] if isinstance(c.id, int)}
    expected = {pk: summary_for(user) for pk, user in get_user_model().objects.in_bulk(ids).items()}
    stale_posts = {c.id for c in post_copies if c.id in expected and c != expected[c.id]}
    stale_comments = {c.id for c in comment_copies if c.id in expected and c.name != expected[c.id].name}
    return Repaired(
        posts=sum(posts.set_author(author=expected[pk]) for pk in stale_posts),
        comments=sum(_rename_in_comments(author_id=pk, name=expected[pk].name) for pk in stale_comments),
        summaries=repair_comment_summaries(),
    )


def _chunks(items: Iterable, size: int) -> Iterator[list]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def repair_comment_summaries(*, post_ids: list | None = None) -> int:
    """Refresh the comment summaries (of all posts, or of `post_ids`) whose latest
    comments show a name other than the comments themselves; return how many.

    Only names are compared: that is what a rename changes. One `$in` query fetches
    the comments a batch of summaries names.
    """
    if post_ids is not None and not post_ids:
        return 0
    stale = []
    for chunk in _chunks(posts.find_comment_summaries(post_ids=post_ids), SUMMARY_BATCH):
        keys = [(post_id, c.slug) for post_id, latest in chunk for c in latest]
        names = {(c.discussion_id, c.slug): c.author.name for c in comments_api.comments_by_keys(keys=keys)}
        stale += [
            post_id
            for post_id, latest in chunk
            if any(names.get((post_id, c.slug), c.author_name) != c.author_name for c in latest)
        ]
    comments_api.touch_discussions(stale)  # A newer change number, so each post takes its summary.
    for post_id in stale:
        comments_api.refresh_summary(discussion_id=post_id)
    return len(stale)
