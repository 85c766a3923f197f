"""Who is asking: a browser's session (with its CSRF token, for writes), or an API
token in `Authorization: Bearer <token>` (scripts; no cookies, so no CSRF). A token
acts as its user: it reads what they may read and, with the read-write scope, writes
as them; the moderation endpoints take editors' tokens only. A member's own token
(made on their account page) writes as them too, but never with an editor's powers,
even an editor's: it sees and posts as a member does. Each token has its own
rate limit, counted in MongoDB like the per-IP one (api/middleware.py)."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.utils import formats
from django.utils.translation import gettext, gettext_noop
from ninja.errors import HttpError
from ninja.security import HttpBearer, SessionAuth

from api import conf, middleware, tokens
from api.problems import Refused
from comments.api import get_host
from comments.rest import Viewer, viewer_for

BAD_TOKEN = gettext_noop("This API token is unknown or was revoked.")
EXPIRED_TOKEN = gettext_noop("This API token expired on {date}; an editor can make a new one.")
READ_ONLY = gettext_noop("This API token may only read; writing needs a read-write token.")
EDITORS_ONLY = gettext_noop("Moderation needs an editor's API token.")
CSRF_FAILED = gettext_noop(
    "The CSRF token is missing or wrong: send the csrftoken cookie's value in the X-CSRFToken header."
)
TOKEN_TOO_FAST = gettext_noop("This API token made too many requests. Please wait {seconds} seconds, then try again.")


@dataclass(frozen=True)
class Caller:
    user: object
    token: tokens.ApiToken


def bearer(request) -> str | None:
    """The token the request's Authorization header carries, if it names one."""
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def token_caller(request) -> Caller | None:
    """The token and user of this request's bearer token (once per request, counted
    against the token's rate limit, its use noted); None without one; Refused (401)
    for a token that is unknown, revoked, expired or whose user is gone, and (429)
    past its limit."""
    if hasattr(request, "_api_caller"):
        return request._api_caller
    secret = bearer(request)
    caller = None
    if secret is not None:
        token = tokens.find_active(secret)
        user = get_user_model().objects.filter(pk=token.user_id, is_active=True).first() if token else None
        if token is None or user is None:
            raise Refused(401, gettext(BAD_TOKEN), code="bad_token")
        if token.expired():
            when = formats.date_format(token.expires, "DATE_FORMAT")
            raise Refused(401, gettext(EXPIRED_TOKEN).format(date=when), code="expired_token")
        tokens.note_use(token)
        current = conf.get()
        wait = middleware.count(key=f"api:token:{token.id}", limit=current.rate_per_token)
        if wait is not None:
            raise Refused(429, gettext(TOKEN_TOO_FAST).format(seconds=wait), code="rate_limited", retry_after=wait)
        caller = Caller(user=user, token=token)
    request._api_caller = caller
    return caller


def viewer_of(request) -> Viewer:
    """Whose eyes an answer is for: a token's user, or the browser (its session and its
    signed cookie of comments it posted), as the HTML pages see it."""
    caller = token_caller(request)
    if caller is None:
        return viewer_for(request)
    editor = caller.token.editor_powers and get_host().can_moderate(caller.user)
    return Viewer(user_id=caller.user.pk, editor=editor)


class Token(HttpBearer):
    """A bearer token with the scope to write (or, `editors`, to moderate)."""

    def __init__(self, *, editors: bool = False):
        super().__init__()
        self.editors = editors

    def authenticate(self, request, token):
        caller = token_caller(request)
        if caller is None:
            return None
        if not caller.token.writes:
            raise Refused(403, gettext(READ_ONLY), code="read_only_token")
        if self.editors and not (caller.token.editor_powers and get_host().can_moderate(caller.user)):
            raise Refused(403, gettext(EDITORS_ONLY), code="editors_only")
        return caller.user


class Session(SessionAuth):
    """A signed-in browser, with Django's CSRF check; no session is a 401, not a CSRF error."""

    def __call__(self, request):
        if not request.user.is_authenticated:
            return None
        try:
            return super().__call__(request)
        except HttpError:
            raise Refused(403, gettext(CSRF_FAILED), code="csrf_failed") from None


WRITERS = [Token(), Session()]
EDITORS = [Token(editors=True)]
