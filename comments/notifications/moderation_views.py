"""The page behind the Approve, Spam and Delete links of the editors' queue mail
(comments/notifications/mail_moderation.py): GET shows the comment and one button
and changes nothing (mail programs and scanners open links); the button's POST acts
and says what it did. The signed link is the editor's credential, so no sign-in is
asked; the POST carries Django's CSRF token, which the GET's form gives the browser
(a page elsewhere cannot post it). Every refusal is a page in the site's layout.

Like the subscription pages, it answers under every discussion's prefix and at a
host's site-wide mount alike (comments/notifications/urls.py); the token alone says
what it is about. It names a held comment and an editor's power over it, so no cache
may keep it, and it tells no other site where it was (`Referrer-Policy`)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_http_methods

from comments.host import get_host
from comments.internal import rendering
from comments.moderation.views import STILL_APPLYING
from comments.notifications import mail_moderation
from comments.notifications.mail_moderation import Done, LinkRefused, Ready

# What the POST says it did, by action (the comment's author's name filled in).
DONE = {
    "approve": gettext_noop("You approved the comment by %(name)s: readers see it now."),
    "spam": gettext_noop("You marked the comment by %(name)s as spam."),
    "delete": gettext_noop("You deleted the comment by %(name)s."),
}


@cache_control(private=True, no_store=True)
@require_http_methods(["GET", "HEAD", "POST"])
def moderate(request: HttpRequest, token: str, discussion: str = "") -> HttpResponse:
    """GET: the comment, what the link would do, and its button. POST: done, once."""
    try:
        if request.method == "POST":
            return _done(request, mail_moderation.act(token))
        return _page(request, "comments/mail_moderation/confirm.html", _context(mail_moderation.check(token)))
    except LinkRefused as refused:
        context = {"message": gettext(refused.message), "comment": refused.comment,
                   "post": refused.discussion, "code": refused.code}
        return _page(request, "comments/mail_moderation/refused.html", context, status=refused.status)


def _context(ready: Ready) -> dict:
    comment, post = ready.comment, ready.discussion
    return {"comment": comment, "post": post, "action": ready.link.action, "editor": ready.editor,
            "permalink": reverse("comments:permalink", args=[post.slug, comment.slug]) if post else ""}


def _done(request: HttpRequest, done: Done) -> HttpResponse:
    context = {**_context(done.ready), "done": gettext(DONE[done.ready.link.action]) % {
        "name": done.ready.comment.author.name}}
    if not done.progress.done:
        context["still_applying"] = gettext(STILL_APPLYING)
    return _page(request, "comments/mail_moderation/done.html", context)


def _page(request: HttpRequest, template_name: str, context: dict, *, status: int = 200) -> HttpResponse:
    """A page of the app's in the host's layout, with a link to the host's queue."""
    response = rendering.render(request, template_name, {**context, "queue_url": get_host().moderation_url() or ""},
                                status=status)
    response["Referrer-Policy"] = "no-referrer"
    return response
