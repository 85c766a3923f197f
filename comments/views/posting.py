"""Posting a comment or a reply: the form, its preview, the rules' refusals (in the
app's own page, with the reader's text kept), and the page that draws the new comment."""

from dataclasses import replace

from bson import ObjectId
from django import forms
from django.contrib import messages
from django.core.exceptions import NON_FIELD_ERRORS
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_http_methods
from pymongo.errors import PyMongoError

from comments import conf, slugs
from comments.host import Discussion, get_host
from comments.internal.rendering import render
from comments.notifications import notify
from comments.posting import confirmations, ownership, previews, services
from comments.posting.forms import CommentForm, comment_form
from comments.records import CommentAuthor, Viewer
from comments.stores import get_store, store_switch
from comments.views import in_place, reading
from comments.views.common import (
    MOVING_RETRY_SECONDS,
    STATUS_OF,
    client_ip,
    location_url,
    permalink_url,
    rate_limited,
    too_many,
)
from infra import mongo
from infra.http import see_other

CANNOT_POST_NOW = gettext_noop(
    "Comments cannot be saved right now: the database is not answering. Your text is "
    "kept below; please post it again in a minute."
)
# The form's heading on the page that keeps it during an outage (comments/unavailable.html).
YOUR_COMMENT = gettext_noop("Your comment")
YOUR_COMMENT_ON = gettext_noop("Your comment on “{title}”")
# As the site's own 503 page says (slugline.middleware).
OUTAGE_RETRY_SECONDS = 30
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
# The form's refusals that leave it worth sending again with a fresh token.
RENEW_TOKEN = ("expired", "tampered")


@require_http_methods(["GET", "HEAD", "POST"])
def discussion(request: HttpRequest, discussion: str) -> HttpResponse:
    """GET: a page of comments in the chosen view (comments/views/reading.py). POST: a
    new comment or reply."""
    if request.method != "POST":
        return reading.discussion(request, discussion)
    post = None
    try:
        post = get_host().published_or_404(discussion)
        return _post_comment(request, post)
    except PyMongoError as exc:
        if not mongo.is_outage(exc):
            raise
        # The post's page cannot be drawn (no copy of it in this process: a worker
        # started since it was read), or a step before storing failed: not the
        # generic 503 page, which would lose what the reader wrote.
        return _kept_in_outage(request, discussion, post=post)


def _kept_in_outage(request: HttpRequest, discussion: str, *, post: Discussion | None) -> HttpResponse:
    """503 in the site's layout with the reader's form as they sent it (text, name,
    e-mail, token: sent again, it still stores one comment), posting back to this
    address, and why; the form's heading names the post when it is known."""
    form = _kept_form(request, post.id if post else None)
    heading = gettext(YOUR_COMMENT_ON).format(title=post.title) if post else gettext(YOUR_COMMENT)
    context = {"post": post or {"slug": discussion}, "form": form, "heading": heading,
               "refusal": gettext(CANNOT_POST_NOW)}
    response = render(request, "comments/unavailable.html", context, status=503)
    response["Retry-After"] = str(OUTAGE_RETRY_SECONDS)
    return response


def _post_comment(request: HttpRequest, post: Discussion) -> HttpResponse:
    if request.POST.get("action") == previews.PREVIEW:
        return _preview(request, post)
    viewer = ownership.viewer_for(request)
    form = comment_form(request, post.id, request.POST)
    refusal = rate_limited(request, action="post", viewer=viewer)
    if refusal is not None:
        return too_many(request, {"post": post, "form": form}, refusal)
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
    if form.barrier is not None:
        status = 403
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
            return reading.render_permalink(request, post, parent, form=form, status=status, viewer=viewer)
    response = reading.render_discussion(request, post, form=form, status=status)
    if form.has_error(NON_FIELD_ERRORS, "moving"):
        response["Retry-After"] = str(MOVING_RETRY_SECONDS)
    return response


# The fields a preview sends back into the form (the checkboxes apart).
PREVIEW_KEEPS = ("text", "parent", "name", "email")


def _kept_form(request: HttpRequest, discussion_id: ObjectId | None) -> CommentForm:
    """The form again, unbound, filled in with what the reader sent (PREVIEW_KEEPS and
    the boxes) and keeping its token, so posting it later is still posting it once."""
    data = request.POST
    kept = {name: data.get(name, "") for name in PREVIEW_KEEPS}
    kept.update({name: bool(data.get(name)) for name in ("notify_replies", "follow_discussion")})
    form = comment_form(request, discussion_id, **kept)
    if data.get("token"):
        form.initial["token"] = data["token"]
    return form


def _preview(request: HttpRequest, post: Discussion) -> HttpResponse:
    """The form again, unstored, with the text rendered above its buttons: on the
    discussion's page (a reply's: its parent's permalink page), or alone for the page's
    script. The form keeps its token, so posting after a preview is still posting it once."""
    form = _kept_form(request, post.id)
    form.preview = previews.preview(form.initial["text"])
    if in_place.wanted(request):
        return in_place.form_answer(request, post, form, status=200)
    viewer = ownership.viewer_for(request)
    parent_slug = form.initial["parent"].strip()
    if parent_slug and slugs.is_slug_path(parent_slug):
        parent = get_store().find_by_slug(discussion_id=post.id, slug=parent_slug)
        if parent is not None and viewer.sees(parent):
            return reading.render_permalink(request, post, parent, form=form, viewer=viewer)
    return reading.render_discussion(request, post, form=form, status=200)


def _notify(request: HttpRequest, post: Discussion, posted: services.Posted, *, form: CommentForm,
            author: CommentAuthor, from_this_browser: bool) -> None:
    """Enqueue the mail this comment causes and record its author's opt-ins (only for
    a comment this request or this browser's form stored); mail is sent later, by
    `send_notifications`, never in the request. The notices every posted comment
    causes were enqueued as it was posted (`comment_posted`, comments/signals.py)."""
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

