"""What the comments app's pages share: the addresses of a comment, the client's
address, the rate limit's refusal page and the 404 of a comment a reader may not see."""

from django import forms
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop

from comments.host import Discussion
from comments.internal.rendering import render
from comments.posting import antispam, services
from comments.reading import listings
from comments.records import Comment, Viewer
from comments.views import in_place
from infra import clients

NO_SUCH_COMMENT = gettext_noop("There is no such comment on this post.")
# A migration's last pass freezes writes for about this long (its message says "a minute").
MOVING_RETRY_SECONDS = 60
# What each refusal of the service answers with.
STATUS_OF = services.REFUSAL_STATUS


def permalink_url(discussion: str, comment: Comment) -> str:
    return reverse("comments:permalink", args=[discussion, comment.slug])


def location_url(post: Discussion, comment: Comment, viewer: Viewer) -> str:
    """The page that draws `comment` for `viewer`, at its anchor: the post's own page
    (the article and its threaded discussion) at the comment's page, or below the
    indent limit, its thread's permalink page."""
    where = listings.location_of(comment, viewer)
    if where.holder is None:
        url = post.get_absolute_url()
    else:
        url = permalink_url(post.slug, where.holder)
    return url + (f"?page={where.page}" if where.page > 1 else "") + "#" + comment.anchor


def client_ip(request: HttpRequest) -> str:
    """The address rate limits, flags and bans count against and moderators see (never
    readers): the login throttle's, which trusts the proxy's X-Forwarded-For only with
    BEHIND_PROXY (behind nginx every REMOTE_ADDR would be the proxy's)."""
    return clients.client_ip(request)


def rate_limited(request: HttpRequest, *, action: str, viewer: Viewer) -> antispam.RateLimited | None:
    """Count this write against the client's limits (editors are exempt); the refusal if over."""
    try:
        antispam.check_writer_rate(action=action, ip=client_ip(request), viewer=viewer)
    except antispam.RateLimited as exc:
        return exc
    return None


def too_many(request: HttpRequest, context: dict, refusal: antispam.RateLimited) -> HttpResponse:
    """429 in the site's layout, with the reader's text in a form to send again later;
    nothing was read from or written to the comments."""
    if in_place.wanted(request) and "editing" in context:
        context["form"].add_error(None, forms.ValidationError(str(refusal), code="rate_limited"))
        response = render(request, in_place.EDIT_FORM, context, status=429)
        response["Retry-After"] = str(refusal.retry_after)
        return response
    if in_place.wanted(request) and "flagging" not in context:
        return in_place.form_answer(request, context["post"], context["form"], status=429, refusal=str(refusal),
                                    retry_after=refusal.retry_after)
    response = render(request, "comments/rate_limited.html", {**context, "message": str(refusal)}, status=429)
    response["Retry-After"] = str(refusal.retry_after)
    return response


def visible_comment(request: HttpRequest, post: Discussion, comment_path: str, viewer: Viewer) -> Comment:
    """The comment at this path if `viewer` may see it; 404 otherwise (also before
    any query, for a path that is not a slug path)."""
    comment = listings.visible_comment(discussion_id=post.id, path=comment_path, viewer=viewer)
    if comment is None:
        raise Http404(gettext(NO_SUCH_COMMENT))
    return comment
