"""The site header's account links: whose account is signed in, and the way back."""

from __future__ import annotations

from urllib.parse import urlencode

from django import template
from django.conf import settings
from django.shortcuts import resolve_url
from django.urls import reverse

from accounts.names import display_name

register = template.Library()


@register.simple_tag
def account_name(user) -> str:
    return display_name(user)


@register.simple_tag(takes_context=True)
def return_here(context) -> str:
    """`?next=<this page>` for a link to sign in or up, so that the reader comes back
    here after; nothing where that is where they would land anyway (home), on the
    account pages themselves (no loop back to the form) or after a POST."""
    request = context.get("request")
    if request is None or request.method != "GET":
        return ""
    accounts = reverse("account_login").removesuffix("login/")
    here = request.get_full_path()
    if request.path.startswith(accounts) or here == resolve_url(settings.LOGIN_REDIRECT_URL):
        return ""
    return "?" + urlencode({"next": here})


@register.simple_tag
def code_minutes() -> int:
    """How long a mailed code works (ACCOUNT_CODE_MINUTES): the pages and mails say it."""
    return settings.ACCOUNT_CODE_MINUTES
