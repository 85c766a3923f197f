"""Writing posts: slugs, scheduling, edits that keep the previous version, and
restores. Plain functions; no request in sight."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime, timezone

from django.utils.translation import gettext_noop
from pymongo.errors import DuplicateKeyError

from cms import posts, slugs, versions
from cms.posts import AuthorSummary, Post
from cms.versions import Version
from comments.api import Refused

# Messages for the editor, marked for translation and translated where they are shown
# (dashboard/views.py): these functions run with no request and no reader's language.
SLUG_TAKEN = gettext_noop("Another post already has this slug.")
STALE_EDIT = gettext_noop(
    "Someone saved this post while you were editing it, so yours was not saved. "
    "Open the post again to see their changes, then make yours."
)
RESTORE_SLUG_TAKEN = gettext_noop("This version's slug now belongs to another post, so it cannot be restored.")
FALLBACK_SLUG = slugs.FALLBACK
# Generated slugs are the title's, then the title's with -2, -3 ... up to this.
SLUG_SUFFIXES = 100
GENERATED_SLUG_LENGTH = 72


class PostError(Refused):
    """A post that cannot be saved as given; `field` is the form field to blame."""

    def __init__(self, message: str, code: str, field: str | None = None):
        super().__init__(message, code)
        self.field = field


def schedule(*, wanted: str, publish_at: datetime | None, now: datetime) -> tuple[str, datetime | None]:
    """The status and publish time a post is saved with: a draft keeps the time it
    was given; a post to publish at a future time is scheduled; otherwise published
    at the time given, or now."""
    if wanted == posts.DRAFT:
        return posts.DRAFT, publish_at
    if publish_at is not None and publish_at > now:
        return posts.SCHEDULED, publish_at
    return posts.PUBLISHED, publish_at or now


def slug_from_title(title: str) -> str:
    """The title as a lower-case slug: Latin letters as ASCII, other scripts kept
    (cms/slugs.py says why), at most GENERATED_SLUG_LENGTH characters; "post" when
    nothing is left."""
    return slugs.slug_from_title(title, limit=GENERATED_SLUG_LENGTH)


def slug_candidates(title: str) -> Iterator[str]:
    base = slug_from_title(title)
    yield base
    for n in range(2, SLUG_SUFFIXES + 1):
        yield f"{base}-{n}"


def create_post(
    *,
    author: AuthorSummary,
    title: str,
    slug: str,
    content: str,
    tags: tuple[str, ...],
    status: str,
    publish_at: datetime | None,
    excerpt: str = "",
    language: str | None = None,
    cover: str = "",
    now: datetime | None = None,
) -> Post:
    """A new post (in the site's language unless given). An empty `slug` is made
    from the title (suffixed until free); a slug the editor chose that another post
    has is a PostError."""
    now = now or datetime.now(timezone.utc)
    state, published = schedule(wanted=status, publish_at=publish_at, now=now)
    for candidate in [slug] if slug else slug_candidates(title):
        try:
            return posts.create_post(
                title=title,
                slug=candidate,
                content=content,
                excerpt=excerpt,
                language=language,
                cover=cover,
                author=author,
                tags=tags,
                status=state,
                published=published,
                created=now,
            )
        except DuplicateKeyError:
            continue
    raise PostError(SLUG_TAKEN, code="slug_taken", field="slug")


EDITABLE = ("title", "slug", "content", "excerpt", "tags", "status", "published", "language", "cover")


def _editable(post: Post) -> dict:
    return {name: getattr(post, name) for name in EDITABLE}


def _save(
    *, post: Post, revision: int, editor: str, changes: dict, slugs: Iterable[str], taken: PostError
) -> Post:
    """Keep `post` as a version, then save `changes` over the revision the editor saw,
    with the first of `slugs` that no other post has: the unique slug index decides
    (DuplicateKeyError), so two editors never both get one. `taken` when none is
    free; then, as for a stale edit, the version kept for the refused save goes."""
    if revision != post.revision:
        raise PostError(STALE_EDIT, code="stale")
    current = _editable(post)
    version = None
    try:
        for slug in slugs:
            fields = {**current, **changes, "slug": slug, "tags": tuple(changes.get("tags", current["tags"]))}
            if fields == current:
                return post  # Nothing changed: no version, no write.
            version = version or versions.save_version(post=post, saved_by=editor)
            try:
                saved = posts.update_post(post_id=post.id, revision=revision, **fields)
            except DuplicateKeyError:
                continue
            if saved is None:
                raise PostError(STALE_EDIT, code="stale")
            return saved
        raise taken
    except PostError:
        if version is not None:
            versions.drop_version(version_id=version.id)
        raise


def edit_post(
    *,
    post: Post,
    revision: int,
    editor: str,
    title: str,
    slug: str,
    content: str,
    tags: tuple[str, ...],
    status: str,
    publish_at: datetime | None,
    excerpt: str,
    language: str | None = None,
    cover: str = "",
    now: datetime | None = None,
) -> Post:
    """Save an editor's changes to `post` (as opened at `revision`), keeping the
    previous version; its language stays as it is unless given. PostError for a
    slug another post has, or for a post someone else saved since it was opened."""
    state, published = schedule(wanted=status, publish_at=publish_at, now=now or datetime.now(timezone.utc))
    changes = {
        "title": title, "content": content, "excerpt": excerpt, "tags": tags, "status": state,
        "published": published, "language": language or post.language, "cover": cover,
    }
    return _save(
        post=post, revision=revision, editor=editor, changes=changes,
        slugs=[slug] if slug else slug_candidates(title),
        taken=PostError(SLUG_TAKEN, code="slug_taken", field="slug"),
    )


def restore_version(*, post: Post, version: Version, editor: str) -> Post:
    """Put back a version's title, slug, content, excerpt, tags, language and cover image
    (so the images it showed come back with its text), keeping the
    current one as a version. Whether and when the post is published stays as it is now."""
    changes = {
        "title": version.title, "content": version.content, "excerpt": version.excerpt, "tags": version.tags,
        "language": version.language, "cover": version.cover,
    }
    return _save(
        post=post, revision=post.revision, editor=editor, changes=changes, slugs=[version.slug],
        taken=PostError(RESTORE_SLUG_TAKEN, code="slug_taken"),
    )
