from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied
from django.contrib import messages
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from pymongo.errors import PyMongoError

from cms import logins, mongo
from cms.authors import summary_for
from cms.views import post_detail, published_post_or_404
from comments import antispam, fragments, ownership, pages, services, slugs, store
from comments.forms import CommentForm, EditCommentForm, FlagForm
from comments.store import CommentAuthor

NO_SUCH_COMMENT = "There is no such comment on this post."
CANNOT_POST_NOW = (
    "Comments cannot be saved right now: the database is not answering. Your text is "
    "kept below; please post it again in a minute."
)
REATTACHED = (
    "Replies nest at most {depth} levels deep, so yours was added beside the comment "
    "you answered, at the deepest level."
)
AWAITING = "Thank you! Your comment awaits moderation: only you can see it until an editor approves it."
EDITED = "Your comment was changed."
EDITED_AWAITING = (
    "Your comment was changed and now awaits moderation: only you can see it until an editor approves it."
)
DELETED = "Your comment was deleted."
FLAGGED = "Thank you: the editors will look at this comment."
FLAGGED_BEFORE = "You have flagged this comment already; the editors will look at it."
# The form's refusals that leave it worth sending again with a fresh token.
RENEW_TOKEN = ("expired", "tampered")
# What each refusal of the service answers with.
STATUS_OF = {"closed": 403, "banned": 403, "not_yours": 403, "cannot_change": 403, "edit_time_over": 403,
             "cannot_flag": 403}


def permalink_url(post_slug: str, comment) -> str:
    return reverse("comments:permalink", args=[post_slug, comment.slug])


def client_ip(request) -> str:
    """The address rate limits, flags and bans count against and moderators see (never
    readers): the login throttle's, which trusts the proxy's X-Forwarded-For only with
    BEHIND_PROXY (behind nginx every REMOTE_ADDR would be the proxy's)."""
    return logins.client_ip(request)


def _see_other(url: str) -> HttpResponseRedirect:
    response = HttpResponseRedirect(url)
    response.status_code = 303  # See Other: the browser GETs the result.
    return response


def _rate_limited(request, *, action: str, viewer) -> antispam.RateLimited | None:
    """Count this write against the client's limits (editors are exempt); the refusal if over."""
    if viewer.editor:
        return None
    try:
        antispam.check_rate(action=action, ip=client_ip(request), user_id=viewer.user_id)
    except antispam.RateLimited as exc:
        return exc
    return None


def _too_many(request, context: dict, refusal: antispam.RateLimited):
    """429 in the site's layout, with the reader's text in a form to send again later;
    nothing was read from or written to the comments."""
    response = render(request, "comments/rate_limited.html", {**context, "message": str(refusal)}, status=429)
    response["Retry-After"] = str(refusal.retry_after)
    return response


@require_http_methods(["GET", "HEAD", "POST"])
def discussion(request, post_slug):
    """GET: a page of comments in the chosen view. POST: a new comment or reply."""
    post = published_post_or_404(post_slug)
    if request.method == "POST":
        return _post_comment(request, post)
    fragment = fragments.comments_fragment(
        post=post,
        view=pages.parse_view(request.GET.get("view")),
        page=request.GET.get("page"),
        after=request.GET.get("after"),
        before=request.GET.get("before"),
        viewer=ownership.viewer_for(request),
    )
    form = CommentForm(user=request.user, discussion_id=post.id)
    context = {"post": post, "comments_html": fragment.html, "page_number": fragment.number, "form": form,
               "closed": services.comments_closed(post=post)}
    return render(request, "comments/discussion.html", context)


def _post_comment(request, post):
    viewer = ownership.viewer_for(request)
    form = CommentForm(request.POST, user=request.user, discussion_id=post.id)
    refusal = _rate_limited(request, action="post", viewer=viewer)
    if refusal is not None:
        return _too_many(request, {"post": post, "form": form}, refusal)
    status = 400
    if form.is_valid():
        data = form.cleaned_data
        if form.is_member:
            author = CommentAuthor(id=request.user.pk, name=summary_for(request.user).name)
        else:
            author = CommentAuthor(id=None, name=data["name"], email=data["email"])
        try:
            posted = services.post_comment(
                post=post, text=data["text"], author=author, parent_slug=data["parent"] or None,
                form_key=data["form_key"], ip=client_ip(request), trusted=viewer.editor,
            )
        except services.CommentError as exc:
            form.add_error("parent" if exc.code == "bad_parent" else None,
                           forms.ValidationError(exc.message, code=exc.code))
            status = STATUS_OF.get(exc.code, 400)
        except PyMongoError as exc:
            if not mongo.is_outage(exc):
                raise
            # The same form (same token) can be sent again: it stores one comment.
            form.add_error(None, forms.ValidationError(CANNOT_POST_NOW, code="unavailable"))
            status = 503
        else:
            if posted.reattached:
                messages.info(request, REATTACHED.format(depth=services.max_depth()))
            if posted.pending:
                messages.info(request, AWAITING)
            response = _see_other(permalink_url(post.slug, posted.comment) + "#" + posted.comment.anchor)
            ownership.remember(request, response, posted.comment.id)
            return response
    if any(form.has_error(NON_FIELD_ERRORS, code) for code in RENEW_TOKEN):
        form.renew_token()
    if form.has_error(NON_FIELD_ERRORS, "honeypot"):
        form.clear_honeypot()
    parent_slug = form.data.get("parent", "").strip()
    if status == 400 and parent_slug and slugs.is_slug_path(parent_slug) and "parent" not in form.errors:
        parent = store.find_by_slug(discussion_id=post.id, slug=parent_slug)
        if parent is not None and pages.can_see(parent, viewer):
            return _render_permalink(request, post, parent, form=form, status=status, viewer=viewer)
    return post_detail(request, post.slug, form=form, status=status)


def _visible_comment(request, post, comment_path: str, viewer):
    """The comment at this path if `viewer` may see it; 404 otherwise (also before
    any query, for a path that is not a slug path)."""
    if not slugs.is_slug_path(comment_path):
        raise Http404(NO_SUCH_COMMENT)
    comment = store.find_by_slug(discussion_id=post.id, slug=comment_path)
    if comment is None or not pages.can_see(comment, viewer):
        raise Http404(NO_SUCH_COMMENT)
    return comment


@require_http_methods(["GET", "HEAD"])
def permalink(request, post_slug, comment_path):
    """One comment with its ancestors for context and its replies, paginated."""
    post = published_post_or_404(post_slug)
    viewer = ownership.viewer_for(request)
    comment = _visible_comment(request, post, comment_path, viewer)
    return _render_permalink(request, post, comment, viewer=viewer)


def _render_permalink(request, post, comment, *, viewer, form=None, status=200):
    replies = pages.list_comments(
        discussion_id=post.id,
        view="threaded",
        page=request.GET.get("page"),
        after=request.GET.get("after"),
        before=request.GET.get("before"),
        below=comment,
        viewer=viewer,
    )
    context = {
        "post": post,
        "focus": pages.present(comment, viewer),
        "comment": comment,
        "ancestors": [pages.present(a, viewer) for a in store.find_ancestors(comment=comment)],
        "listing": replies,
        "discussion_page": pages.page_of(comment, viewer),
        "form": form or CommentForm(initial={"parent": comment.slug}, user=request.user, discussion_id=post.id),
        "closed": services.comments_closed(post=post),
    }
    return render(request, "comments/permalink.html", context, status=status)


# --- Authors editing and deleting their own comments -----------------------------------


def _edit_page(request, post, comment, form, *, status=200):
    context = {"post": post, "comment": comment, "form": form, "editing": True,
               "minutes": int(services.edit_window().total_seconds() // 60)}
    return render(request, "comments/edit.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
def edit(request, post_slug, comment_path):
    """An author changes their own comment within the edit window."""
    post = published_post_or_404(post_slug)
    viewer = ownership.viewer_for(request)
    comment = _visible_comment(request, post, comment_path, viewer)
    if request.method != "POST":
        if not services.can_change(comment, viewer):
            raise Http404(NO_SUCH_COMMENT)
        return _edit_page(request, post, comment, EditCommentForm(initial={"text": comment.text}))
    form = EditCommentForm(request.POST)
    refusal = _rate_limited(request, action="edit", viewer=viewer)
    if refusal is not None:
        return _too_many(request, {"post": post, "comment": comment, "form": form, "editing": True,
                                   "minutes": int(services.edit_window().total_seconds() // 60)}, refusal)
    if not form.is_valid():
        return _edit_page(request, post, comment, form, status=400)
    try:
        edited = services.edit_comment(
            post=post, comment=comment, viewer=viewer, text=form.cleaned_data["text"],
            ip=client_ip(request), trusted=viewer.editor,
        )
    except services.CommentError as exc:
        form.add_error(None, forms.ValidationError(exc.message, code=exc.code))
        return _edit_page(request, post, comment, form, status=STATUS_OF.get(exc.code, 400))
    messages.success(request, EDITED_AWAITING if edited.status == store.PENDING else EDITED)
    return _see_other(permalink_url(post.slug, comment) + "#" + comment.anchor)


@require_POST
def delete(request, post_slug, comment_path):
    """An author deletes their own comment within the edit window."""
    post = published_post_or_404(post_slug)
    viewer = ownership.viewer_for(request)
    comment = _visible_comment(request, post, comment_path, viewer)
    try:
        services.delete_own_comment(comment=comment, viewer=viewer)
    except services.CommentError as exc:
        raise PermissionDenied(exc.message) from None
    messages.success(request, DELETED)
    return _see_other(reverse("post", args=[post.slug]) + "#comments")


# --- Readers flagging a comment ----------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
def flag(request, post_slug, comment_path):
    """A reader reports a comment to the editors, with a reason."""
    post = published_post_or_404(post_slug)
    viewer = ownership.viewer_for(request)
    comment = _visible_comment(request, post, comment_path, viewer)
    if request.method != "POST":
        return _flag_page(request, post, comment, FlagForm(), viewer=viewer)
    form = FlagForm(request.POST)
    refusal = _rate_limited(request, action="flag", viewer=viewer)
    if refusal is not None:
        return _too_many(request, {"post": post, "focus": pages.present(comment, viewer), "form": form,
                                   "flagging": True}, refusal)
    status = 400
    if form.is_valid():
        try:
            counted = services.flag_comment(
                comment=comment, flagger=services.flagger_key(user_id=viewer.user_id, ip=client_ip(request)),
                reason=form.cleaned_data["reason"], note=form.cleaned_data["note"],
            )
        except services.CommentError as exc:
            form.add_error(None, forms.ValidationError(exc.message, code=exc.code))
            status = STATUS_OF.get(exc.code, 400)
        else:
            messages.success(request, FLAGGED if counted else FLAGGED_BEFORE)
            # To the discussion: enough flags take the comment off its own page.
            return _see_other(reverse("post", args=[post.slug]) + "#comments")
    return _flag_page(request, post, comment, form, viewer=viewer, status=status)


def _flag_page(request, post, comment, form, *, viewer, status=200):
    context = {"post": post, "focus": pages.present(comment, viewer), "form": form}
    return render(request, "comments/flag.html", context, status=status)
