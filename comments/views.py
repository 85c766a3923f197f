from dataclasses import replace

from django import forms
from django.contrib import messages
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import get_language, gettext, gettext_noop
from django.views.decorators.http import require_http_methods
from pymongo.errors import PyMongoError

from comments import (
    antispam,
    conf,
    confirmations,
    fragments,
    in_place,
    notify,
    ownership,
    pages,
    polling,
    previews,
    records,
    services,
    slugs,
    store_switch,
)
from comments.forms import CommentForm, EditCommentForm, FlagForm, comment_form
from comments.host import Discussion, get_host
from comments.records import Comment, CommentAuthor, Viewer
from comments.stores import get_store
from infra import clients, mongo
from infra.http import see_other

NO_SUCH_COMMENT = gettext_noop("There is no such comment on this post.")
CANNOT_POST_NOW = gettext_noop(
    "Comments cannot be saved right now: the database is not answering. Your text is "
    "kept below; please post it again in a minute."
)
REATTACHED = gettext_noop(
    "Replies nest at most {depth} levels deep, so yours was added beside the comment "
    "you answered, at the deepest level."
)
AWAITING = gettext_noop("Thank you! Your comment awaits moderation: only you can see it until an editor approves it.")
POSTED = gettext_noop("Thank you: your comment is posted.")
POSTED_BEFORE = gettext_noop("This comment was posted already; here it is.")
NOT_SUBSCRIBED = gettext_noop(
    "Your comment is posted, but the database did not answer in time to record your mail "
    "settings: please tick the box again on your next comment."
)
# The same words whether or not the address was confirmed before (nothing tells which).
CHECK_YOUR_MAIL = gettext_noop(
    "Mail goes only to confirmed addresses: if {email} is not confirmed yet, a message with a "
    "link to confirm it is on its way. Nothing else is sent to it until then."
)
# A migration's last pass freezes writes for about this long (its message says "a minute").
MOVING_RETRY_SECONDS = 60
EDITED = gettext_noop("Your comment was changed.")
EDITED_AWAITING = gettext_noop(
    "Your comment was changed and now awaits moderation: only you can see it until an editor approves it."
)
DELETED = gettext_noop("Your comment was deleted.")
# The value of the field that says a delete was confirmed.
CONFIRM = "yes"
FLAGGED = gettext_noop("Thank you: the editors will look at this comment.")
FLAGGED_BEFORE = gettext_noop("You have flagged this comment already; the editors will look at it.")
# The form's refusals that leave it worth sending again with a fresh token.
RENEW_TOKEN = ("expired", "tampered")
# What each refusal of the service answers with.
STATUS_OF = services.REFUSAL_STATUS


def permalink_url(post_slug: str, comment: Comment) -> str:
    return reverse("comments:permalink", args=[post_slug, comment.slug])


def location_url(post: Discussion, comment: Comment, viewer: Viewer) -> str:
    """The page that draws `comment` for `viewer`, at its anchor: the post's own page
    (the article and its threaded discussion) at the comment's page, or below the
    indent limit, its thread's permalink page."""
    where = pages.location_of(comment, viewer)
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



def _rate_limited(request: HttpRequest, *, action: str, viewer: Viewer) -> antispam.RateLimited | None:
    """Count this write against the client's limits (editors are exempt); the refusal if over."""
    try:
        antispam.check_writer_rate(action=action, ip=client_ip(request), viewer=viewer)
    except antispam.RateLimited as exc:
        return exc
    return None


def _too_many(request: HttpRequest, context: dict, refusal: antispam.RateLimited) -> HttpResponse:
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


@require_http_methods(["GET", "HEAD", "POST"])
def discussion(request: HttpRequest, post_slug: str) -> HttpResponse:
    """GET: a page of comments in the chosen view. POST: a new comment or reply."""
    post = get_host().published_or_404(post_slug)
    if request.method == "POST":
        return _post_comment(request, post)
    notes = confirmations.take(request)
    fragment = fragments.comments_fragment(
        post=post,
        view=pages.parse_view(request.GET.get("view")),
        page=request.GET.get("page"),
        after=request.GET.get("after"),
        before=request.GET.get("before"),
        viewer=ownership.viewer_for(request),
        confirmations=notes,
    )
    form = comment_form(request, post.id)
    context = {"post": post, "comments_html": fragment.html, "page_number": fragment.number, "form": form,
               "closed": services.comments_closed(post=post), "messages": notes.at_top(placed=fragment.placed)}
    return render(request, "comments/discussion.html", context)


@require_http_methods(["GET", "HEAD"])
def latest(request: HttpRequest, post_slug: str) -> HttpResponse:
    """How many comments the discussion has now, and how many are new to a page that
    showed `?seen=N` (comments/polling.py); 304 while its ETag still holds."""
    seen = polling.parse_seen(request.GET.get("seen"))
    counts = polling.counts_of(post_slug)
    tag = polling.etag(counts, seen=seen, language=get_language())
    if tag in [t.strip() for t in request.headers.get("If-None-Match", "").split(",")]:
        response = HttpResponseNotModified()
    else:
        response = JsonResponse(polling.answer(counts, seen=seen))
    response["ETag"] = tag
    # Kept by the browser, but asked again each time (with If-None-Match).
    response["Cache-Control"] = "private, no-cache"
    return response


def _post_comment(request: HttpRequest, post: Discussion) -> HttpResponse:
    if request.POST.get("action") == previews.PREVIEW:
        return _preview(request, post)
    viewer = ownership.viewer_for(request)
    form = comment_form(request, post.id, request.POST)
    refusal = _rate_limited(request, action="post", viewer=viewer)
    if refusal is not None:
        return _too_many(request, {"post": post, "form": form}, refusal)
    status = 400
    if form.is_valid():
        data = form.cleaned_data
        if form.is_member:
            author = ownership.member_author(request.user)
        else:
            author = CommentAuthor(id=None, name=data["name"], email=data["email"])
        try:
            posted = services.post_comment(
                post=post, text=data["text"], author=author, parent_slug=data["parent"] or None,
                form_key=data["form_key"], ip=client_ip(request), trusted=viewer.editor, vouching=viewer.own,
                confirmed=viewer.confirmed,
            )
        except services.CommentError as exc:
            form.add_error("parent" if exc.code == "bad_parent" else None,
                           forms.ValidationError(exc.message, code=exc.code))
            status = STATUS_OF.get(exc.code, 400)
        except store_switch.Moving as exc:
            # A migration's last pass: a short, announced wait, not a failure.
            form.add_error(None, forms.ValidationError(str(exc), code="moving"))
            status = 503
        except PyMongoError as exc:
            if not mongo.is_outage(exc):
                raise
            # The same form (same token) can be sent again: it stores one comment.
            form.add_error(None, forms.ValidationError(gettext(CANNOT_POST_NOW), code="unavailable"))
            status = 503
        else:
            _notify(request, post, posted, form=form, author=author, from_this_browser=data["from_this_browser"])
            return _posted(request, post, posted, viewer=viewer, author=author,
                           from_this_browser=data["from_this_browser"])
    if any(form.has_error(NON_FIELD_ERRORS, code) for code in RENEW_TOKEN):
        form.renew_token()
    if form.has_error(NON_FIELD_ERRORS, "honeypot"):
        form.clear_honeypot()
    if in_place.wanted(request):
        moving = form.has_error(NON_FIELD_ERRORS, "moving")
        return in_place.form_answer(request, post, form, status=status,
                                    retry_after=MOVING_RETRY_SECONDS if moving else 0)
    parent_slug = form.data.get("parent", "").strip()
    if status == 400 and parent_slug and slugs.is_slug_path(parent_slug) and "parent" not in form.errors:
        parent = get_store().find_by_slug(discussion_id=post.id, slug=parent_slug)
        if parent is not None and viewer.sees(parent):
            return _render_permalink(request, post, parent, form=form, status=status, viewer=viewer)
    response = get_host().discussion_page(request, post, form=form, status=status)
    if form.has_error(NON_FIELD_ERRORS, "moving"):
        response["Retry-After"] = str(MOVING_RETRY_SECONDS)
    return response


# The fields a preview sends back into the form (the checkboxes apart).
PREVIEW_KEEPS = ("text", "parent", "name", "email")


def _preview(request: HttpRequest, post: Discussion) -> HttpResponse:
    """The form again, unstored, with the text rendered above its buttons: on the page
    it was sent from (a reply's: its parent's permalink page), or alone for the page's
    script. The form keeps its token, so posting after a preview is still posting it once."""
    data = request.POST
    kept = {name: data.get(name, "") for name in PREVIEW_KEEPS}
    kept.update({name: bool(data.get(name)) for name in ("notify_replies", "follow_discussion")})
    form = comment_form(request, post.id, **kept)
    if data.get("token"):
        form.initial["token"] = data["token"]
    form.preview = previews.preview(kept["text"])
    if in_place.wanted(request):
        return in_place.form_answer(request, post, form, status=200)
    viewer = ownership.viewer_for(request)
    parent_slug = kept["parent"].strip()
    if parent_slug and slugs.is_slug_path(parent_slug):
        parent = get_store().find_by_slug(discussion_id=post.id, slug=parent_slug)
        if parent is not None and viewer.sees(parent):
            return _render_permalink(request, post, parent, form=form, viewer=viewer)
    return get_host().discussion_page(request, post, form=form, status=200)


def _notify(request: HttpRequest, post: Discussion, posted: services.Posted, *, form: CommentForm,
            author: CommentAuthor, from_this_browser: bool) -> None:
    """Enqueue the mail this comment causes and record its author's opt-ins (only for
    a comment this request or this browser's form stored); mail is sent later, by
    `send_notifications`, never in the request."""
    notify.after_posting(posted.comment, post_author_id=post.author.id)
    if posted.duplicate and not (posted.same_form and from_this_browser):
        return
    data = form.cleaned_data
    try:
        typed = notify.subscribe_after_posting(
            comment=posted.comment, replies=data.get("notify_replies", False),
            follow=data.get("follow_discussion", False), email=form.notice_address,
            user_id=author.id, ip=client_ip(request), confirmed=ownership.confirmed_here(request),
        )
    except PyMongoError as exc:
        if not mongo.is_outage(exc):
            raise
        typed = False
        messages.warning(request, gettext(NOT_SUBSCRIBED), extra_tags=confirmations.tag(posted.comment.anchor))
    if typed:
        messages.info(request, gettext(CHECK_YOUR_MAIL).format(email=form.notice_address),
                      extra_tags=confirmations.tag(posted.comment.anchor))


def _posted(request: HttpRequest, post: Discussion, posted: services.Posted, *, viewer: Viewer,
            author: CommentAuthor, from_this_browser: bool) -> HttpResponse:
    """To the page of the discussion that draws the new comment, at its anchor (the
    stylesheet highlights it: `:target`), with a confirmation; the browser remembers
    the comment as its own and, for an anonymous reader, the name and e-mail.

    A comment is this browser's only if this request stored it, or stored it before
    from this very form sent from this browser (a resend after a lost answer). The
    same text sent from another form, or this form's token replayed by another
    browser, is answered with the comment that exists and no rights over it."""
    beside = confirmations.tag(posted.comment.anchor)
    if posted.reattached:
        messages.info(request, gettext(REATTACHED).format(depth=conf.get().max_depth), extra_tags=beside)
    owned = not posted.duplicate or (posted.same_form and from_this_browser)
    if owned:
        messages.success(request, gettext(AWAITING) if posted.pending else gettext(POSTED), extra_tags=beside)
    else:
        messages.info(request, gettext(POSTED_BEFORE), extra_tags=beside)
    mine = replace(viewer, own=viewer.own | {posted.comment.id}) if owned else viewer
    try:
        location = location_url(post, posted.comment, mine)
    except PyMongoError as exc:
        if not mongo.is_outage(exc):
            raise
        # The comment is stored; finding its page ran out of time: its own page needs no query.
        location = permalink_url(post.slug, posted.comment) + "#" + posted.comment.anchor
    if in_place.wanted(request):
        response = in_place.posted_answer(request, post, posted.comment, viewer=mine, location=location,
                                          counted=not posted.duplicate and posted.comment.approved)
    else:
        response = see_other(location)
    if not owned:
        return response
    ownership.remember(request, response, posted.comment.id)
    if author.id is None:
        ownership.remember_author(response, name=author.name, email=author.email)
    return response


def _visible_comment(request: HttpRequest, post: Discussion, comment_path: str, viewer: Viewer) -> Comment:
    """The comment at this path if `viewer` may see it; 404 otherwise (also before
    any query, for a path that is not a slug path)."""
    comment = pages.visible_comment(discussion_id=post.id, path=comment_path, viewer=viewer)
    if comment is None:
        raise Http404(gettext(NO_SUCH_COMMENT))
    return comment


@require_http_methods(["GET", "HEAD"])
def permalink(request: HttpRequest, post_slug: str, comment_path: str) -> HttpResponse:
    """One comment with its ancestors for context and its replies, paginated."""
    post = get_host().published_or_404(post_slug)
    viewer = ownership.viewer_for(request)
    comment = _visible_comment(request, post, comment_path, viewer)
    return _render_permalink(request, post, comment, viewer=viewer)


def _render_permalink(request: HttpRequest, post: Discussion, comment: Comment, *, viewer: Viewer,
                      form: CommentForm | None = None, status: int = 200) -> HttpResponse:
    replies = pages.list_comments(
        discussion_id=post.id,
        view="threaded",
        page=request.GET.get("page"),
        after=request.GET.get("after"),
        before=request.GET.get("before"),
        below=comment,
        viewer=viewer,
    )
    thread = pages.thread_of(comment, viewer)
    notes = confirmations.take(request)
    drawn = {comment.anchor} | {item.comment.anchor for item in replies.shown}
    context = {
        "confirmations": notes,
        "messages": notes.at_top(placed=notes.anchor in drawn),
        "post": post,
        "focus": thread.focus,
        "comment": comment,
        "ancestors": thread.ancestors,
        "listing": replies,
        "discussion_url": location_url(post, comment, viewer),
        "form": form or comment_form(request, post.id, parent=comment.slug),
        "closed": services.comments_closed(post=post),
    }
    return render(request, "comments/permalink.html", context, status=status)


# --- Authors editing and deleting their own comments -----------------------------------


def _edit_page(request: HttpRequest, post: Discussion, comment: Comment, form: EditCommentForm, *,
               status: int = 200) -> HttpResponse:
    context = {"post": post, "comment": comment, "form": form, "editing": True,
               "minutes": int(services.edit_window().total_seconds() // 60)}
    # The page's script, sending the edit form, gets the form alone (comments/in_place.py).
    in_place_answer = request.method == "POST" and in_place.wanted(request)
    return render(request, in_place.EDIT_FORM if in_place_answer else "comments/edit.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
def edit(request: HttpRequest, post_slug: str, comment_path: str) -> HttpResponse:
    """An author changes their own comment within the edit window."""
    post = get_host().published_or_404(post_slug)
    viewer = ownership.viewer_for(request)
    comment = _visible_comment(request, post, comment_path, viewer)
    if request.method != "POST":
        if not services.can_change(comment, viewer):
            raise Http404(gettext(NO_SUCH_COMMENT))
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
def delete(request: HttpRequest, post_slug: str, comment_path: str) -> HttpResponse:
    """An author deletes their own comment within the edit window, after confirming:
    GET (or a POST without `confirm`, as the edit page's older forms send) asks first."""
    post = get_host().published_or_404(post_slug)
    viewer = ownership.viewer_for(request)
    comment = _visible_comment(request, post, comment_path, viewer)
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
    messages.success(request, gettext(DELETED))
    return see_other(post.get_absolute_url() + "#comments")


def _delete_page(request: HttpRequest, post: Discussion, comment: Comment, *, viewer: Viewer) -> HttpResponse:
    """What will be deleted and what becomes of its replies, with Delete and Keep it."""
    replies = get_store().tally_listing(discussion_id=post.id, below=comment, viewer=viewer)
    context = {"post": post, "focus": pages.present(comment, viewer), "comment": comment,
               "replies": replies.comments, "confirm": CONFIRM,
               "keep_url": permalink_url(post.slug, comment) + "#" + comment.anchor}
    return render(request, "comments/delete.html", context)


# --- Readers flagging a comment ----------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
def flag(request: HttpRequest, post_slug: str, comment_path: str) -> HttpResponse:
    """A reader reports a comment to the editors, with a reason."""
    post = get_host().published_or_404(post_slug)
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
            messages.success(request, gettext(FLAGGED) if counted else gettext(FLAGGED_BEFORE))
            # To the discussion: enough flags take the comment off its own page.
            return see_other(post.get_absolute_url() + "#comments")
    return _flag_page(request, post, comment, form, viewer=viewer, status=status)


def _flag_page(request: HttpRequest, post: Discussion, comment: Comment, form: FlagForm, *, viewer: Viewer,
               status: int = 200) -> HttpResponse:
    context = {"post": post, "focus": pages.present(comment, viewer), "form": form}
    return render(request, "comments/flag.html", context, status=status)
