"""Reading a discussion: its pages of comments, how many are new, and permalinks."""

from dataclasses import replace

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified, JsonResponse
from django.utils.translation import get_language
from django.views.decorators.http import require_http_methods

from comments.host import Discussion, get_host
from comments.internal.rendering import render
from comments.posting import confirmations, ownership, services
from comments.posting.forms import CommentForm, comment_form
from comments.reading import listers, listings, polling, sections, thread_cuts
from comments.reading.pictures import with_pictures
from comments.records import Comment, Viewer
from comments.views.common import location_url, visible_comment


@require_http_methods(["GET", "HEAD"])
def discussion(request: HttpRequest, discussion: str) -> HttpResponse:
    """A page of comments in the chosen view (a POST to this address posts a comment:
    comments/views/posting.py)."""
    post = get_host().published_or_404(discussion)
    section = sections.prepare(
        request, post, view=listers.parse_view(request.GET.get("view")), page=request.GET.get("page"),
        after=request.GET.get("after"), before=request.GET.get("before"),
    )
    return _discussion_page(request, section)


def render_discussion(request: HttpRequest, post: Discussion, *, form: CommentForm,
                      status: int) -> HttpResponse:
    """The discussion's page with a comment form as the reader sent it (refused, or
    previewed): its errors, their text kept. The first page of the default view, or
    while MongoDB is unreachable, a notice in its place."""
    section = sections.prepare(request, post, view=listers.default_view(), degrade=True, form=form)
    return _discussion_page(request, section, status=status)


def _discussion_page(request: HttpRequest, section: sections.Section, *, status: int = 200) -> HttpResponse:
    context = {"post": section.discussion, "page_number": section.number, "messages": section.messages}
    return render(request, "comments/discussion.html", context, status=status)


@require_http_methods(["GET", "HEAD"])
def latest(request: HttpRequest, discussion: str) -> HttpResponse:
    """How many comments the discussion has now, and how many are new to a page that
    showed `?seen=N` (comments/reading/polling.py); 304 while its ETag still holds."""
    seen = polling.parse_seen(request.GET.get("seen"))
    counts = polling.counts_of(discussion)
    tag = polling.etag(counts, seen=seen, language=get_language())
    # Compared weakly: a gzipped answer's ETag went out weak (W/"…"), sent back so.
    if tag in {t.strip().removeprefix("W/") for t in request.headers.get("If-None-Match", "").split(",")}:
        response = HttpResponseNotModified()
    else:
        response = JsonResponse(polling.answer(counts, seen=seen))
    response["ETag"] = tag
    # Kept by the browser, but asked again each time (with If-None-Match).
    response["Cache-Control"] = "private, no-cache"
    return response


@require_http_methods(["GET", "HEAD"])
def permalink(request: HttpRequest, discussion: str, comment_path: str) -> HttpResponse:
    """One comment with its ancestors for context and its replies, paginated."""
    post = get_host().published_or_404(discussion)
    viewer = ownership.viewer_for(request)
    comment = visible_comment(request, post, comment_path, viewer)
    return render_permalink(request, post, comment, viewer=viewer)


def render_permalink(request: HttpRequest, post: Discussion, comment: Comment, *, viewer: Viewer,
                     form: CommentForm | None = None, status: int = 200) -> HttpResponse:
    replies = listers.list_comments(
        discussion_id=post.id,
        view="threaded",
        page=request.GET.get("page"),
        after=request.GET.get("after"),
        before=request.GET.get("before"),
        below=comment,
        viewer=viewer,
    )
    replies = thread_cuts.count_waiting_if_available(replies, discussion_id=post.id, viewer=viewer)
    thread = listings.thread_of(comment, viewer)
    # The pictures of everyone the page draws, in one question.
    shown, ancestors, [focus] = with_pictures(replies.shown, thread.ancestors, [thread.focus])
    replies = replace(replies, shown=shown)
    notes = confirmations.take(request)
    drawn = {comment.anchor} | {item.comment.anchor for item in replies.shown}
    context = {
        "confirmations": notes,
        "messages": notes.at_top(placed=notes.anchor in drawn),
        "post": post,
        "focus": focus,
        "comment": comment,
        "ancestors": ancestors,
        "listing": replies,
        # The reader's votes, drawn pressed (the focus and its replies).
        "own_votes": sections.own_votes(request, post),
        "discussion_url": location_url(post, comment, viewer),
        "form": form or comment_form(request, post.id, parent=comment.slug),
        "closed": services.comments_closed(post=post),
        "branch_actions_url": branch_actions_url(viewer),
    }
    return render(request, "comments/permalink.html", context, status=status)


def branch_actions_url(viewer: Viewer) -> str:
    """Where an editor's Lock and Slow buttons on a comment's page post to: the moderation
    actions under the host's moderation mount (comments/moderation/urls.py); "" for
    anyone else, or a host that moderates nowhere."""
    mount = get_host().moderation_url() if viewer.editor else None
    return mount.rstrip("/") + "/actions/" if mount else ""

