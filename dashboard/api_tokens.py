"""The dashboard's API tokens page (editors): make a token for a user, read or
read-write, valid for a chosen time; revoke one at once. Making one answers with a
redirect to the page (POST-redirect-GET), which shows its secret once, from the
session: reloading the page makes no second token and shows the secret no more. The
tokens themselves are api/tokens.py's."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST

from api import token_forms, tokens
from dashboard.rendering import render_page
from dashboard.permissions import editor_required
from infra.http import see_other

NO_SUCH_USER = gettext_noop("There is no active account with this username.")
SCOPES = [(tokens.READ, _("Read only")), (tokens.READ_WRITE, _("Read and write"))]
# The session key that carries a new token's secret to the one page that shows it.
NEW_SECRET = "dashboard_api_token_secret"


class TokenForm(token_forms.TokenForm):
    username = forms.CharField(max_length=150, label=_("Account the token acts as"))
    scope = forms.ChoiceField(choices=SCOPES, initial=tokens.READ, widget=forms.RadioSelect, label=_("Scope"))
    field_order = ["username", "name", "scope", "lifetime"]

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
        return token_forms.private(_page(request, TokenForm(), secret=token_forms.show_once(request, NEW_SECRET)))
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    _, secret = tokens.create_token(user_id=form.user.pk, name=form.cleaned_data["name"],
                                    scope=form.cleaned_data["scope"], created_by=request.user.get_username(),
                                    days=form.cleaned_data["lifetime"])
    token_forms.keep_secret(request, NEW_SECRET, secret)
    return see_other(reverse("dashboard:api_tokens"))


@editor_required
@require_POST
def token_revoke(request, token_id):
    token_forms.say_revoked(request, tokens.revoke(token_id=token_id))
    return see_other(reverse("dashboard:api_tokens"))
