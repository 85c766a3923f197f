"""The comment form's answers to the page's script (comments/static/comments/js/posting.js), which posts
without leaving the page: the same view, the same rules and the same templates as a
full page, answered as a piece of HTML.

A request that carries the header `Slugline-In-Place: 1` gets, instead of a
redirect or a whole page:

- once a comment is stored: 201 with `comments/posted.html`: the comment drawn by
  the include every page uses (comments/includes/comment.html), where it goes in the
  reader's page (comments/reading/placing.py) or the link to the page that shows it, the
  confirmations, the count the page's heading says now, and a fresh form token for the
  next comment;
- otherwise (a refusal, a preview): the comment form alone, as a page would draw it,
  with its errors or its preview and the reader's text, under the same status (400,
  403, 429 with Retry-After, 503).

The edit form is answered the same way: the edited comment (`comments/edited.html`),
or the edit form alone with its errors.
"""

from __future__ import annotations

from django.forms import Form
from django.http import HttpRequest, HttpResponse
from django.urls import reverse

from pymongo.errors import PyMongoError

from comments.host import Discussion
from comments.internal.rendering import render
from comments.posting import confirmations, services, tokens
from comments.reading import listings, placing
from comments.reading.pictures import item_with_picture
from comments.records import Comment, Viewer
from comments.stores import get_store
from infra import mongo

HEADER = "Slugline-In-Place"
EDIT_FORM = "comments/includes/edit_form.html"
# Where the script's page is (its address, path and query): what it lists.
PAGE_HEADER = "Slugline-Page"


def wanted(request: HttpRequest) -> bool:
    """Whether the page's script asks for an answer in place."""
    return request.headers.get(HEADER) == "1"


def form_answer(request: HttpRequest, post: Discussion, form: Form, *, status: int, refusal: str = "",
                retry_after: int = 0) -> HttpResponse:
    """The comment form as the page draws it, with its errors or preview, alone."""
    context = {"post": post, "form": form, "closed": services.comments_closed(post=post), "refusal": refusal,
               "retry_minutes": -(-retry_after // 60) if retry_after else 0, "heading": ""}
    response = render(request, "comments/includes/form.html", context, status=status)
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response


def posted_answer(
    request: HttpRequest, post: Discussion, comment: Comment, *, viewer: Viewer, location: str, counted: bool,
) -> HttpResponse:
    """The stored comment, drawn where the reader's page shows it, or a link there.
    `counted`: it is new and approved, one more in the count every reader sees (the
    page's count of comments seen goes up by one: it is not new to its author)."""
    try:
        reading = placing.reading_of(post=post, address=request.headers.get(PAGE_HEADER, ""))
        placement = placing.place(comment=comment, viewer=viewer, reading=reading) if reading else None
        # What the page's heading counts now ("24 comments", or a permalink page's replies).
        below = reading.below if reading else None
        tally = get_store().tally_listing(discussion_id=post.id, below=below, viewer=viewer) if reading else None
    except PyMongoError as exc:
        if not mongo.is_outage(exc):
            raise
        # The comment is stored; placing it ran out of time: the link to it needs no query.
        reading, placement, tally = None, None, None
    fitting = placement if placement is not None and placement.fits(reading) else None
    context = {
        "post": post,
        "item": item_with_picture(fitting.item) if fitting and fitting.item else None,
        "after": fitting.after if fitting else "",
        "view": reading.view if reading else "threaded",
        "comments_url": reverse("comments:discussion", args=[post.slug]),
        "confirmations": confirmations.take(request),
        "location": location,
        "counted": counted,
        "count": tally.comments if tally else None,
        "replies": reading is not None and reading.below is not None,
        "token": tokens.issue(discussion_id=post.id, browser=tokens.browser_key(request)),
    }
    return render(request, "comments/posted.html", context, status=201)


def edited_answer(request: HttpRequest, post: Discussion, comment: Comment, *,
                  viewer: Viewer) -> HttpResponse:
    """The edited comment, drawn by the pages' include (naming the comment it answers,
    as its permalink page does), with its confirmation: 200 with
    `comments/edited.html`, to take the place of the comment as the page drew it."""
    context = {
        "post": post,
        "item": item_with_picture(listings.thread_of(comment, viewer).focus),
        "comments_url": reverse("comments:discussion", args=[post.slug]),
        "confirmations": confirmations.take(request),
    }
    return render(request, "comments/edited.html", context)
