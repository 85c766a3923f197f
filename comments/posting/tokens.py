"""The comment form's token: a signed, timestamped promise that this form was
rendered by this site for this discussion, and the key that makes posting idempotent.

Each rendered form carries a fresh token. Submitting the same form twice (a double
click, a retry after a timeout, a second tab) submits the same token, and the
service derives the new comment's slug from it, so the second submit meets the
first comment in the unique `{discussion_id, slug}` index instead of storing a copy.

The token also carries the time it was issued, so a form sent back faster than a
person types (COMMENTS_MIN_FILL_SECONDS) can be refused: bots post at once.

And it names the browser it was issued to (a keyed hash of the browser's CSRF
secret, `browser_key`), so a resend of the form from that browser is told apart from
the same token replayed by another one: only the first gets the comment as its own.
"""

from __future__ import annotations

import secrets
import time

from django.core import signing
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext, gettext_noop

from comments.errors import Refused

SALT = "comments.form"
TAMPERED = gettext_noop("This form was altered or is not from this page. Please reload the page and post again.")
EXPIRED = gettext_noop("This form is too old. Please reload the page and post again (your text is kept below).")
TOO_FAST = gettext_noop(
    "That was quicker than anyone types. Please read your comment over, then post it "
    "again (your text is kept below)."
)


class TokenError(Refused):
    """A comment form's token that does not let it post; the message is for the reader."""


def browser_key(request: HttpRequest) -> str:
    """A key for the browser sending `request`: a keyed hash of its CSRF secret (made
    now if it has none; the response then sets its cookie), never the secret itself."""
    get_token(request)
    secret = request.META.get("CSRF_COOKIE") or ""
    return salted_hmac("comments.browser", secret).hexdigest()[:32] if secret else ""


def issue(*, discussion_id: object, browser: str = "") -> str:
    """A new token for a form on this discussion, issued to this browser."""
    return signing.dumps(
        {"d": str(discussion_id), "n": secrets.token_urlsafe(16), "t": int(time.time()), "b": browser},
        salt=SALT,
    )


def issued_to(token: str, browser: str) -> bool:
    """Whether the token (already verified by `read`) was issued to this browser."""
    issued = signing.loads(token, salt=SALT).get("b")
    return bool(browser) and isinstance(issued, str) and constant_time_compare(issued, browser)


def read(token: str, *, discussion_id: object, max_age: int) -> str:
    """The token's key (its random part), if it is this site's, for this
    discussion, and younger than `max_age` seconds; TokenError otherwise."""
    try:
        data = signing.loads(token, salt=SALT, max_age=max_age)
    except signing.SignatureExpired:
        raise TokenError(gettext(EXPIRED), code="expired") from None
    except signing.BadSignature:
        raise TokenError(gettext(TAMPERED), code="tampered") from None
    if not isinstance(data, dict) or data.get("d") != str(discussion_id) or not isinstance(data.get("n"), str):
        raise TokenError(gettext(TAMPERED), code="tampered")
    return data["n"]


def check_fill_time(token: str, *, min_seconds: int, now: float | None = None) -> None:
    """TokenError if the form was sent back less than `min_seconds` after it was
    issued. Call it after `read` has verified the token; tokens issued before they
    carried a time pass."""
    if min_seconds <= 0:
        return
    issued = signing.loads(token, salt=SALT).get("t")
    if isinstance(issued, int) and (now if now is not None else time.time()) - issued < min_seconds:
        raise TokenError(gettext(TOO_FAST), code="too_fast")
