"""Login throttling, the parts Slugline adds to django-axes.

django-axes counts failed log-ins in Django's database (`AxesDatabaseHandler`), per
username and client address together, and refuses to authenticate that username
from that address for `LOGIN_COOLOFF_MINUTES` once the count reaches
`LOGIN_FAILURE_LIMIT`. Every gunicorn worker and machine shares the counts, and a
restart keeps them. Someone failing from another address cannot lock a user out.
Axes guards every `authenticate()` call, so the admin's login is throttled too.

The login page is django-allauth's (readers and editors alike): its one field takes a
username or an address. This module tells Axes whose account a try is for (the
account's username, however its owner spelled it), and what a refused visitor sees:
the login page, in the site's layout, with the reason.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_failure_limit
from django.conf import settings
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import ngettext_lazy

# Filled with str.format after translation: LOCKED_OUT.format(minutes=...).
LOCKED_OUT = ngettext_lazy(
    "Too many failed log-in attempts for this account from your address. "
    "Logging in is paused: try again in {minutes} minute.",
    "Too many failed log-in attempts for this account from your address. "
    "Logging in is paused: try again in {minutes} minutes.",
    "minutes",
)


def axes_username(request: HttpRequest | None, credentials: dict | None) -> str | None:
    """The name Axes counts a log-in under (settings.AXES_USERNAME_CALLABLE): the
    username of the account the typed login names, by username in any case or by
    address; else the typed login in lower case. So "ada", "ADA" and ada's address
    are one count, and no spelling buys more tries."""
    given = None
    if credentials:
        given = credentials.get("username") or credentials.get("email") or credentials.get("login")
    if given is None and request is not None:
        data = getattr(request, "data", request.POST)
        given = data.get("login") or data.get("username")
    if not given:
        return None
    given = str(given).strip()
    return _account_username(given) or given.lower()


def _account_username(login: str) -> str | None:
    """The username of the one account `login` names (its username, any case, or one of
    its addresses); None if none or several do."""
    from allauth.account.models import EmailAddress

    users = get_user_model()._default_manager
    found = list(users.filter(username__iexact=login).values_list("username", flat=True)[:2])
    if len(found) != 1 and "@" in login:
        holders = users.filter(pk__in=EmailAddress.objects.filter(email__iexact=login).values("user_id"))
        found = list((holders | users.filter(email__iexact=login)).values_list("username", flat=True)[:2])
    return found[0] if len(found) == 1 else None


def seconds_locked(request: HttpRequest, credentials: dict | None) -> int:
    """How long the pause on this request's username and address has left (at least a
    second, at most the cool-off)."""
    cooloff = settings.AXES_COOLOFF_TIME
    limit = get_failure_limit(request, credentials)
    handler = AxesProxyHandler.get_implementation()
    ends = [_pause_ends(attempts, limit=limit, cooloff=cooloff)
            for attempts in handler.get_user_attempts(request, credentials)]
    ends = [end for end in ends if end is not None]
    if not ends:
        return int(cooloff.total_seconds())
    left = math.ceil((max(ends) - timezone.now()).total_seconds())
    return max(1, min(int(cooloff.total_seconds()), left))


def _pause_ends(attempts, *, limit: int, cooloff: timedelta) -> datetime | None:
    """When the failures of these records drop below `limit` (None: they are below).
    Axes counts a record's failures until the cool-off after its latest one (a client
    that changes its user agent gets another record), so the oldest records go first."""
    records = sorted(attempts.values_list("attempt_time", "failures_since_start"))
    total, end = sum(failures for _, failures in records), None
    for at, failures in records:
        if total < limit:
            break
        total, end = total - failures, at + cooloff
    return end


def locked_out(request: HttpRequest, response: HttpResponse | None, credentials: dict | None) -> HttpResponse:
    """The login page again, saying why logging in is refused: 429 with Retry-After,
    the time the pause has left."""
    from allauth.account.forms import LoginForm
    from allauth.account.views import LoginView

    seconds = seconds_locked(request, credentials)
    page = LoginView()
    page.setup(request)
    typed = request.POST.get("login", "") if request.method == "POST" else ""
    context = page.get_context_data(form=LoginForm(request=request, initial={"login": typed}))
    context["locked_out"] = LOCKED_OUT.format(minutes=math.ceil(seconds / 60))
    refused = render(request, page.template_name, context, status=429)
    refused["Retry-After"] = str(seconds)
    return refused
