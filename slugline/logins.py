"""Login throttling, the parts Slugline adds to django-axes.

django-axes counts failed log-ins in Django's database (`AxesDatabaseHandler`), per
username and client address together, and refuses to authenticate that username
from that address for `LOGIN_COOLOFF_MINUTES` once the count reaches
`LOGIN_FAILURE_LIMIT`. Every gunicorn worker and machine shares the counts, and a
restart keeps them. Someone failing from another address cannot lock a user out.
Axes guards every `authenticate()` call, so the admin's login is throttled too.

This module tells Axes which address a request comes from and what a refused
visitor sees: the login page, in the site's layout, with the reason.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_failure_limit
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
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
    seconds = seconds_locked(request, credentials)
    context = {
        "form": AuthenticationForm(request),
        "locked_out": LOCKED_OUT.format(minutes=math.ceil(seconds / 60)),
    }
    refused = render(request, "registration/login.html", context, status=429)
    refused["Retry-After"] = str(seconds)
    return refused
