"""Who a request comes from, the same way for every app (rate limits, bans, log-in
throttling)."""

from __future__ import annotations

from django.http import HttpRequest

from infra import conf


def client_ip(request: HttpRequest) -> str:
    """The address failures count against.

    REMOTE_ADDR, or, with BEHIND_PROXY, the last address in X-Forwarded-For: the one
    our own proxy appended. Addresses before it were sent by the client and prove
    nothing (an attacker would rotate them to dodge the count).
    """
    if conf.get("BEHIND_PROXY"):
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        if forwarded[-1]:
            return forwarded[-1]
    return request.META.get("REMOTE_ADDR", "")
