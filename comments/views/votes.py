"""Readers voting on comments: one endpoint for pages with and without JavaScript.

Without JavaScript a vote button submits the page's one vote form (its CSRF token is
rendered for each request, outside the shared comments fragment) to the comment's
`vote/` address, and the answer is a 303 back to the comment with a message beside it. With
JavaScript (comments/static/comments/js/votes.js) the same request asks for JSON and the counts change
in place: the rules are the same code either way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from http import HTTPStatus

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_GET, require_POST
from pymongo.errors import PyMongoError

from comments import slugs
from comments.errors import Refused
from comments.host import Discussion, get_host
from comments.internal.rendering import render
from comments.posting import confirmations, ownership
from comments.records import Comment
from comments.stores import get_store, store_switch
from comments.views.common import MOVING_RETRY_SECONDS, NO_SUCH_COMMENT
from comments.votes import collection as votes, rules as voting, voters
from infra import clients, mongo
from infra.http import see_other


STATUS_OF = {**voting.REFUSAL_STATUS, "moving": 503}
VOTES_UNAVAILABLE = gettext_noop("Votes cannot be counted right now: the database is not answering. "
                                 "Please try again in a minute.")
UNAVAILABLE_RETRY_SECONDS = 30
PROBLEM = "application/problem+json"


def wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _comment_of(post: Discussion, comment_path: str) -> Comment:
    """The comment of this discussion at this path; 404 otherwise, also for a comment
    of another discussion named by a crafted path (the query is scoped to this one)."""
    if not slugs.is_slug_path(comment_path):
        raise Http404(gettext(NO_SUCH_COMMENT))
    comment = get_store().find_by_slug(discussion_id=post.id, slug=comment_path)
    if comment is None:
        raise Http404(gettext(NO_SUCH_COMMENT))
    return comment


def _back_to(request: HttpRequest, post: Discussion, comment: Comment) -> str:
    """The page the vote was sent from (a path of this site), at the comment."""
    back = request.POST.get("next") or ""
    if not (back.startswith("/") and url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()})):
        back = post.get_absolute_url()
    return back.split("#", 1)[0] + "#" + comment.anchor


def problem(status: int, message: str, *, code: str) -> JsonResponse:
    """An RFC 9457 problem for votes.js; `error` is the message it announces."""
    body = {"type": "about:blank", "title": HTTPStatus(status).phrase, "status": status, "detail": message,
            "code": code, "error": message}
    return JsonResponse(body, status=status, content_type=PROBLEM, json_dumps_params={"ensure_ascii": False})


def json_problems(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A view whose JSON callers (votes.js) get a problem, not the site's HTML page,
    for a post or comment that is not there and for a database that is not answering."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if not wants_json(request):
            return view(request, *args, **kwargs)
        try:
            return view(request, *args, **kwargs)
        except Http404 as exc:
            message = exc.args[0] if exc.args and isinstance(exc.args[0], str) else gettext(NO_SUCH_COMMENT)
            return problem(404, message, code="not_found")
        except PyMongoError as exc:
            if not mongo.is_outage(exc):
                raise
            response = problem(503, gettext(VOTES_UNAVAILABLE), code="unavailable")
            response["Retry-After"] = str(UNAVAILABLE_RETRY_SECONDS)
            return response

    return wrapped


def counts(comment: Comment, vote: str) -> dict[str, object]:
    return {"vote": vote, "up": comment.votes_up, "down": comment.votes_down, "score": comment.score,
            "slug": comment.slug}


@require_POST
@json_problems
def vote(request: HttpRequest, discussion: str, comment_path: str) -> HttpResponse:
    """Vote a comment up or down, or take the vote back (`vote` = up, down or none)."""
    post = get_host().published_or_404(discussion)
    comment = _comment_of(post, comment_path)
    viewer = ownership.viewer_for(request)
    token = voters.token_of(request)
    fresh = None
    if not request.user.is_authenticated and token is None:
        token = fresh = voters.first_token(request)
    voter = voters.key_for(user_id=request.user.pk if request.user.is_authenticated else None, token=token)
    try:
        cast = voting.vote_on_comment(comment=comment, viewer=viewer, voter=str(voter),
                                      vote=request.POST.get("vote", ""), ip=clients.client_ip(request))
    except voting.VoteRefused as exc:
        response = _refused(request, post, comment, exc)
    except voting.TooManyVotes as exc:
        response = _refused(request, post, comment, exc)
        response["Retry-After"] = str(exc.retry_after)
    except store_switch.Moving as exc:
        # A migration's last pass or shards moving: a short, announced wait (nothing was counted).
        response = _refused(request, post, comment, Refused(str(exc), code="moving"))
        response["Retry-After"] = str(MOVING_RETRY_SECONDS)
    else:
        message = voting.voted_message(cast.vote)
        if wants_json(request):
            response = JsonResponse({**counts(cast.comment, cast.vote), "message": message})
        else:
            # Beside the comment, where the redirect lands (comments/posting/confirmations.py).
            messages.success(request, message, extra_tags=confirmations.tag(comment.anchor))
            response = see_other(_back_to(request, post, comment))
    if fresh is not None:
        voters.remember(response, fresh, secure=request.is_secure())
    return response


def _refused(request: HttpRequest, post: Discussion, comment: Comment, exc: Refused) -> HttpResponse:
    status = STATUS_OF.get(exc.code, 400)
    if wants_json(request):
        return problem(status, exc.message, code=exc.code)
    context = {"post": post, "message": exc.message, "back": _back_to(request, post, comment)}
    return render(request, "comments/vote_refused.html", context, status=status)


@require_GET
@json_problems
def my_votes(request: HttpRequest, discussion: str) -> HttpResponse:
    """This reader's votes on the discussion, by comment slug (votes.js presses their
    buttons on a page that is shared, cached, between readers)."""
    post = get_host().published_or_404(discussion)
    voter = voters.voter_of(request)
    found = votes.votes_of(discussion_id=post.id, voter=voter) if voter else {}
    response = JsonResponse({"votes": found})
    response["Cache-Control"] = "private, no-store"
    return response
