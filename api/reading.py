"""What the API's read endpoints answer, as plain data: a discussion, a page of its
comments, one comment with its ancestors and replies, and comment counts for many
posts. No request in sight: the caller passes the discussion and the viewer.

Every listing comes from comments.rest's listings, the functions the HTML pages draw
from, so the API shows exactly the comments the pages show, in the same order, on the
same pages, with the same cursors, and hides what they hide (`present`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

from django.http import Http404
from django.urls import reverse

from comments.api import Comment, Discussion, comments_closed, get_host
from comments.rest import (
    VIEWS, Listing, Shown, Viewer, comment_settings, list_comments, parse_view, readers_tally, thread_of,
)

# What the markup hooks call votes (data-score, data-votes-up, data-votes-down): a
# comment record that carries them (the votes feature) has them in the API too.
VOTE_FIELDS = ("score", "votes_up", "votes_down")


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=timezone.utc)


def votes_of(comment: Comment) -> dict[str, int] | None:
    """The comment's votes, when its record carries them; None otherwise."""
    found = {name: getattr(comment, name) for name in VOTE_FIELDS if getattr(comment, name, None) is not None}
    return found or None


def comment_data(shown: Shown, *, post_slug: str, viewer: Viewer) -> dict[str, Any]:
    """One comment as `present` lets this viewer see it. A placeholder keeps its
    place and nothing else; the Markdown source goes only to whoever may see it on the
    site: its author while they may still edit it, and editors."""
    comment = shown.comment
    whole = not shown.placeholder
    return {
        "slug": comment.slug,
        "full_slug": comment.full_slug,
        "parent": comment.parent_slug,
        "depth": comment.depth,
        "indent": shown.indent,
        "posted": _utc(comment.posted),
        "edited": _utc(comment.edited) if whole else None,
        "author": comment.author.name if whole else None,
        "staff": shown.staff if whole else False,
        "html": comment.html if whole else "",
        "text": comment.text if whole and (shown.can_change or viewer.editor) else None,
        "placeholder": not whole,
        "placeholder_text": str(shown.placeholder) if shown.placeholder else None,
        "awaiting_moderation": shown.awaiting,
        "can_change": shown.can_change,
        "reply_to": str(shown.reply_to) if shown.reply_to else None,
        "continue_thread": shown.continue_thread,
        "locked": shown.locked,
        "slow_seconds": shown.slow_seconds,
        "url": reverse("comments:permalink", args=[post_slug, comment.slug]),
        "votes": votes_of(comment),
    }


def views_available() -> list[dict[str, str]]:
    """The site's views (orders) as the view registry lists them now: a view added to
    `VIEWS` (best and top, with votes) appears here with no change to the API."""
    return [{"name": name, "label": str(label)} for name, label in VIEWS.items()]


def discussion_data(post: Discussion) -> dict[str, Any]:
    """A post's discussion: its comment count, whether it is closed, the views."""
    return {
        "post": post.slug,
        "title": post.title,
        "url": post.get_absolute_url(),
        "comment_count": post.comment_count,
        "closed": comments_closed(discussion=post),
        "views": views_available(),
        "per_page": comment_settings().per_page,
        "comments": reverse("api:comments", args=[post.slug]),
    }


def listing_data(listing: Listing, *, post_slug: str, viewer: Viewer) -> dict[str, Any]:
    """A page of comments with what leads to the pages beside it (the HTML pages'
    cursors: `?after=<next>`, `?before=<prev>`, or `?page=N`)."""
    return {
        "view": listing.view,
        "page": listing.number,
        "num_pages": listing.num_pages,
        "total": listing.total,
        "comment_count": listing.comment_count,
        "next": listing.next_cursor,
        "prev": listing.prev_cursor,
        "continued_from": listing.continued_from,
        "comments": [comment_data(item, post_slug=post_slug, viewer=viewer) for item in listing.shown],
    }


def comments_page(
    *, post: Discussion, view: str | None, viewer: Viewer, page: str | None = None, after: str | None = None,
    before: str | None = None,
) -> dict[str, Any]:
    """One page of a discussion in one view, as the discussion page lists it for this
    viewer. BadRequest for an unknown view, a malformed page or a tampered cursor;
    Http404 past the end (`list_comments`)."""
    listing = list_comments(
        discussion_id=post.id, view=parse_view(view), page=page, after=after, before=before,
        viewer=viewer, tally=readers_tally(post) if viewer.shared else None,
    )
    return listing_data(listing, post_slug=post.slug, viewer=viewer)


def comment_thread(
    *, post: Discussion, comment: Comment, viewer: Viewer, page: str | None = None, after: str | None = None,
    before: str | None = None,
) -> dict[str, Any]:
    """A comment's permalink page as data: its ancestors (root first), the comment, and
    a page of its replies (threaded, as the permalink page draws them)."""
    replies = list_comments(
        discussion_id=post.id, view="threaded", page=page, after=after, before=before, below=comment,
        viewer=viewer,
    )
    thread = thread_of(comment, viewer)
    return {
        "ancestors": [comment_data(item, post_slug=post.slug, viewer=viewer) for item in thread.ancestors],
        "comment": comment_data(thread.focus, post_slug=post.slug, viewer=viewer),
        "replies": listing_data(replies, post_slug=post.slug, viewer=viewer),
    }


def split_slugs(raw: str | None) -> list[str]:
    """The distinct post slugs of `?posts=a,b` in their order, blanks dropped."""
    seen: dict[str, None] = {}
    for part in (raw or "").split(","):
        part = part.strip()
        if part:
            seen.setdefault(part, None)
    return list(seen)


def published_by_slugs(slugs: Iterable[str]) -> dict[str, Discussion]:
    """The published discussions among `slugs`, by slug: the host's
    `published_by_slugs` hook (one query) when it has one, else one look-up each."""
    host = get_host()
    wanted = list(slugs)
    finder = getattr(host, "published_by_slugs", None)
    if finder is not None:
        return {post.slug: post for post in finder(wanted)}
    found = {}
    for slug in wanted:
        try:
            found[slug] = host.published_or_404(slug)
        except Http404:
            continue
    return found


def counts(slugs: list[str]) -> dict[str, Any]:
    """The comment count of each published post among `slugs` (readers' count, as the
    list pages show it); a slug that names no published post is null."""
    found = published_by_slugs(slugs)
    return {"counts": {slug: (found[slug].comment_count if slug in found else None) for slug in slugs}}
