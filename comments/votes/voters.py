"""Who a vote is from: a member by their account, an anonymous reader by their
browser, which keeps a random voter token in a signed, long-lived cookie.

The key stored with a vote is `u:<user id>` or `b:<keyed hash of the token>`: the
token itself never reaches the database, so reading `comment_votes` does not let
anyone vote as someone else. A forged or altered cookie fails its signature and the
browser simply gets a fresh token: a new voter, as a browser whose cookies were
cleared is, and both are bounded by the per-address limits (comments/views/votes.py).
A copied cookie only ever changes that one voter's own votes.

A browser's first token is not drawn at random: its first vote may leave from several
tabs at once, none of which has the cookie yet, and each would be a voter of its own.
So it is a keyed hash of what all its tabs send alike, the secret of its CSRF cookie
(which every vote, a POST, carries): the tabs' first votes are one voter's, and the
cookie each answer sets names that voter.
"""

from __future__ import annotations

import secrets

from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.utils.crypto import salted_hmac

COOKIE = "comments_voter"
SALT = "comments.voter"
# Of a browser's first token, derived from its CSRF secret.
FIRST_SALT = "comments.voter.first"
# Two years: a vote stays the reader's to change as long as their browser keeps it.
MAX_AGE = 2 * 365 * 24 * 3600


def token_of(request: HttpRequest) -> str | None:
    """This browser's voter token, if its cookie verifies."""
    raw = request.COOKIES.get(COOKIE)
    if not raw:
        return None
    try:
        token = signing.loads(raw, salt=SALT, max_age=MAX_AGE)
    except signing.BadSignature:
        return None
    return token if isinstance(token, str) and len(token) == 32 else None


def key_for(*, user_id: int | None, token: str | None) -> str | None:
    """The voter key of a member (by id) or of a browser's token; None for neither."""
    if user_id is not None:
        return member_key(user_id)
    if token:
        return "b:" + salted_hmac(SALT, token).hexdigest()[:32]
    return None


def member_key(user_id: int) -> str:
    """The voter key of a member: the same from every browser, device and API token."""
    return f"u:{int(user_id)}"


def voter_of(request: HttpRequest) -> str | None:
    """The voter key of whoever sends `request`, None for a browser without a token yet."""
    user = request.user
    return key_for(user_id=user.pk if user.is_authenticated else None, token=token_of(request))


def new_token() -> str:
    return secrets.token_hex(16)


def first_token(request: HttpRequest) -> str:
    """The token of a browser that has none yet: the same for every request it sends
    with its CSRF cookie (module docstring); a random one for a request without."""
    secret = request.META.get("CSRF_COOKIE")
    if not isinstance(secret, str) or not secret:
        return new_token()
    return salted_hmac(FIRST_SALT, secret).hexdigest()[:32]


def remember(response: HttpResponse, token: str, *, secure: bool) -> None:
    """Give the browser its voter cookie (signed, long-lived, not for scripts)."""
    response.set_cookie(COOKIE, signing.dumps(token, salt=SALT), max_age=MAX_AGE, httponly=True, secure=secure,
                        samesite="Lax")
