"""What one page of comments shows: which comments, how deep each is drawn, and
the links to other pages; and the pages of the views ordered by a sort key (threaded,
newest, chronological: records.ORDERS), `list_ordered`. Plain functions over the
store; no request in sight. Which function lists which view is
comments/reading/listers.py's table (the ranked views build on this module:
comments/reading/ranked.py)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

from bson import ObjectId
from django.core.exceptions import BadRequest
from django.core.paginator import Paginator
from django.http import Http404
from django.utils.text import Truncator
from django.utils.translation import gettext, gettext_lazy as _, gettext_noop

from comments import conf, slugs
from comments.host import MemberPicture
from comments.moderation import branches
from comments.posting import services
from comments.reading import avatars, branch_marks, cursors, cut_counts
from comments.records import DELETED, ORDERS, PENDING, READERS, SPAM, Comment, CommentAuthor, Tally, Viewer
from comments.stores import get_store
from infra.frozen import evolved
from infra.html_text import html_text
from infra.pagination import get_page

BAD_VIEW = gettext_noop("Unknown view: choose threaded, newest, chronological, best or top.")
NO_MORE = gettext_noop("There are no more comments this way.")
# What stands in for a comment that is not shown but whose replies are.
PLACEHOLDERS = {DELETED: _("[deleted]"), SPAM: _("[removed]"), PENDING: _("[awaiting moderation]")}
# The words of a parent on an earlier page that a reply opening a page quotes.
EXCERPT_WORDS = 12


@dataclass(frozen=True)
class Shown:
    """A comment as placed on a page, for one viewer."""

    comment: Comment
    indent: int = 0
    # At the indent limit with replies after it: offer its permalink page.
    continue_thread: bool = False
    # "[deleted]" (or another PLACEHOLDERS text) when only its place is shown; then
    # `comment` carries no text and no author.
    placeholder: str = ""
    # Pending, shown to its author or an editor with a notice.
    awaiting: bool = False
    # Its author, looking, may still edit or delete it.
    can_change: bool = False
    # A reply: its parent's author name as this viewer may see it (or the parent's
    # placeholder, "[deleted]"); "" when the parent cannot be found. `reply_to_anchor`:
    # the parent's anchor when it is drawn on the same page (else link its permalink).
    reply_to: str = ""
    reply_to_anchor: str = ""
    # Its parent is on another page (a threaded page that opens mid-thread): the start
    # of the parent's text, for "Reply to <name>: <excerpt>" ("" for a placeholder).
    parent_off_page: bool = False
    reply_excerpt: str = ""
    # How many replies its "Continue this thread" link leads to (comments/reading/thread_cuts.py).
    waiting: int = 0
    # Written by one of the site's staff (authors, editors): it carries a badge.
    staff: bool = False
    # Its net score is at or below COMMENTS_FOLD_SCORE: its text is behind a "show" control.
    folded: bool = False
    # Its author's picture (comments/reading/pictures.py; None: their initials).
    picture: MemberPicture | None = None
    # An editor locked its branch (no new reply below it), or slowed it: one comment per
    # commenter per `slow_seconds` (comments/moderation/branches.py; reading/branch_marks.py).
    locked: bool = False
    slow_seconds: int = 0
    # Its replies drawn after it on this page, which a reader may collapse, and how many
    # such groups end after it (comments/reading/collapsing.py).
    replies_here: int = 0
    closes: int = 0

    @property
    def closing(self) -> range:
        return range(self.closes)

    @property
    def avatar(self) -> avatars.Avatar | None:
        """Its author's avatar, if a member wrote it (none for a placeholder)."""
        if self.placeholder:
            return None
        return avatars.avatar_for(user_id=self.comment.author.id, name=self.comment.author.name,
                                  picture=self.picture)

    @property
    def parent_anchor(self) -> str:
        return slugs.anchor(self.comment.parent_slug) if self.comment.parent_slug else ""


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
    # The page opens inside a thread that continues below the indent limit: the slug
    # of the comment at the limit whose permalink page holds them (see `place`).
    continued_from: str | None = None
    # How many replies `continued_from`'s link leads to (comments/reading/thread_cuts.py).
    continued_waiting: int = 0
    # Page 2 of a view paged by cursor alone (best, top): its Previous is the first page.
    previous_is_first: bool = False


@dataclass(frozen=True)
class Thread:
    """A comment's permalink page, for one viewer: the comment and its ancestors
    (root first), each with the name of the comment it answers."""

    focus: Shown
    ancestors: list[Shown]


@dataclass(frozen=True)
class Location:
    """Where a comment is drawn for a viewer: page `page` of the threaded discussion
    (`holder` None) or of the replies on the permalink page of `holder`, the comment
    at the indent limit above it."""

    holder: Comment | None
    page: int


def present(comment: Comment, viewer: Viewer, *, now: datetime | None = None, **placing: Any) -> Shown:
    """`comment` as `viewer` may see it. A hidden comment shown only for its place
    (a placeholder, or an ancestor of the viewer's own pending reply) loses its text
    and author; what is for moderation only (e-mail, IP) never reaches a page."""
    if not viewer.sees_whole(comment):
        blank = replace(
            comment, text="", html="", author=CommentAuthor(id=None, name=""), ip=None, form_key=None
        )
        return Shown(blank, placeholder=placeholder_of(comment), **placing)
    public = comment.for_readers()
    fold = conf.get().fold_score
    return Shown(
        public, awaiting=comment.status == PENDING, staff=comment.author.staff,
        folded=bool(fold) and comment.score <= fold and not comment.picked,
        can_change=services.can_change(comment, viewer, now or datetime.now(timezone.utc)), **placing,
    )


def placeholder_of(comment: Comment) -> str:
    """What stands in for `comment` where only its place is shown ("[deleted]")."""
    return PLACEHOLDERS.get(comment.status, PLACEHOLDERS[DELETED])


def place(
    comments: list[Comment], *, view: str, base_depth: int = 0, next_slug: str | None = None,
    viewer: Viewer = READERS,
) -> list[Shown]:
    """Indent threaded views by depth below `base_depth`, up to the indent limit.

    The indent limit is a boundary: a comment at the limit with replies offers
    "Continue this thread" to its permalink page, and the replies below it are not
    drawn here (they are left out of the result; see `list_ordered`), but counted
    when they all are among `comments` (`Shown.waiting`; comments/reading/cut_counts.py).
    `next_slug` is the slug of the comment that opens the next page, if known, so a
    comment at the limit whose reply starts the next page still offers its thread.
    """
    limit = conf.get().indent_limit
    now = datetime.now(timezone.utc)
    following = [c.slug for c in comments[1:]] + [next_slug]
    shown = []
    for comment, after in zip(comments, following):
        if view == "chronological":
            shown.append(present(comment, viewer, now=now))
            continue
        level = comment.depth - base_depth
        if level > limit:
            continue
        has_reply_next = after is not None and slugs.parent_slug(after) == comment.slug
        cut = level == limit and has_reply_next
        shown.append(present(
            comment, viewer, now=now, indent=level, continue_thread=cut,
            waiting=cut_counts.replies_on_page(comment.slug, comments, next_slug=next_slug, viewer=viewer) if cut else 0,
        ))
    return shown


def boundary_slug(slug: str, *, base_depth: int = 0) -> str | None:
    """The slug of the ancestor at the indent limit (below `base_depth`) of a comment
    drawn beyond it, whose permalink page continues its thread; None if it is drawn."""
    limit = conf.get().indent_limit
    if slugs.depth(slug) - base_depth <= limit:
        return None
    return slugs.SEPARATOR.join(slug.split(slugs.SEPARATOR)[: base_depth + limit + 1])


def name_parents(
    shown: list[Shown], *, discussion_id: ObjectId, viewer: Viewer, known: Iterable[Comment] = (),
    drawn: set[str] | None = None, excerpts: bool = False,
) -> list[Shown]:
    """`shown` with each reply's parent named (`Shown.reply_to`). Parents among the
    comments drawn or `known` cost nothing; the others are fetched in one bounded
    query (at most one per comment on the page, never one query per comment). The
    name is what `present` lets this viewer see: a hidden parent gives its placeholder.
    `excerpts`: a reply whose parent is not drawn quotes the start of its text."""
    drawn = {item.comment.slug for item in shown} if drawn is None else drawn
    by_slug = {c.slug: c for c in known} | {item.comment.slug: item.comment for item in shown}
    missing = sorted({item.comment.parent_slug for item in shown if item.comment.parent_slug} - set(by_slug))
    if missing:
        by_slug |= {c.slug: c for c in get_store().find_by_slugs(discussion_id=discussion_id, slugs=missing)}
    named = []
    for item in shown:
        parent = by_slug.get(item.comment.parent_slug or "")
        if parent is None:
            named.append(item)
            continue
        whole = viewer.sees_whole(parent)
        off_page = excerpts and parent.slug not in drawn
        named.append(evolved(
            item, reply_to=parent.author.name if whole else placeholder_of(parent),
            reply_to_anchor=parent.anchor if parent.slug in drawn else "", parent_off_page=off_page,
            reply_excerpt=Truncator(html_text(parent.html if whole else "")).words(EXCERPT_WORDS) if off_page else "",
        ))
    return named


def list_ordered(
    *,
    discussion_id: ObjectId,
    view: str,
    page: str | None = None,
    after: str | None = None,
    before: str | None = None,
    below: Comment | None = None,
    viewer: Viewer = READERS,
    tally: Tally | None = None,
    opens: datetime | None = None,
) -> Listing:
    """One page of a discussion's comments in a view ordered by a sort key (or of the
    replies below one comment) as `viewer` sees them, reached by page number (`?page=`)
    or by cursor (`?after=` / `?before=`). Two commands: the tally (an aggregate) and
    the page; one when the caller knows the tally already (a reader's, stored by the
    host); one more, when the page holds replies whose parents are not on it, to name
    those parents.

    Threaded views stop at the indent limit ("Continue this thread", see `place`).
    Pages are still cut from every comment in order, so page numbers, cursors and
    the counts ("23 comments") stay those of the whole discussion: the comments
    below a boundary take their places on the page without being drawn, and a page
    that opens among them starts with a "Continue this thread" link of its own
    (`continued_from`). Every comment is drawn on exactly one page: the
    discussion's, or the replies of the permalink page of the comment at the limit
    above it, which applies the same limit again (`location_of`).

    `opens`: no later than the discussion's earliest comment (its state's), where
    page 1 may start reading when the store has no hint of where it ends.

    BadRequest for a view not ordered by a sort key, a malformed page number or a
    tampered cursor, Http404 for a page past the end.
    """
    if view not in ORDERS:
        raise BadRequest(gettext(BAD_VIEW))
    per_page = conf.get().per_page
    scope = f"{discussion_id}/{below.slug}" if below else str(discussion_id)
    if tally is None:
        tally = get_store().tally_listing(discussion_id=discussion_id, below=below, viewer=viewer)
    total = tally.total
    num_pages = max(1, -(-total // per_page))
    query: dict[str, Any] = dict(discussion_id=discussion_id, order=view, limit=per_page, below=below,
                                 viewer=viewer, opens=opens)

    if after or before:
        try:
            cursor = cursors.decode(after or before or "", view=view, scope=scope)
        except cursors.BadCursor as exc:
            raise BadRequest(str(exc)) from None
        # One comment more than a page tells whether there is another page beyond
        # and which comment opens it.
        if after:
            # About how many comments lie after the key, and (below) before it.
            rest = max(0, total - (cursor.page - 1) * per_page)
            comments = get_store().find_page(**{**query, "limit": per_page + 1}, after=cursor.key, reach=rest)
            has_next, has_prev = len(comments) > per_page, True
            comments, beyond = comments[:per_page], comments[per_page:]
            next_slug = beyond[0].slug if beyond else None
        else:
            comments = get_store().find_page(**{**query, "limit": per_page + 1}, before=cursor.key,
                                             reach=cursor.page * per_page)
            has_next, has_prev = True, len(comments) > per_page
            comments = comments[-per_page:]
            # The cursor's key is the first comment of the page we came back from.
            next_slug = slugs.slug_of(cursor.key[-1]) if view != "chronological" else None
        if not comments:
            raise Http404(gettext(NO_MORE))
        number = max(1, min(cursor.page, num_pages))
    else:
        beyond = []

        def fetch(skip: int, limit: int) -> list[Comment]:
            found = get_store().find_page(**{**query, "limit": limit + 1}, skip=skip, reach=total - skip)
            beyond[:] = found[limit:]
            return found[:limit]

        paged = get_page(total=total, fetch=fetch, raw_number=page, per_page=per_page)
        comments, number = list(paged.object_list), paged.number
        has_next, has_prev = paged.has_next(), paged.has_previous()
        next_slug = beyond[0].slug if beyond else None

    def link(comment: Comment, to: int) -> str:
        return cursors.encode(view=view, scope=scope, key=comment.key(view), page=to)

    base_depth = below.depth + 1 if below else 0
    shown = place(comments, view=view, base_depth=base_depth, next_slug=next_slug, viewer=viewer)
    on_page = {item.comment.slug for item in shown} | ({below.slug} if below else set())
    shown = name_parents(shown, discussion_id=discussion_id, viewer=viewer, known=[below] if below else [],
                         drawn=on_page, excerpts=view != "chronological")
    continued_from = None
    if comments and view != "chronological":
        continued_from = boundary_slug(comments[0].slug, base_depth=base_depth)
    return Listing(
        view=view,
        shown=shown,
        continued_from=continued_from,
        total=total,
        comment_count=tally.comments,
        number=number,
        num_pages=num_pages,
        page_range=list(Paginator(range(total), per_page).get_elided_page_range(number)),
        next_cursor=link(comments[-1], number + 1) if comments and has_next else None,
        prev_cursor=link(comments[0], max(1, number - 1)) if comments and has_prev else None,
    )


def visible_comment(*, discussion_id: ObjectId, path: str, viewer: Viewer) -> Comment | None:
    """The comment at slug path `path` of a discussion if `viewer` may see it (and open
    its page); None otherwise, and before any query for a path that is no slug path."""
    if not slugs.is_slug_path(path):
        return None
    comment = get_store().find_by_slug(discussion_id=discussion_id, slug=path)
    if comment is None or not viewer.sees(comment):
        return None
    return comment


def thread_of(comment: Comment, viewer: Viewer) -> Thread:
    """`comment` and its ancestors as `viewer` may see them, each naming the comment
    it answers, with their branches' rules: two queries (the ancestors, the rules)."""
    ancestors = get_store().find_ancestors(comment=comment)
    shown = [present(c, viewer) for c in [*ancestors, comment]]
    shown = name_parents(shown, discussion_id=comment.discussion_id, viewer=viewer, known=ancestors)
    shown = with_branch_rules(shown, discussion_id=comment.discussion_id)
    return Thread(focus=shown[-1], ancestors=shown[:-1])


def with_branch_rules(shown: list[Shown], *, discussion_id: ObjectId,
                      rules: list[branches.Rule] | None = None) -> list[Shown]:
    """`shown` with each comment's `locked` and `slow_seconds` as its branch's rules say."""
    found = branch_marks.effects([item.comment.full_slug for item in shown], discussion_id=discussion_id,
                                 rules=rules)
    if found is None:
        return shown
    return [replace(item, locked=e.locked, slow_seconds=e.slow_seconds) for item, e in zip(shown, found)]


def location_of(comment: Comment, viewer: Viewer = READERS) -> Location:
    """Where `comment` is drawn for `viewer`: on a page of the threaded discussion,
    or, below the indent limit, on a page of the replies of the permalink page of
    its ancestor at the last boundary above it (boundaries fall at depths limit,
    2 * limit + 1, ...: each permalink page draws `limit + 1` levels)."""
    step = conf.get().indent_limit + 1
    holder_depth = comment.depth // step * step - 1
    if holder_depth < 0:
        return Location(holder=None, page=page_of(comment, viewer))
    holder_slug = slugs.SEPARATOR.join(comment.slug.split(slugs.SEPARATOR)[: holder_depth + 1])
    holder = get_store().find_by_slug(discussion_id=comment.discussion_id, slug=holder_slug)
    if holder is None:
        return Location(holder=None, page=page_of(comment, viewer))
    earlier = get_store().count_before(
        discussion_id=comment.discussion_id, order="threaded", key=comment.key("threaded"), below=holder,
        viewer=viewer,
    )
    return Location(holder=holder, page=earlier // conf.get().per_page + 1)


def page_of(comment: Comment, viewer: Viewer = READERS) -> int:
    """The threaded page of the whole discussion on which `comment` appears for `viewer`."""
    earlier = get_store().count_before(
        discussion_id=comment.discussion_id, order="threaded", key=comment.key("threaded"), viewer=viewer
    )
    return earlier // conf.get().per_page + 1
