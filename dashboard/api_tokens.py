"""The dashboard's API tokens page (editors): make a token for a user, read or
read-write, shown once; revoke one at once. The tokens themselves are api/tokens.py's."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST

from api import tokens
from dashboard.rendering import render_page
from dashboard.permissions import editor_required
from infra.http import see_other

NO_SUCH_USER = gettext_noop("There is no active account with this username.")
REVOKED = gettext_noop("The token is revoked: it no longer works.")
NOT_REVOKED = gettext_noop("That token is unknown or was revoked already.")
SCOPES = [(tokens.READ, _("Read only")), (tokens.READ_WRITE, _("Read and write"))]


class TokenForm(forms.Form):
    username = forms.CharField(max_length=150, label=_("Account the token acts as"))
    name = forms.CharField(max_length=80, label=_("What it is for"))
    scope = forms.ChoiceField(choices=SCOPES, initial=tokens.READ, widget=forms.RadioSelect, label=_("Scope"))

    def clean_username(self):
        username = self.cleaned_data["username"].strip()
        user = get_user_model().objects.filter(username=username, is_active=True).first()
        if user is None:
            raise forms.ValidationError(gettext(NO_SUCH_USER), code="no_such_user")
        self.user = user
        return username


def _page(request, form, *, secret: str = "", status: int = 200):
    users = {u.pk: u.get_username() for u in get_user_model().objects.all().only("username")}
    rows = [(token, users.get(token.user_id, "?")) for token in tokens.newest()]
    return render_page(request, "dashboard/api_tokens.html", {"form": form, "rows": rows, "secret": secret},
                       status=status)


@editor_required
@require_http_methods(["GET", "HEAD", "POST"])
def token_list(request):
    """The tokens, newest first, and the form that makes one (its secret shown once)."""
    if request.method != "POST":
        return _page(request, TokenForm())
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    _, secret = tokens.create_token(user_id=form.user.pk, name=form.cleaned_data["name"],
                                    scope=form.cleaned_data["scope"], created_by=request.user.get_username())
    return _page(request, TokenForm(), secret=secret, status=201)


@editor_required
@require_POST
def token_revoke(request, token_id):
    if tokens.revoke(token_id=token_id):
        messages.success(request, gettext(REVOKED))
    else:
        messages.error(request, gettext(NOT_REVOKED))
    return see_other(reverse("dashboard:api_tokens"))
