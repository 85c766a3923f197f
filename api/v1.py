"""/api/v1/: the endpoints, thin like the site's views (request -> the same services
and page functions the HTML views call -> data). django-ninja turns the type hints and
schemas (api/schemas.py) into the OpenAPI 3.1 document at /api/v1/openapi.json."""

from __future__ import annotations

from django.core.cache import cache
from django.core.exceptions import BadRequest, PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.csrf import csrf_exempt
from ninja import NinjaAPI, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from pymongo.errors import PyMongoError

from api import auth, conf, etags, openapi, parsing, problems, reading, schemas, writing
from api.problems import Refused
from comments.api import get_host
from comments.rest import Moving, RateLimited, Viewer, comment_settings, visible_comment
from infra import mongo

NO_ENDPOINT = gettext_noop("There is nothing at this address.")
NO_SUCH_COMMENT = gettext_noop("There is no such comment on this post.")
TOO_MANY_POSTS = gettext_noop("Ask for at most {limit} posts at once.")
NO_POSTS = gettext_noop("Name the posts: ?posts=slug1,slug2.")
BAD_BODY = gettext_noop("The request body is not what this endpoint takes: {detail}")
SIGN_IN = gettext_noop("Sign in, or send an API token, to do this.")
UNAVAILABLE = gettext_noop("Comments cannot be read or saved right now: the database is not answering.")

class Api(NinjaAPI):
    def get_openapi_schema(self, **kwargs):
        return openapi.finish(super().get_openapi_schema(**kwargs))


api = Api(
    title="Slugline comments API",
    version="1",
    description="Read and write Slugline's comments as JSON (docs/api.md).",
    urls_namespace="api",
    docs_url=None,
    parser=parsing.JsonParser(),
)

ERRORS = {400: schemas.ProblemOut, 401: schemas.ProblemOut, 404: schemas.ProblemOut, 429: schemas.ProblemOut,
          503: schemas.ProblemOut}
WRITE_ERRORS = {**ERRORS, 403: schemas.ProblemOut}


def viewer_of(request: HttpRequest) -> Viewer:
    return auth.viewer_of(request)


def _answer(request, response: HttpResponse, *, post, viewer: Viewer, what: str, query: dict, build):
    """The answer `build()` makes. One that is the same for every reader carries the
    entity tag of what it shows (a 304 when the client has it) and is kept in the cache
    under the discussion's version, as the HTML pages' comments are: while nothing
    changed, neither the answer nor its tag reads a comment."""
    response["Vary"] = "Accept-Language, Cookie, Authorization"
    key = etags.cache_key(post=post, viewer=viewer, what=what, query=query)
    if key is None:
        return build()
    seconds = comment_settings().cache_seconds
    kept = cache.get(key) if seconds else None
    if kept is None:
        body = build()
        kept = (etags.tag_of(body), body)
        if seconds:
            cache.set(key, kept, seconds)
    etag, body = kept
    if etags.matches(request, etag):
        return etags.not_modified(etag)
    response["ETag"] = etag
    return body


@api.get("/posts/{post_slug:post_slug}/", response={200: schemas.DiscussionOut, 304: None, **ERRORS},
         url_name="discussion", summary="A post's discussion")
def discussion(request, post_slug: str, response: HttpResponse):
    """Its comment count, whether comments are closed, and the views it can be read in."""
    post = get_host().published_or_404(post_slug)
    return _answer(request, response, post=post, viewer=viewer_of(request), what="discussion", query={},
                   build=lambda: reading.discussion_data(post))


@api.get("/posts/{post_slug:post_slug}/comments/", response={200: schemas.PageOut, 304: None, **ERRORS},
         url_name="comments", summary="A page of a discussion's comments")
def comments(request, post_slug: str, response: HttpResponse, view: str | None = None, page: str | None = None,
             after: str | None = None, before: str | None = None):
    """One page in one view (`view`: one of the discussion's `views`), by number or by
    the cursors of the page before (`after=<next>`, `before=<prev>`), exactly as the
    discussion page shows it to the same reader."""
    post = get_host().published_or_404(post_slug)
    viewer = viewer_of(request)
    query = {"view": view, "page": page, "after": after, "before": before}
    return _answer(request, response, post=post, viewer=viewer, what="comments", query=query,
                   build=lambda: reading.comments_page(post=post, viewer=viewer, **query))


# Before the comment's own route: `{path:...}` would also match ".../flag".
@api.post("/posts/{post_slug:post_slug}/comments/{path:comment_path}/flag/", auth=auth.WRITERS,
          url_name="flag_comment", response={200: schemas.FlagOut, **WRITE_ERRORS}, summary="Flag a comment")
def flag_comment(request, post_slug: str, comment_path: str, body: schemas.FlagIn):
    """Report a comment to the editors with a reason (the flag form's reasons)."""
    post = get_host().published_or_404(post_slug)
    viewer = viewer_of(request)
    found = _visible(post, comment_path, viewer)
    return writing.flag(request, comment=found, body=body.dict(), viewer=viewer)


# Also before the comment's own route, for the same reason.
@api.post("/posts/{post_slug:post_slug}/comments/{path:comment_path}/vote/", auth=auth.WRITERS,
          url_name="vote_comment", response={200: schemas.VoteOut, **WRITE_ERRORS}, summary="Vote on a comment")
def vote_comment(request, post_slug: str, comment_path: str, body: schemas.VoteIn):
    """Your vote, up or down (or none, to take it back), as the vote buttons cast it:
    one vote per member, whichever session or token sends it; never on your own comment
    or one that is not approved."""
    post = get_host().published_or_404(post_slug)
    viewer = viewer_of(request)
    found = _visible(post, comment_path, viewer)
    return writing.vote(request, comment=found, choice=body.vote, viewer=viewer)


@api.delete("/posts/{post_slug:post_slug}/comments/{path:comment_path}/vote/", auth=auth.WRITERS,
            url_name="unvote_comment", response={200: schemas.VoteOut, **WRITE_ERRORS},
            summary="Take your vote back")
def unvote_comment(request, post_slug: str, comment_path: str):
    """As a vote of none: the comment's counts without your vote (also when you had none)."""
    post = get_host().published_or_404(post_slug)
    viewer = viewer_of(request)
    found = _visible(post, comment_path, viewer)
    return writing.vote(request, comment=found, choice="none", viewer=viewer)


@api.get("/posts/{post_slug:post_slug}/comments/{path:comment_path}/",
         response={200: schemas.ThreadOut, 304: None, **ERRORS}, url_name="comment",
         summary="A comment with its ancestors and replies")
def comment(request, post_slug: str, comment_path: str, response: HttpResponse, page: str | None = None,
            after: str | None = None, before: str | None = None):
    """The comment's permalink page as data: ancestors (root first), the comment, and a
    page of its replies."""
    post = get_host().published_or_404(post_slug)
    viewer = viewer_of(request)
    found = _visible(post, comment_path, viewer)
    query = {"path": comment_path, "page": page, "after": after, "before": before}
    return _answer(request, response, post=post, viewer=viewer, what="comment", query=query,
                   build=lambda: reading.comment_thread(post=post, comment=found, viewer=viewer,
                                                        page=page, after=after, before=before))


@api.get("/counts", response={200: schemas.CountsOut, 400: schemas.ProblemOut, 429: schemas.ProblemOut,
                              503: schemas.ProblemOut},
         url_name="counts", summary="Comment counts of many posts")
def counts(request, posts: str = ""):
    """What `count.js`-style widgets need: each post's comment count, in one request."""
    wanted = reading.split_slugs(posts)
    limit = conf.get().counts_max
    if not wanted:
        raise BadRequest(gettext(NO_POSTS))
    if len(wanted) > limit:
        raise BadRequest(gettext(TOO_MANY_POSTS).format(limit=limit))
    return reading.counts(wanted)


@csrf_exempt
def no_such_endpoint(request, *args, **kwargs):
    """Any address under /api/ that names no endpoint, by any method: a 404 problem
    (exempt from the CSRF check: it changes nothing, and a write there is a 404, not
    an HTML 403)."""
    del args, kwargs
    return problems.problem(404, gettext(NO_ENDPOINT), code="not_found")


def _visible(post, comment_path: str, viewer: Viewer):
    found = visible_comment(discussion_id=post.id, path=comment_path, viewer=viewer)
    if found is None:
        raise Http404(gettext(NO_SUCH_COMMENT))
    return found


# --- Writing: the forms' services, for signed-in members -------------------------------


@api.post("/posts/{post_slug:post_slug}/comments/", auth=auth.WRITERS, url_name="post_comment",
          response={201: schemas.WriteOut, 200: schemas.WriteOut, **WRITE_ERRORS}, summary="Post a comment")
def post_comment(request, post_slug: str, body: schemas.NewComment):
    """A new comment or reply (`parent`), under the forms' rules: length, depth, closed
    discussions, bans, pre-moderation, rate limits, duplicates. 201 with the comment;
    200 with the earlier one when the same text was just posted in the same place."""
    post = get_host().published_or_404(post_slug)
    status, data = writing.post(request, post=post, body=body.dict(), viewer=viewer_of(request))
    return Status(status, data)


@api.patch("/posts/{post_slug:post_slug}/comments/{path:comment_path}/", auth=auth.WRITERS,
           url_name="edit_comment", response={200: schemas.WriteOut, **WRITE_ERRORS}, summary="Edit your comment")
def edit_comment(request, post_slug: str, comment_path: str, body: schemas.CommentEdit):
    """Its author changes its text within the edit window (the edit form's rules)."""
    post = get_host().published_or_404(post_slug)
    viewer = viewer_of(request)
    found = _visible(post, comment_path, viewer)
    return writing.edit(request, post=post, comment=found, text=body.text, viewer=viewer)


@api.delete("/posts/{post_slug:post_slug}/comments/{path:comment_path}/", auth=auth.WRITERS,
            url_name="delete_comment", response={204: None, **WRITE_ERRORS}, summary="Delete your comment")
def delete_comment(request, post_slug: str, comment_path: str):
    """Its author deletes it within the edit window; replies keep their place."""
    post = get_host().published_or_404(post_slug)
    viewer = viewer_of(request)
    writing.delete(comment=_visible(post, comment_path, viewer), viewer=viewer)
    response = HttpResponse(status=204)
    del response["Content-Type"]  # no body, so no type
    return response


from api.moderating import router as moderation_router  # noqa: E402 (after the endpoints it follows)

api.add_router("/moderation", moderation_router)


# --- Errors: RFC 9457 problem details in the reader's language --------------------------


@api.exception_handler(Http404)
def _not_found(request, exc):
    detail = exc.args[0] if exc.args and isinstance(exc.args[0], str) else gettext(NO_ENDPOINT)
    return problems.problem(404, detail, code="not_found")


@api.exception_handler(BadRequest)
def _bad_request(request, exc):
    return problems.problem(400, str(exc), code="bad_request")


@api.exception_handler(PermissionDenied)
def _forbidden(request, exc):
    return problems.problem(403, str(exc), code="forbidden")


@api.exception_handler(ValidationError)
def _invalid(request, exc):
    errors = [{"field": ".".join(str(part) for part in error.get("loc", ())[1:]) or None,
               "message": str(error.get("msg", "")), "code": str(error.get("type", "invalid"))}
              for error in exc.errors]
    detail = "; ".join(f"{e['field']}: {e['message']}" if e["field"] else e["message"] for e in errors)
    return problems.problem(400, gettext(BAD_BODY).format(detail=detail), code="invalid_body", errors=errors)


@api.exception_handler(AuthenticationError)
def _unauthenticated(request, exc):
    return problems.problem(401, gettext(SIGN_IN), code="not_authenticated")


@api.exception_handler(HttpError)
def _http_error(request, exc):
    if isinstance(exc.__cause__, Refused):  # A body the parser refused (api/parsing.py), in its words.
        return _refused(request, exc.__cause__)
    return problems.problem(exc.status_code, str(exc), code="http_error")


@api.exception_handler(Refused)
def _refused(request, exc):
    return problems.problem(exc.status, exc.detail, code=exc.code, errors=exc.errors, retry_after=exc.retry_after)


@api.exception_handler(RateLimited)
def _rate_limited(request, exc):
    return problems.problem(429, str(exc), code="rate_limited", retry_after=exc.retry_after)


@api.exception_handler(Moving)
def _moving(request, exc):
    return problems.problem(503, str(exc), code="moving", retry_after=writing.MOVING_RETRY_SECONDS)


@api.exception_handler(PyMongoError)
def _outage(request, exc):
    if not mongo.is_outage(exc):
        raise exc
    return problems.problem(503, gettext(UNAVAILABLE), code="unavailable", retry_after=60)
