"""What one page of comments shows: which comments, how deep each is drawn, and
the links to other pages. Plain functions over the store; no request in sight.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timezone

from django.conf import settings
from django.core.exceptions import BadRequest
from django.core.paginator import Paginator
from django.http import Http404
from pymongo.errors import PyMongoError

from cms import mongo
from cms.pagination import get_page
from comments import cursors, services, slugs, store
from comments.store import DELETED, HIDDEN, PENDING, READERS, SPAM, Comment, CommentAuthor, Tally, Viewer

VIEWS = {
    "threaded": "Threaded",
    "newest": "Newest threads first",
    "chronological": "Oldest first",
}
BAD_VIEW = "Unknown view: choose threaded, newest or chronological."
NO_MORE = "There are no more comments this way."
# The stylesheet has indent classes up to this many levels.
INDENT_CEILING = 8
# What stands in for a comment that is not shown but whose replies are.
PLACEHOLDERS = {DELETED: "[deleted]", SPAM: "[removed]", PENDING: "[awaiting moderation]"}


@dataclass(frozen=True)
class Shown:
    """A comment as placed on a page, for one viewer."""

    comment: Comment
    indent: int = 0
    # Drawn at the indent limit while it nests deeper: the text keeps its width.
    capped: bool = False
    # At the indent limit with replies after it: offer its permalink page.
    continue_thread: bool = False
    # "[deleted]" (or another PLACEHOLDERS text) when only its place is shown; then
    # `comment` carries no text and no author.
    placeholder: str = ""
    # Pending, shown to its author or an editor with a notice.
    awaiting: bool = False
    # Its author, looking, may still edit or delete it.
    can_change: bool = False


@dataclass(frozen=True)
class Listing:
    view: str
    shown: list[Shown]
    # Entries listed (pages are cut from these), and of them the comments (not placeholders).
    total: int
    comment_count: int
    number: int
    num_pages: int
    page_range: list
    next_cursor: str | None
    prev_cursor: str | None


def indent_limit() -> int:
    return max(0, min(settings.COMMENTS_INDENT_LIMIT, INDENT_CEILING))


def can_see(comment: Comment, viewer: Viewer) -> bool:
    """Whether `viewer` may open this comment's page: it is approved, stands as a
    placeholder for its replies, or is pending and theirs (or they are an editor)."""
    if comment.status not in HIDDEN or comment.placeholder:
        return True
    return comment.status == PENDING and (viewer.editor or services.is_own(comment, viewer))


def present(comment: Comment, viewer: Viewer, *, now: datetime | None = None, **placing) -> Shown:
    """`comment` as `viewer` may see it. A hidden comment shown only for its place
    (a placeholder, or an ancestor of the viewer's own pending reply) loses its text
    and author; what is for moderation only (e-mail, IP) never reaches a page."""
    hidden = comment.status in HIDDEN
    whole = not store.is_placeholder_for(viewer, status=comment.status, placeholder=comment.placeholder) and (
        not hidden or (comment.status == PENDING and (viewer.editor or services.is_own(comment, viewer)))
    )
    if not whole:
        blank = replace(
            comment, text="", html="", author=CommentAuthor(id=None, name=""), ip=None, form_key=None
        )
        return Shown(blank, placeholder=PLACEHOLDERS.get(comment.status, PLACEHOLDERS[DELETED]), **placing)
    public = replace(comment, author=replace(comment.author, email=""), ip=None, form_key=None)
    return Shown(
        public, awaiting=comment.status == PENDING,
        can_change=services.can_change(comment, viewer, now or datetime.now(timezone.utc)), **placing,
    )


def place(
    comments: list[Comment], *, view: str, base_depth: int = 0, next_slug: str | None = None,
    viewer: Viewer = READERS,
) -> list[Shown]:
    """Indent threaded views by depth below `base_depth`, up to the indent limit.

    `next_slug` is the slug of the comment that opens the next page, if known, so a
    comment at the limit whose reply starts the next page still offers its thread.
    """
    limit = indent_limit()
    now = datetime.now(timezone.utc)
    following = [c.slug for c in comments[1:]] + [next_slug]
    shown = []
    for comment, after in zip(comments, following):
        if view == "chronological":
            shown.append(present(comment, viewer, now=now))
            continue
        level = comment.depth - base_depth
        has_reply_next = after is not None and slugs.parent_slug(after) == comment.slug
        shown.append(present(
            comment, viewer, now=now,
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
    viewer: Viewer = READERS,
    tally: Tally | None = None,
) -> Listing:
    """One page of a discussion's comments (or of the replies below one comment) as
    `viewer` sees them, reached by page number (`?page=`) or by cursor (`?after=` /
    `?before=`). Two commands: the tally (an aggregate) and the page; one when the
    caller knows the tally already (a reader's, stored on the post).

    BadRequest for a malformed page number or a tampered cursor, Http404 for a page
    past the end.
    """
    per_page = settings.COMMENTS_PER_PAGE
    scope = f"{discussion_id}/{below.slug}" if below else str(discussion_id)
    if tally is None:
        tally = store.tally(discussion_id=discussion_id, below=below, viewer=viewer)
    total = tally.total
    num_pages = max(1, -(-total // per_page))
    query = dict(discussion_id=discussion_id, order=view, limit=per_page, below=below, viewer=viewer)

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
        shown=place(comments, view=view, base_depth=below.depth + 1 if below else 0, next_slug=next_slug,
                    viewer=viewer),
        total=total,
        comment_count=tally.comments,
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


def page_of(comment: Comment, viewer: Viewer = READERS) -> int:
    """The threaded page of the whole discussion on which `comment` appears for `viewer`."""
    earlier = store.count_before(
        discussion_id=comment.discussion_id, order="threaded", key=comment.key("threaded"), viewer=viewer
    )
    return earlier // settings.COMMENTS_PER_PAGE + 1
