from django import forms
from django.core.exceptions import NON_FIELD_ERRORS
from django.contrib import messages
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from pymongo.errors import PyMongoError

from cms import mongo
from cms.authors import summary_for
from cms.views import post_detail, published_post_or_404
from comments import pages, services, slugs, store
from comments.forms import CommentForm
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


def permalink_url(post_slug: str, comment) -> str:
    return reverse("comments:permalink", args=[post_slug, comment.slug])


@require_http_methods(["GET", "HEAD", "POST"])
def discussion(request, post_slug):
    """GET: a page of comments in the chosen view. POST: a new comment or reply."""
    post = published_post_or_404(post_slug)
    if request.method == "POST":
        return _post_comment(request, post)
    view = pages.parse_view(request.GET.get("view"))
    listing = pages.list_comments(
        discussion_id=post.id,
        view=view,
        page=request.GET.get("page"),
        after=request.GET.get("after"),
        before=request.GET.get("before"),
    )
    form = CommentForm(user=request.user, discussion_id=post.id)
    context = {"post": post, "listing": listing, "views": pages.VIEWS, "form": form}
    return render(request, "comments/discussion.html", context)


def _post_comment(request, post):
    form = CommentForm(request.POST, user=request.user, discussion_id=post.id)
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
                form_key=data["form_key"],
            )
        except services.CommentError as exc:
            form.add_error("parent" if exc.code == "bad_parent" else None, exc.message)
        except PyMongoError as exc:
            if not mongo.is_outage(exc):
                raise
            # The same form (same token) can be sent again: it stores one comment.
            form.add_error(None, forms.ValidationError(CANNOT_POST_NOW, code="unavailable"))
            status = 503
        else:
            if posted.reattached:
                messages.info(request, REATTACHED.format(depth=services.max_depth()))
            response = HttpResponseRedirect(permalink_url(post.slug, posted.comment) + "#" + posted.comment.anchor)
            response.status_code = 303  # See Other: the browser GETs the new comment.
            return response
    if form.has_error(NON_FIELD_ERRORS, "expired") or form.has_error(NON_FIELD_ERRORS, "tampered"):
        form.renew_token()
    parent_slug = form.data.get("parent", "").strip()
    if status == 400 and parent_slug and slugs.is_slug_path(parent_slug) and "parent" not in form.errors:
        parent = store.find_by_slug(discussion_id=post.id, slug=parent_slug)
        if parent is not None:
            return _render_permalink(request, post, parent, form=form, status=status)
    return post_detail(request, post.slug, form=form, status=status)


def permalink(request, post_slug, comment_path):
    """One comment with its ancestors for context and its replies, paginated."""
    post = published_post_or_404(post_slug)
    if not slugs.is_slug_path(comment_path):
        raise Http404(NO_SUCH_COMMENT)
    comment = store.find_by_slug(discussion_id=post.id, slug=comment_path)
    if comment is None:
        raise Http404(NO_SUCH_COMMENT)
    return _render_permalink(request, post, comment)


def _render_permalink(request, post, comment, *, form=None, status=200):
    replies = pages.list_comments(
        discussion_id=post.id,
        view="threaded",
        page=request.GET.get("page"),
        after=request.GET.get("after"),
        before=request.GET.get("before"),
        below=comment,
    )
    context = {
        "post": post,
        "comment": comment,
        "ancestors": store.find_ancestors(comment=comment),
        "listing": replies,
        "discussion_page": pages.page_of(comment),
        "form": form or CommentForm(initial={"parent": comment.slug}, user=request.user, discussion_id=post.id),
    }
    return render(request, "comments/permalink.html", context, status=status)
