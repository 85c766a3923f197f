"""Changing a comment: authors editing and deleting their own within the edit
window, readers flagging one for the editors."""

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_http_methods

from comments import records
from comments.host import Discussion, get_host
from comments.internal.rendering import render
from comments.posting import confirmations, ownership, services
from comments.posting.forms import EditCommentForm, FlagForm
from comments.reading import listings
from comments.reading.pictures import item_with_picture
from comments.records import Comment, Viewer
from comments.stores import get_store, store_switch
from comments.views import in_place
from comments.views.common import (
    MOVING_RETRY_SECONDS,
    NO_SUCH_COMMENT,
    STATUS_OF,
    client_ip,
    permalink_url,
    rate_limited,
    too_many,
    visible_comment,
)
from infra.http import see_other

EDITED = gettext_noop("Your comment was changed.")
EDITED_AWAITING = gettext_noop(
    "Your comment was changed and now awaits moderation: only you can see it until an editor approves it."
)
DELETED = gettext_noop("Your comment was deleted.")
# The value of the field that says a delete was confirmed.
CONFIRM = "yes"
FLAGGED = gettext_noop("Thank you: the editors will look at this comment.")
FLAGGED_BEFORE = gettext_noop("You have flagged this comment already; the editors will look at it.")

# --- Authors editing and deleting their own comments -----------------------------------


def _edit_page(request: HttpRequest, post: Discussion, comment: Comment, form: EditCommentForm, *,
               status: int = 200) -> HttpResponse:
    context = {"post": post, "comment": comment, "form": form, "editing": True,
               "minutes": int(services.edit_window().total_seconds() // 60)}
    # The page's script, sending the edit form, gets the form alone (comments/views/in_place.py).
    in_place_answer = request.method == "POST" and in_place.wanted(request)
    return render(request, in_place.EDIT_FORM if in_place_answer else "comments/edit.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
def edit(request: HttpRequest, discussion: str, comment_path: str) -> HttpResponse:
    """An author changes their own comment within the edit window."""
    post = get_host().published_or_404(discussion)
    viewer = ownership.viewer_for(request)
    comment = visible_comment(request, post, comment_path, viewer)
    if request.method != "POST":
        if not services.can_change(comment, viewer):
            raise Http404(gettext(NO_SUCH_COMMENT))
        return _edit_page(request, post, comment, EditCommentForm(initial={"text": comment.text}))
    form = EditCommentForm(request.POST)
    refusal = rate_limited(request, action="edit", viewer=viewer)
    if refusal is not None:
        return too_many(request, {"post": post, "comment": comment, "form": form, "editing": True,
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
    except store_switch.Moving as exc:
        form.add_error(None, forms.ValidationError(str(exc), code="moving"))
        response = _edit_page(request, post, comment, form, status=503)
        response["Retry-After"] = str(MOVING_RETRY_SECONDS)
        return response
    messages.success(request, gettext(EDITED_AWAITING) if edited.status == records.PENDING else gettext(EDITED),
                     extra_tags=confirmations.tag(comment.anchor))
    if in_place.wanted(request):
        return in_place.edited_answer(request, post, edited, viewer=viewer)
    return see_other(permalink_url(post.slug, comment) + "#" + comment.anchor)


@require_http_methods(["GET", "HEAD", "POST"])
def delete(request: HttpRequest, discussion: str, comment_path: str) -> HttpResponse:
    """An author deletes their own comment within the edit window, after confirming:
    GET (or a POST without `confirm`, as the edit page's older forms send) asks first."""
    post = get_host().published_or_404(discussion)
    viewer = ownership.viewer_for(request)
    comment = visible_comment(request, post, comment_path, viewer)
    if request.method != "POST" or request.POST.get("confirm") != CONFIRM:
        if not services.can_change(comment, viewer):
            if request.method != "POST":
                raise Http404(gettext(NO_SUCH_COMMENT))
            raise PermissionDenied(gettext(services.NOT_YOURS) if not viewer.owns(comment)
                                   else gettext(services.CANNOT_CHANGE))
        return _delete_page(request, post, comment, viewer=viewer)
    try:
        services.delete_own_comment(comment=comment, viewer=viewer)
    except services.CommentError as exc:
        raise PermissionDenied(exc.message) from None
    messages.success(request, gettext(DELETED), extra_tags=confirmations.tag(confirmations.SECTION))
    return see_other(post.get_absolute_url() + "#comments")


def _delete_page(request: HttpRequest, post: Discussion, comment: Comment, *, viewer: Viewer) -> HttpResponse:
    """What will be deleted and what becomes of its replies, with Delete and Keep it."""
    replies = get_store().tally_listing(discussion_id=post.id, below=comment, viewer=viewer)
    context = {"post": post, "focus": item_with_picture(listings.present(comment, viewer)), "comment": comment,
               "replies": replies.comments, "confirm": CONFIRM,
               "keep_url": permalink_url(post.slug, comment) + "#" + comment.anchor}
    return render(request, "comments/delete.html", context)


# --- Readers flagging a comment ----------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
def flag(request: HttpRequest, discussion: str, comment_path: str) -> HttpResponse:
    """A reader reports a comment to the editors, with a reason."""
    post = get_host().published_or_404(discussion)
    viewer = ownership.viewer_for(request)
    comment = visible_comment(request, post, comment_path, viewer)
    if request.method != "POST":
        return _flag_page(request, post, comment, FlagForm(), viewer=viewer)
    form = FlagForm(request.POST)
    refusal = rate_limited(request, action="flag", viewer=viewer)
    if refusal is not None:
        return too_many(request, {"post": post, "focus": item_with_picture(listings.present(comment, viewer)), "form": form,
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
            messages.success(request, gettext(FLAGGED) if counted else gettext(FLAGGED_BEFORE),
                             extra_tags=confirmations.tag(confirmations.SECTION))
            # To the discussion: enough flags take the comment off its own page.
            return see_other(post.get_absolute_url() + "#comments")
    return _flag_page(request, post, comment, form, viewer=viewer, status=status)


def _flag_page(request: HttpRequest, post: Discussion, comment: Comment, form: FlagForm, *, viewer: Viewer,
               status: int = 200) -> HttpResponse:
    context = {"post": post, "focus": item_with_picture(listings.present(comment, viewer)), "form": form}
    return render(request, "comments/flag.html", context, status=status)
