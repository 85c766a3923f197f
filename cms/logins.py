"""Login throttling, the parts Slugline adds to django-axes.

django-axes counts failed log-ins in Django's cache (`AxesCacheHandler`), once per
client address and once per username, and refuses to authenticate either for
`LOGIN_COOLOFF_MINUTES` once one reaches `LOGIN_FAILURE_LIMIT`. With `CACHE_URL`
pointing at Redis, every gunicorn worker and machine shares the counts. Axes guards
every `authenticate()` call, so the admin's login is throttled too.

This module tells Axes which address a request comes from and what a refused
visitor sees: the login page, in the site's layout, with the reason.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

LOCKED_OUT = (
    "Too many failed log-in attempts from your address or for this account. "
    "Logging in is paused: try again in {minutes} minutes."
)


def client_ip(request: HttpRequest) -> str:
    """The address failures count against.

    REMOTE_ADDR, or, with BEHIND_PROXY, the last address in X-Forwarded-For: the one
    our own proxy appended. Addresses before it were sent by the client and prove
    nothing (an attacker would rotate them to dodge the count).
    """
    if settings.BEHIND_PROXY:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        if forwarded[-1]:
            return forwarded[-1]
    return request.META.get("REMOTE_ADDR", "")


def cooloff_minutes() -> int:
    return int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)


def locked_out(request: HttpRequest, response: HttpResponse | None, credentials: dict | None) -> HttpResponse:
    """The login page again, saying why logging in is refused: 429 with Retry-After."""
    context = {
        "form": AuthenticationForm(request),
        "locked_out": LOCKED_OUT.format(minutes=cooloff_minutes()),
    }
    refused = render(request, "registration/login.html", context, status=429)
    refused["Retry-After"] = str(int(settings.AXES_COOLOFF_TIME.total_seconds()))
    return refused
