"""The comment section of a discussion's page: the heading, the views switcher, a page
of comments (comments/reading/fragments.py, maybe from the cache), its page links and the
comment form for this reader, with the messages that belong at the top of the page.

A page shows it with `{% comment_section discussion %}` (comments/templatetags/
comments.py). Its messages go at the top of the page, which the layout draws before
the section: so the view asks first (`comments.api.comment_section`) and the tag then
draws the same section, kept on the request, without reading anything twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest
from django.utils.safestring import SafeString

from pymongo.errors import PyMongoError

from comments.host import Discussion
from comments.posting import confirmations, ownership, services
from comments.posting.confirmations import Confirmations
from comments.posting.forms import CommentForm, comment_form
from comments.reading import fragments, listers
from comments.votes import collection as votes, voters
from infra import mongo

# Where a request keeps the sections prepared for it, by discussion id.
KEPT = "_comment_sections"


@dataclass(frozen=True)
class Section:
    """What a page draws for one discussion's comments, for this request's reader."""

    discussion: Discussion
    comments_html: SafeString
    # The page number of the comments shown (for a page's title).
    number: int
    form: CommentForm
    closed: bool
    # This request's messages that go at the top of the page (the others are drawn
    # beside the comment they are about, or at the top of the section: `at_section`).
    messages: list[Any]
    at_section: Confirmations | None = None


def _kept(request: HttpRequest) -> dict[Any, Section]:
    kept = getattr(request, KEPT, None)
    if kept is None:
        kept = {}
        setattr(request, KEPT, kept)
    return kept


def prepare(
    request: HttpRequest, discussion: Discussion, *, view: str, page: str | None = None,
    after: str | None = None, before: str | None = None, degrade: bool = False,
    form: CommentForm | None = None,
) -> Section:
    """The section showing this page of comments (`view`, `page`/`after`/`before` as
    `listers.list_comments` takes them), kept for the rest of the request. `form`: the
    form as the reader sent it (its errors and text), else a fresh one. `degrade`:
    while MongoDB is unreachable, a notice in place of the comments."""
    notes = confirmations.take(request)
    at_section = notes.anchor == confirmations.SECTION
    fragment = fragments.comments_fragment(
        post=discussion, view=view, viewer=ownership.viewer_for(request), page=page, after=after,
        before=before, degrade=degrade, confirmations=None if at_section else notes,
        own_votes=own_votes(request, discussion),
    )
    section = Section(
        discussion=discussion, comments_html=fragment.html, number=fragment.number,
        form=form or comment_form(request, discussion.id), closed=services.comments_closed(post=discussion),
        messages=notes.others if at_section else notes.at_top(placed=fragment.placed),
        at_section=notes if at_section else None,
    )
    return keep(request, section)


def own_votes(request: HttpRequest, discussion: Discussion) -> dict[str, str]:
    """The reader's votes on the discussion, by comment slug, that the page draws
    pressed without JavaScript: one query for a reader who ever voted (a voter cookie or
    a login), none for the others; none found while MongoDB is unreachable."""
    voter = voters.voter_of(request)
    if voter is None:
        return {}
    try:
        return votes.votes_of(discussion_id=discussion.id, voter=voter)
    except PyMongoError as exc:
        if not mongo.is_outage(exc):
            raise
        return {}


def keep(request: HttpRequest, section: Section) -> Section:
    """Keep `section` as the one this request's page draws for its discussion."""
    _kept(request)[section.discussion.id] = section
    return section


def of(request: HttpRequest, discussion: Discussion) -> Section:
    """The section this request prepared for `discussion`, or the one a host's page of
    the discussion shows: the first page of COMMENTS_DEFAULT_VIEW, or with `?page=N`
    that page of the threaded view (where posting a comment lands); while MongoDB is
    unreachable, a notice in place of the comments."""
    found = _kept(request).get(discussion.id)
    if found is not None:
        return found
    number = request.GET.get("page")
    # `?page=N` is where posting lands: a page of the threaded order, which numbers its pages.
    view = "threaded" if number else listers.default_view()
    return prepare(request, discussion, view=view, page=number, degrade=True)


def prepared_form(request: HttpRequest, discussion: Discussion) -> CommentForm:
    """The form of the section prepared for `discussion`, or a fresh one."""
    found = _kept(request).get(discussion.id)
    return found.form if found is not None else comment_form(request, discussion.id)
