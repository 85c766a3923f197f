"""The rules of commenting: where a reply attaches, how slugs are drawn, and how a
post's comment summary is kept right. Plain functions; no request in sight."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

from bson import ObjectId
from django.conf import settings

from cms import posts
from cms.markup import render_comment
from comments import slugs, store
from comments.store import Comment, CommentAuthor

PARENT_NOT_FOUND = "The comment you replied to does not exist on this post."
SLUG_RETRIES = 5
LATEST_COUNT = 3
EXCERPT_LENGTH = 140
SUMMARY_ROUNDS = 5


class CommentError(Exception):
    """A comment that cannot be posted; the message is for the reader."""

    def __init__(self, message: str, code: str):
        super().__init__(message)
        self.message, self.code = message, code


@dataclass(frozen=True)
class Posted:
    comment: Comment
    # The reply was attached higher up than asked because the thread is at its depth limit.
    reattached: bool
    # The same form was submitted before: this is the comment that submit stored.
    duplicate: bool = False


def max_depth() -> int:
    """COMMENTS_MAX_DEPTH, bounded so full_slug stays well under 1 KB."""
    return max(0, min(settings.COMMENTS_MAX_DEPTH, slugs.DEPTH_CEILING - 1))


def _to_millisecond(moment: datetime) -> datetime:
    """`moment` at BSON's millisecond precision, as MongoDB stores it."""
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def find_parent(*, discussion_id: ObjectId, parent_slug: str) -> Comment:
    """The comment a reply names, or CommentError if it is malformed or elsewhere."""
    if not slugs.is_slug_path(parent_slug):
        raise CommentError(PARENT_NOT_FOUND, code="bad_parent")
    parent = store.find_by_slug(discussion_id=discussion_id, slug=parent_slug)
    if parent is None:
        raise CommentError(PARENT_NOT_FOUND, code="bad_parent")
    return parent


def _attach_point(parent: Comment) -> tuple[Comment, bool]:
    """Where a reply to `parent` goes: under it, or under the ancestor that keeps the
    reply at the deepest allowed level."""
    limit = max_depth()
    if parent.depth < limit:
        return parent, False
    if limit == 0:
        return None, True
    slug = slugs.ancestor_slugs(parent.slug)[limit - 1]
    return store.find_by_slug(discussion_id=parent.discussion_id, slug=slug), True


def post_comment(
    *,
    post: posts.Post,
    text: str,
    author: CommentAuthor,
    parent_slug: str | None = None,
    form_key: str | None = None,
    at: datetime | None = None,
    new_part: Callable[[], str] = slugs.new_part,
    summarise: bool = True,
) -> Posted:
    """Store a comment (or a reply to `parent_slug`) on `post` and refresh the post's
    comment summary. Raises CommentError for a parent that is not on this post.

    With a `form_key` (from the form's token) posting is idempotent: the slug is
    derived from the key, so a second submit of the same form finds the first
    comment in the unique slug index and returns it (`duplicate=True`).
    `at` backdates the comment and `new_part` draws random slug parts (demo content
    and tests); bulk loaders pass `summarise=False` and call `refresh_summary` once.
    """
    parent, reattached = None, False
    if parent_slug:
        parent, reattached = _attach_point(find_parent(discussion_id=post.id, parent_slug=parent_slug))
    fields = dict(discussion_id=post.id, parent=parent, author=author, text=text,
                  html=render_comment(text), form_key=form_key)
    for attempt in range(SLUG_RETRIES):
        part = slugs.derived_part(form_key, attempt) if form_key else new_part()
        # full_slug keeps the microseconds, so replies within one millisecond
        # still sort in time order; `posted` is stored at BSON's precision.
        now = at or datetime.now(timezone.utc)
        if parent is None:
            slug, full_slug = slugs.root_slugs(posted=now, part=part)
        else:
            slug, full_slug = slugs.child_slugs(
                parent_slug=parent.slug, parent_full_slug=parent.full_slug, posted=now, part=part
            )
        try:
            comment = store.insert_comment(slug=slug, full_slug=full_slug, posted=_to_millisecond(now), **fields)
            duplicate = False
            break
        except store.SlugTaken:
            earlier = store.find_by_slug(discussion_id=post.id, slug=slug) if form_key else None
            if earlier is not None and earlier.form_key == form_key:
                comment, duplicate = earlier, True
                break
    else:  # pragma: no cover - 5 collisions in a row at 40 bits do not happen
        raise RuntimeError("could not draw a free comment slug")
    if summarise:
        # Also after a duplicate: the first submit may have failed before this step.
        refresh_summary(post_id=post.id)
    return Posted(comment=comment, reattached=reattached, duplicate=duplicate)


def excerpt(text: str, length: int = EXCERPT_LENGTH) -> str:
    """The start of a comment's text on one line, cut at a word."""
    flat = " ".join(text.split())
    if len(flat) <= length:
        return flat
    return flat[:length].rsplit(" ", 1)[0] + "…"


def refresh_summary(*, post_id: ObjectId) -> int:
    """Recompute a post's comment count and latest comments from the comments
    themselves and store them on the post (the subset pattern).

    Recomputing, rather than `$inc` and `$push` with `$slice`, keeps the summary
    right on FerretDB v1, which ignores `$slice` in `$push` and can lose one of two
    concurrent updates of a document. A writer whose summary was overtaken by a
    concurrent one sees the stored count disagree with the real one and goes again,
    so the last writer leaves it right. Returns the count.
    """
    for _ in range(SUMMARY_ROUNDS):
        count = store.count(discussion_id=post_id)
        latest = [
            posts.LatestComment(slug=c.slug, author_name=c.author.name, posted=c.posted, excerpt=excerpt(c.text))
            for c in store.find_latest(discussion_id=post_id, limit=LATEST_COUNT)
        ]
        posts.set_comment_summary(post_id=post_id, count=count, latest=latest)
        if store.count(discussion_id=post_id) == count:
            return count
    return count
