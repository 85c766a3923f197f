"""What one page of comments shows: which comments, how deep each is drawn, and
the links to other pages. Plain functions over the store; no request in sight.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import BadRequest
from django.core.paginator import Paginator
from django.http import Http404
from pymongo.errors import PyMongoError

from cms import mongo
from cms.pagination import get_page
from comments import cursors, slugs, store
from comments.store import Comment

VIEWS = {
    "threaded": "Threaded",
    "newest": "Newest threads first",
    "chronological": "Oldest first",
}
BAD_VIEW = "Unknown view: choose threaded, newest or chronological."
NO_MORE = "There are no more comments this way."
# The stylesheet has indent classes up to this many levels.
INDENT_CEILING = 8


@dataclass(frozen=True)
class Shown:
    """A comment as placed on a page."""

    comment: Comment
    indent: int
    # Drawn at the indent limit while it nests deeper: the text keeps its width.
    capped: bool
    # At the indent limit with replies after it: offer its permalink page.
    continue_thread: bool


@dataclass(frozen=True)
class Listing:
    view: str
    shown: list[Shown]
    total: int
    number: int
    num_pages: int
    page_range: list
    next_cursor: str | None
    prev_cursor: str | None


def indent_limit() -> int:
    return max(0, min(settings.COMMENTS_INDENT_LIMIT, INDENT_CEILING))


def place(
    comments: list[Comment], *, view: str, base_depth: int = 0, next_slug: str | None = None
) -> list[Shown]:
    """Indent threaded views by depth below `base_depth`, up to the indent limit.

    `next_slug` is the slug of the comment that opens the next page, if known, so a
    comment at the limit whose reply starts the next page still offers its thread.
    """
    limit = indent_limit()
    following = [c.slug for c in comments[1:]] + [next_slug]
    shown = []
    for comment, after in zip(comments, following):
        if view == "chronological":
            shown.append(Shown(comment, indent=0, capped=False, continue_thread=False))
            continue
        level = comment.depth - base_depth
        has_reply_next = after is not None and slugs.parent_slug(after) == comment.slug
        shown.append(Shown(
            comment,
            indent=min(level, limit),
            capped=level > limit,
            continue_thread=level == limit and has_reply_next,
        ))
    return shown


def parse_view(raw: str | None) -> str:
    view = raw or "threaded"
    if view not in VIEWS:
        raise BadRequest(BAD_VIEW)
    return view


def list_comments(
    *,
    discussion_id,
    view: str,
    page: str | None = None,
    after: str | None = None,
    before: str | None = None,
    below: Comment | None = None,
) -> Listing:
    """One page of a discussion's comments (or of the replies below one comment),
    reached by page number (`?page=`) or by cursor (`?after=` / `?before=`).

    BadRequest for a malformed page number or a tampered cursor, Http404 for a page
    past the end.
    """
    per_page = settings.COMMENTS_PER_PAGE
    scope = f"{discussion_id}/{below.slug}" if below else str(discussion_id)
    total = store.count(discussion_id=discussion_id, below=below)
    num_pages = max(1, -(-total // per_page))
    query = dict(discussion_id=discussion_id, order=view, limit=per_page, below=below)

    if after or before:
        try:
            cursor = cursors.decode(after or before, view=view, scope=scope)
        except cursors.BadCursor as exc:
            raise BadRequest(str(exc)) from None
        # One comment more than a page tells whether there is another page beyond
        # and which comment opens it.
        if after:
            comments = store.find_page(**{**query, "limit": per_page + 1}, after=cursor.key)
            has_next, has_prev = len(comments) > per_page, True
            comments, beyond = comments[:per_page], comments[per_page:]
            next_slug = beyond[0].slug if beyond else None
        else:
            comments = store.find_page(**{**query, "limit": per_page + 1}, before=cursor.key)
            has_next, has_prev = True, len(comments) > per_page
            comments = comments[-per_page:]
            # The cursor's key is the first comment of the page we came back from.
            next_slug = slugs.slug_of(cursor.key[-1]) if view != "chronological" else None
        if not comments:
            raise Http404(NO_MORE)
        number = max(1, min(cursor.page, num_pages))
    else:
        beyond = []

        def fetch(skip: int, limit: int) -> list[Comment]:
            found = store.find_page(**{**query, "limit": limit + 1}, skip=skip)
            beyond[:] = found[limit:]
            return found[:limit]

        paged = get_page(total=total, fetch=fetch, raw_number=page, per_page=per_page)
        comments, number = list(paged.object_list), paged.number
        has_next, has_prev = paged.has_next(), paged.has_previous()
        next_slug = beyond[0].slug if beyond else None

    def link(comment: Comment, to: int) -> str:
        return cursors.encode(view=view, scope=scope, key=comment.key(view), page=to)

    return Listing(
        view=view,
        shown=place(comments, view=view, base_depth=below.depth + 1 if below else 0, next_slug=next_slug),
        total=total,
        number=number,
        num_pages=num_pages,
        page_range=list(Paginator(range(total), per_page).get_elided_page_range(number)),
        next_cursor=link(comments[-1], number + 1) if comments and has_next else None,
        prev_cursor=link(comments[0], max(1, number - 1)) if comments and has_prev else None,
    )


def list_comments_if_available(**query) -> Listing | None:
    """`list_comments`, or None while MongoDB is unreachable or over its budget (the
    page then says that comments are unavailable instead of failing whole)."""
    try:
        return list_comments(**query)
    except PyMongoError as exc:
        if not mongo.is_outage(exc):
            raise
        return None


def page_of(comment: Comment) -> int:
    """The threaded page of the whole discussion on which `comment` appears."""
    earlier = store.count_before(discussion_id=comment.discussion_id, order="threaded", key=comment.key("threaded"))
    return earlier // settings.COMMENTS_PER_PAGE + 1
