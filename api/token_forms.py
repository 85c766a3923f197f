"""What the two pages that make API tokens share: the dashboard's (editors, a token
for any account) and a member's account page (their own). A token's name and
lifetime fields, and its secret shown once: the POST that made it keeps it in the
session and answers with a redirect (POST-redirect-GET), and the page it lands on
takes it out again, answered with `private, no-store`: reloading makes no second
token and shows the secret no more. The tokens themselves are api/tokens.py's."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

REVOKED = gettext_noop("The token is revoked: it no longer works.")
NOT_REVOKED = gettext_noop("That token is unknown or was revoked already.")

# How long a new token works, in days ("" : until it is revoked).
LIFETIMES = [("30", _("30 days")), ("90", _("90 days")), ("365", _("A year")), ("", _("Until revoked"))]


class TokenForm(forms.Form):
    """What it is for, and how long it works (`cleaned_data["lifetime"]`: days, or None)."""

    name = forms.CharField(max_length=80, label=_("What it is for"))
    lifetime = forms.ChoiceField(choices=LIFETIMES, initial="90", required=False, widget=forms.RadioSelect,
                                 label=_("Works for"))

    def clean_lifetime(self) -> int | None:
        return int(self.cleaned_data["lifetime"]) if self.cleaned_data["lifetime"] else None


def keep_secret(request: HttpRequest, key: str, secret: str) -> None:
    """Keep a new token's secret for the one page that shows it (session key `key`)."""
    request.session[key] = secret


def show_once(request: HttpRequest, key: str) -> str:
    """The secret kept under `key`, taken out of the session ("" when there is none)."""
    return str(request.session.pop(key, ""))


def private(response: HttpResponse) -> HttpResponse:
    """`response`, kept in no cache: it may show a secret."""
    response["Cache-Control"] = "private, no-store"
    return response


def say_revoked(request: HttpRequest, revoked: bool) -> None:
    """Tell the page's reader whether the token they revoked is revoked now."""
    if revoked:
        messages.success(request, gettext(REVOKED))
    else:
        messages.error(request, gettext(NOT_REVOKED))
