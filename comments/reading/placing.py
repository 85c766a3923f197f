"""Where a comment just posted belongs in the page a reader has open: the server's
answer, so that the page's script holds no rule of its own (see static/js/posting.js).

The script sends the address of the page it shows. From it come the view the reader
reads (the post page without `?page=` and a discussion page without `?view=` open on
COMMENTS_DEFAULT_VIEW; the post page with `?page=` is threaded; a permalink page lists
the replies below its comment, threaded) and the page number (1 unless `?page=` says
otherwise). The comment's page in that view is counted (one indexed count) and drawn
(one page of comments, as any reader's page is); the answer names the comment it
follows there (for a comment that opens its page, the last one drawn on the page
before: one more page read), so the script inserts it right after that one, if the
reader's page shows that one. The ranked views (best, top) number no pages: there the
comment is looked for on the first page, and a reply whose thread that page does not
show follows the comment before it in its thread (on whichever page shows the thread).
Plain functions over the store; no request in sight.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from django.core.exceptions import BadRequest
from django.http import Http404
from django.urls import reverse

from comments import conf, slugs
from comments.host import Discussion
from comments.reading import listers, listings
from comments.records import RANKED_ORDERS, Comment, Viewer
from comments.stores import get_store


@dataclass(frozen=True)
class Reading:
    """What the reader's page lists: `view` of the discussion or of the replies
    `below` one comment, page `page` (None: opened by a cursor, number unknown)."""

    view: str
    page: int | None
    below: Comment | None = None


@dataclass(frozen=True)
class Placement:
    """The comment as the reader's view draws it (`item`, None when that view does not
    draw it: below the indent limit), the anchor of the comment before it on its
    page (`after`; "" when it opens the page) and that page's number (`page`)."""

    item: listings.Shown | None
    after: str
    page: int
    first_in_view: bool

    def fits(self, reading: Reading | None) -> bool:
        """Whether the comment can go straight into the reader's page: after a comment
        the page may show, or first in a view the reader reads from its first page."""
        if self.item is None or reading is None:
            return False
        return bool(self.after) or (self.first_in_view and reading.page == 1)


def reading_of(*, post: Discussion, address: str) -> Reading | None:
    """What the page at `address` lists, if it is one of `post`'s pages of comments."""
    try:
        parts = urlsplit(address)
    except ValueError:
        return None
    query = parse_qs(parts.query)
    number = _page_number(query)
    discussion = reverse("comments:discussion", args=[post.slug])
    if parts.path == post.get_absolute_url():
        # As comments/reading/sections.py draws the post page: `?page=N` is of the threaded view.
        return Reading(view="threaded" if "page" in query else listers.default_view(), page=number)
    if parts.path == discussion:
        view = (query.get("view") or [listers.default_view()])[0]
        return Reading(view=view, page=number) if view in listers.VIEWS else None
    if parts.path.startswith(discussion):
        path = parts.path[len(discussion):].strip("/")
        if not slugs.is_slug_path(path):
            return None
        below = get_store().find_by_slug(discussion_id=post.id, slug=path)
        return Reading(view="threaded", page=number, below=below) if below is not None else None
    return None


def _page_number(query: dict) -> int | None:
    if query.get("after") or query.get("before"):
        return None
    raw = (query.get("page") or ["1"])[0]
    return int(raw) if re.fullmatch(r"[0-9]{1,6}", raw) and int(raw) > 0 else None


def place(*, comment: Comment, viewer: Viewer, reading: Reading) -> Placement:
    """Where `comment` is drawn for `viewer` in the view `reading` names."""
    if reading.below is not None and not comment.slug.startswith(reading.below.slug + slugs.SEPARATOR):
        return Placement(item=None, after="", page=1, first_in_view=False)
    if reading.below is None and reading.view in RANKED_ORDERS:
        return _place_ranked(comment=comment, viewer=viewer, view=reading.view)
    earlier = get_store().count_before(
        discussion_id=comment.discussion_id, order=reading.view, key=comment.key(reading.view),
        below=reading.below, viewer=viewer,
    )
    number = earlier // conf.get().per_page + 1
    try:
        listing = listers.list_comments(
            discussion_id=comment.discussion_id, view=reading.view, page=str(number), below=reading.below,
            viewer=viewer,
        )
    except (BadRequest, Http404):
        return Placement(item=None, after="", page=number, first_in_view=False)
    found = _after_in(listing.shown, comment)
    if found is None:
        return Placement(item=None, after="", page=number, first_in_view=False)
    item, after = found
    if not after:
        after = _last_drawn(comment=comment, viewer=viewer, reading=reading, page=number - 1)
    return Placement(item=item, after=after, page=number, first_in_view=earlier == 0)


def _place_ranked(*, comment: Comment, viewer: Viewer, view: str) -> Placement:
    """Where a ranked view (comments/reading/ranked.py, paged by cursor only) draws `comment`:
    on its first page, or for a reply in a thread that page does not show, after the
    comment before it in its thread (drawn as the ranked pages draw a thread)."""
    shown = listers.list_comments(discussion_id=comment.discussion_id, view=view, viewer=viewer).shown
    found = _after_in(shown, comment)
    if found is not None:
        return Placement(item=found[0], after=found[1], page=1, first_in_view=not found[1])
    if comment.parent_id is None or any(item.comment.thread == comment.thread for item in shown):
        return Placement(item=None, after="", page=1, first_in_view=False)
    thread = get_store().find_threads(discussion_id=comment.discussion_id, threads={comment.thread},
                                      viewer=viewer, limit=conf.get().per_page * 2)
    drawn = listings.place(sorted(thread, key=lambda c: c.full_slug), view="threaded", viewer=viewer)
    found = _after_in(drawn, comment)
    if found is None or not found[1]:
        return Placement(item=None, after="", page=1, first_in_view=False)
    return Placement(item=found[0], after=found[1], page=1, first_in_view=False)


def _after_in(shown: list[listings.Shown], comment: Comment) -> tuple[listings.Shown, str] | None:
    """`comment` as `shown` draws it and the anchor of the one drawn before it ("": none)."""
    for index, item in enumerate(shown):
        if item.comment.id == comment.id:
            return item, shown[index - 1].comment.anchor if index else ""
    return None


def _last_drawn(*, comment: Comment, viewer: Viewer, reading: Reading, page: int) -> str:
    """The anchor of the last comment drawn on page `page` ("" for none): what a comment
    that opens the next page follows, for a reader who has loaded both."""
    if page < 1:
        return ""
    listing = listers.list_comments(
        discussion_id=comment.discussion_id, view=reading.view, page=str(page), below=reading.below,
        viewer=viewer,
    )
    return listing.shown[-1].comment.anchor if listing.shown else ""
