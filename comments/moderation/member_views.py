"""A member's moderation history page (for moderators): their account's age and
whether it is verified, their ban now and every ban before (with who banned, why,
until when, who lifted it), their latest comments, and the forms to ban (with a
reason and a length) or unban them. Thin, as views.py: form -> comments.moderation
-> redirect; every change a POST with Django's CSRF check."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext, gettext_noop, ngettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from comments.host import get_host
from comments.moderation import changes, confirmations, queue as moderation
from comments.moderation.blocklist import BAN_USER
from comments.moderation.forms import BanForm
from comments.moderation.standing import standing
from comments.moderation.views import BANNED, BAN_LIFTED, BAN_LIFTED_RESTORED, _render, _url, moderator_required
from comments.records import NEWEST, Commenter
from comments.stores import get_store
from comments.stores.queries import Query
from infra.http import see_other

NO_SUCH_MEMBER = gettext_noop("There is no member with this number.")
NOT_BANNED = gettext_noop("This member is not banned; nothing was changed.")
BANNED_NONE = gettext_noop("Banned {who}; none of their comments needed marking as spam.")
# How many of a member's latest comments their page lists.
LATEST = 20
STILL_APPLYING = ngettext_lazy(
    "{count} comment is still being marked as spam in the background.",
    "{count} comments are still being marked as spam in the background.", "count",
)


def _member(user_id: int) -> Any:
    return get_user_model()._default_manager.filter(pk=user_id).first()


@moderator_required
@require_http_methods(["GET", "HEAD"])
def member(request: HttpRequest, user_id: int) -> HttpResponse:
    """The member's history page."""
    return _page(request, user_id, ban_form=BanForm())


def _page(request: HttpRequest, user_id: int, *, ban_form: BanForm, status: int = 200) -> HttpResponse:
    user = _member(user_id)
    found = standing(user_id)
    if user is None and not found.bans:
        raise Http404(gettext(NO_SUCH_MEMBER))
    name = get_host().commenter_name(user) if user is not None else confirmations.ACCOUNT_GONE % {"id": user_id}
    latest = get_store().find(Query(commenter=Commenter(user_id=user_id), order=tuple(NEWEST), limit=LATEST))
    refused = moderation.member_ban_refusal(user_id=user_id, name=name, editor_id=request.user.pk) if user else None
    context = {
        "member_id": user_id, "name": name, "account_gone": user is None, "standing": found,
        "current_ban": found.current_ban, "comments": latest, "ban_form": ban_form,
        "cannot_ban": refused.message if refused is not None else "",
        "to_mark": len(moderation.member_comments(user_id)),
        "restorable": len(moderation.restorable_by(kind=BAN_USER, value=str(user_id))),
    }
    return _render(request, "comments/moderation/member.html", context, status=status)


@moderator_required
@require_POST
def member_ban(request: HttpRequest, user_id: int) -> HttpResponse:
    """Ban the member by account with a reason and a length, and mark their comments as spam."""
    user = _member(user_id)
    if user is None:
        raise Http404(gettext(NO_SUCH_MEMBER))
    form = BanForm(request.POST)
    if not form.is_valid():
        return _page(request, user_id, ban_form=form, status=400)
    name = get_host().commenter_name(user)
    try:
        banned = moderation.ban_member(user_id=user_id, name=name, editor=request.user.get_username(),
                                       editor_id=request.user.pk, reason=form.cleaned_data["reason"],
                                       ends=form.cleaned_data["ends"])
    except (changes.TooMany, moderation.BanRefused) as exc:
        messages.error(request, exc.message)
        return _page(request, user_id, ban_form=form, status=403)
    who = confirmations.MEMBER % {"name": name}
    template = BANNED if banned.marked else gettext(BANNED_NONE)
    messages.success(request, template.format(who=who, count=banned.marked))
    if not banned.done:
        messages.info(request, STILL_APPLYING.format(count=banned.marked))
    return _back_to_member(request, user_id)


@moderator_required
@require_POST
def member_unban(request: HttpRequest, user_id: int) -> HttpResponse:
    """Lift the member's ban; with `restore=yes`, give the comments it marked as spam
    back the status they had."""
    lifted = moderation.unban_member(user_id=user_id, editor=request.user.get_username(),
                                     restore=request.POST.get("restore") == "yes")
    if not lifted.removed:
        messages.error(request, gettext(NOT_BANNED))
    elif lifted.restored:
        messages.success(request, BAN_LIFTED_RESTORED.format(count=lifted.restored))
    else:
        messages.success(request, gettext(BAN_LIFTED))
    return _back_to_member(request, user_id)


def _back_to_member(request: HttpRequest, user_id: int) -> HttpResponse:
    return see_other(_url(request, "member", user_id))
