"""A member's own API tokens, on their account page: made, listed and revoked by the
member, each acting as them (posting, editing, deleting, flagging and voting as they
would on the site) and never with an editor's powers (api/tokens.py's member scope).
A new token's secret is shown once (api/token_forms.py); only its digest is kept."""

from __future__ import annotations

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from api import token_forms, tokens
from infra.http import see_other

TOO_MANY = gettext_noop("You have {limit} tokens already: revoke one you no longer use to make another.")
# The session key that carries a new token's secret to the one page that shows it.
NEW_SECRET = "account_api_token_secret"


class MemberTokenForm(token_forms.TokenForm):
    """A member's new token: what it is for and how long it works, while they hold
    fewer than tokens.MEMBER_LIMIT."""

    def __init__(self, *args: object, user: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean(self) -> dict:
        cleaned = super().clean()
        if len(tokens.of_user(user_id=self.user.pk, scope=tokens.MEMBER)) >= tokens.MEMBER_LIMIT:
            raise forms.ValidationError(gettext(TOO_MANY).format(limit=tokens.MEMBER_LIMIT), code="too_many_tokens")
        return cleaned


def _page(request: HttpRequest, form: MemberTokenForm, *, secret: str = "", status: int = 200) -> HttpResponse:
    context = {"form": form, "secret": secret, "tokens": tokens.of_user(user_id=request.user.pk, scope=tokens.MEMBER)}
    return token_forms.private(render(request, "account/api_tokens.html", context, status=status))


@never_cache
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def token_list(request: HttpRequest) -> HttpResponse:
    """The member's working tokens, newest first, and the form that makes one."""
    if request.method != "POST":
        return _page(request, MemberTokenForm(user=request.user), secret=token_forms.show_once(request, NEW_SECRET))
    form = MemberTokenForm(request.POST, user=request.user)
    if not form.is_valid():
        return _page(request, form, status=400)
    _, secret = tokens.create_token(user_id=request.user.pk, name=form.cleaned_data["name"], scope=tokens.MEMBER,
                                    created_by=request.user.get_username(), days=form.cleaned_data["lifetime"])
    token_forms.keep_secret(request, NEW_SECRET, secret)
    return see_other(reverse("account_api_tokens"))


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: str) -> HttpResponse:
    """Revoke one of the member's own tokens at once (another's is unknown here)."""
    token_forms.say_revoked(request, tokens.revoke(token_id=token_id, user_id=request.user.pk, scope=tokens.MEMBER))
    return see_other(reverse("account_api_tokens"))
