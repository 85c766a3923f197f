"""The comment form's token: a signed, timestamped promise that this form was
rendered by this site for this post, and the key that makes posting idempotent.

Each rendered form carries a fresh token. Submitting the same form twice (a double
click, a retry after a timeout, a second tab) submits the same token, and the
service derives the new comment's slug from it, so the second submit meets the
first comment in the unique `{discussion_id, slug}` index instead of storing a copy.

The token also carries the time it was issued, so a form sent back faster than a
person types (COMMENTS_MIN_FILL_SECONDS) can be refused: bots post at once.
"""

from __future__ import annotations

import secrets
import time

from django.core import signing

SALT = "comments.form"
TAMPERED = "This form was altered or is not from this page. Please reload the page and post again."
EXPIRED = "This form is too old. Please reload the page and post again (your text is kept below)."
TOO_FAST = (
    "That was quicker than anyone types. Please read your comment over, then post it "
    "again (your text is kept below)."
)


class TokenError(Exception):
    def __init__(self, message: str, code: str):
        super().__init__(message)
        self.message, self.code = message, code


def issue(*, discussion_id) -> str:
    """A new token for a form on this discussion."""
    return signing.dumps(
        {"d": str(discussion_id), "n": secrets.token_urlsafe(16), "t": int(time.time())}, salt=SALT
    )


def read(token: str, *, discussion_id, max_age: int) -> str:
    """The token's key (its random part), if it is this site's, for this
    discussion, and younger than `max_age` seconds; TokenError otherwise."""
    try:
        data = signing.loads(token, salt=SALT, max_age=max_age)
    except signing.SignatureExpired:
        raise TokenError(EXPIRED, code="expired") from None
    except signing.BadSignature:
        raise TokenError(TAMPERED, code="tampered") from None
    if not isinstance(data, dict) or data.get("d") != str(discussion_id) or not isinstance(data.get("n"), str):
        raise TokenError(TAMPERED, code="tampered")
    return data["n"]


def check_fill_time(token: str, *, min_seconds: int, now: float | None = None) -> None:
    """TokenError if the form was sent back less than `min_seconds` after it was
    issued. Call it after `read` has verified the token; tokens issued before they
    carried a time pass."""
    if min_seconds <= 0:
        return
    issued = signing.loads(token, salt=SALT).get("t")
    if isinstance(issued, int) and (now if now is not None else time.time()) - issued < min_seconds:
        raise TokenError(TOO_FAST, code="too_fast")
