"""The views of a discussion, by the name `?view=` takes, and the function that lists
each one's pages: the one table (`TABLE`; the pages, the order links,
COMMENTS_DEFAULT_VIEW's check and the REST API read it). The views ordered by a sort key
(threaded, newest, chronological: records.ORDERS) are listed by
comments/reading/listings.py, the ranked ones (best, top: records.RANKED_ORDERS) by
comments/reading/ranked.py, which builds on listings; this module imports both, so
neither registers anywhere and no import has to have happened first.

Callers list through here: `list_comments` (a page of a view, or of the replies below
one comment), `parse_view`, `default_view`, `VIEWS` (each view's label).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Protocol

from bson import ObjectId
from django.core.exceptions import BadRequest
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy as _
from pymongo.errors import PyMongoError

from comments import conf
from comments.moderation import branches
from comments.reading import collapsing, listings, ranked
from comments.reading.listings import BAD_VIEW, Listing
from comments.records import READERS, Comment, Tally, Viewer
from infra import mongo


class Lister(Protocol):
    """What lists one page of a view of a whole discussion, as `viewer` sees it: by page
    number (`page`) or by cursor (`after`, `before`); `tally`, the listing's counts when
    the caller knows them; `opens`, no later than the discussion's first comment, when
    known. BadRequest for a malformed page or cursor, Http404 past the end."""

    def __call__(self, *, discussion_id: ObjectId, view: str, page: str | None = None, after: str | None = None,
                 before: str | None = None, viewer: Viewer = READERS, tally: Tally | None = None,
                 opens: datetime | None = None) -> Listing: ...


@dataclass(frozen=True)
class View:
    """A view of a discussion: its label (the order links) and what lists its pages."""

    label: str | Promise
    lister: Lister


def list_ranked(*, discussion_id: ObjectId, view: str, page: str | None = None, after: str | None = None,
                before: str | None = None, viewer: Viewer = READERS, tally: Tally | None = None,
                opens: datetime | None = None) -> Listing:
    """A ranked view's lister (ranked.list_ranked). Its pages go by cursor only, so a
    page number is not read (a numbered page is the first), nor `opens` (its pages
    start from the ranking, not from the first comment)."""
    return ranked.list_ranked(discussion_id=discussion_id, view=view, after=after, before=before, viewer=viewer,
                              tally=tally)


TABLE: dict[str, View] = {
    "threaded": View(label=_("Threaded"), lister=listings.list_ordered),
    "newest": View(label=_("Newest threads first"), lister=listings.list_ordered),
    "chronological": View(label=_("Oldest first"), lister=listings.list_ordered),
    "best": View(label=_("Best"), lister=list_ranked),
    "top": View(label=_("Top"), lister=list_ranked),
}
# Each view's label by its name, in the order the links show them.
VIEWS: dict[str, str | Promise] = {name: view.label for name, view in TABLE.items()}


def default_view() -> str:
    """The view a discussion opens on (COMMENTS_DEFAULT_VIEW; threaded if it names none)."""
    view = conf.get().default_view
    return view if view in TABLE else "threaded"


def parse_view(raw: str | None) -> str:
    """The view `?view=` names (none: the default); BadRequest for one there is not."""
    view = raw or default_view()
    _view(view)
    return view


def _view(name: str) -> View:
    """The view of this name; BadRequest for one there is not."""
    found = TABLE.get(name)
    if found is None:
        raise BadRequest(gettext(BAD_VIEW))
    return found


def list_comments(*, discussion_id: ObjectId, view: str, page: str | None = None, after: str | None = None,
                  before: str | None = None, below: Comment | None = None, viewer: Viewer = READERS,
                  tally: Tally | None = None, opens: datetime | None = None,
                  rules: list[branches.Rule] | None = None) -> Listing:
    """One page of a discussion's comments in `view`, listed by the view's lister
    (`TABLE`), or, with `below`, of the replies below that comment (a permalink page's,
    listed in `view`'s order by listings.list_ordered), each marked with its branch's
    rules (`rules`: the copy in the discussion's state; else one query more, of the
    discussion's few rules). BadRequest for a view there is
    not, a malformed page number or a tampered cursor; Http404 past the end."""
    lister = _view(view).lister
    if below is not None:
        listing = listings.list_ordered(discussion_id=discussion_id, view=view, page=page, after=after,
                                        before=before, below=below, viewer=viewer, tally=tally, opens=opens)
    else:
        listing = lister(discussion_id=discussion_id, view=view, page=page, after=after, before=before,
                         viewer=viewer, tally=tally, opens=opens)
    shown = listings.with_branch_rules(listing.shown, discussion_id=discussion_id, rules=rules)
    return replace(listing, shown=collapsing.mark_branches(shown, view=view))


def list_comments_if_available(**query: Any) -> Listing | None:
    """`list_comments`, or None while MongoDB is unreachable or over its budget (the
    page then says that comments are unavailable instead of failing whole)."""
    try:
        return list_comments(**query)
    except PyMongoError as exc:
        if not mongo.is_outage(exc):
            raise
        return None
