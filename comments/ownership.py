"""Which comments this browser posted, and who is looking.

A reader who posts without logging in gets a signed token in their browser: a
cookie naming the comments that browser posted, signed with the site's key, so it
cannot be altered to name someone else's comment. It lets them see their comments
while they await moderation, and edit or delete them within COMMENTS_EDIT_WINDOW.
Logged-in members are recognised by their user id as well.

The same browser also keeps, in a second signed cookie, the name and e-mail an
anonymous reader last posted with, so the comment form is filled in for their next
comment. Only the form (rendered for each request) reads it, never the comments
fragment that readers share.

A cookie rather than Django's session: posting then writes nothing to Django's
database (a comment is MongoDB's business alone), and the token lives exactly as
long as Django's session cookie would (SESSION_COOKIE_AGE).
"""

from __future__ import annotations

from bson import ObjectId
from bson.errors import InvalidId
from django.conf import settings
from django.core import signing

from cms.dashboard.permissions import is_editor
from comments.store import Viewer

COOKIE = "comments_own"
SALT = "comments.own"
# The newest this many comments of one browser stay editable and visible to it.
KEEP = 30
AUTHOR_COOKIE = "comments_author"
AUTHOR_SALT = "comments.author"


def owned(request) -> frozenset[ObjectId]:
    """The ids of the comments this browser posted; none if its token does not verify."""
    token = request.COOKIES.get(COOKIE)
    if not token:
        return frozenset()
    try:
        values = signing.loads(token, salt=SALT, max_age=settings.SESSION_COOKIE_AGE)
        return frozenset(ObjectId(value) for value in values)
    except (signing.BadSignature, InvalidId, TypeError, ValueError):
        return frozenset()


def remember(request, response, comment_id: ObjectId) -> None:
    """Add `comment_id` to this browser's token, sent back with `response`."""
    token = request.COOKIES.get(COOKIE)
    ids: list[str] = []
    if token:
        try:
            ids = [str(ObjectId(value)) for value in signing.loads(token, salt=SALT)]
        except (signing.BadSignature, InvalidId, TypeError, ValueError):
            ids = []
    ids = [i for i in ids if i != str(comment_id)] + [str(comment_id)]
    response.set_cookie(
        COOKIE, signing.dumps(ids[-KEEP:], salt=SALT, compress=True),
        max_age=settings.SESSION_COOKIE_AGE, httponly=True, samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
    )


def remember_author(response, *, name: str, email: str) -> None:
    """Keep an anonymous commenter's name and e-mail in this browser for their next comment."""
    response.set_cookie(
        AUTHOR_COOKIE, signing.dumps({"name": name, "email": email}, salt=AUTHOR_SALT, compress=True),
        max_age=settings.SESSION_COOKIE_AGE, httponly=True, samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
    )


def remembered_author(request) -> dict[str, str]:
    """The name and e-mail this browser last posted with (`remember_author`); empty if
    it has none or its cookie does not verify."""
    token = request.COOKIES.get(AUTHOR_COOKIE)
    if not token:
        return {}
    try:
        values = signing.loads(token, salt=AUTHOR_SALT, max_age=settings.SESSION_COOKIE_AGE)
    except signing.BadSignature:
        return {}
    if not isinstance(values, dict):
        return {}
    return {key: values[key] for key in ("name", "email") if isinstance(values.get(key), str)}


CONFIRMED_COOKIE = "comments_confirmed"
CONFIRMED_SALT = "comments.confirmed"


def remember_confirmed(request, response, email: str) -> None:
    """Note in this browser (a signed cookie) that it confirmed `email` by following
    the address's confirmation link: what lets pre-moderation trust that address when
    this browser types it, and nobody else's."""
    addresses = sorted(confirmed_here(request) | {email.strip().lower()})[-KEEP:]
    response.set_cookie(
        CONFIRMED_COOKIE, signing.dumps(addresses, salt=CONFIRMED_SALT, compress=True),
        max_age=settings.SESSION_COOKIE_AGE, httponly=True, samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
    )


def confirmed_here(request) -> frozenset[str]:
    """The addresses this browser confirmed (`remember_confirmed`); none if its cookie
    does not verify."""
    token = request.COOKIES.get(CONFIRMED_COOKIE)
    if not token:
        return frozenset()
    try:
        values = signing.loads(token, salt=CONFIRMED_SALT, max_age=settings.SESSION_COOKIE_AGE)
    except signing.BadSignature:
        return frozenset()
    return frozenset(v for v in values if isinstance(v, str)) if isinstance(values, list) else frozenset()


def viewer_for(request) -> Viewer:
    """Who is looking: their user id, the comments their browser posted, the addresses
    it confirmed, and whether they are an editor (who sees what awaits moderation)."""
    user = request.user
    member = user.is_authenticated
    return Viewer(user_id=user.pk if member else None, own=owned(request), editor=member and is_editor(user),
                  confirmed=confirmed_here(request))
