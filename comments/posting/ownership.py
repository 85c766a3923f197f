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

from typing import TYPE_CHECKING, Any

from bson import ObjectId
from django.conf import settings
from django.core import signing

from comments.addresses import normalise as normalise_address
from comments.host import get_host
from infra.ids import parse_id
from comments.records import CommentAuthor, Viewer

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser
    from django.http import HttpRequest, HttpResponse

COOKIE = "comments_own"
SALT = "comments.own"
# The newest this many comments of one browser stay editable and visible to it.
KEEP = 30
AUTHOR_COOKIE = "comments_author"
AUTHOR_SALT = "comments.author"


def _signed_value(request: HttpRequest, cookie: str, salt: str) -> Any:
    """What this browser's signed `cookie` holds, or None if it has none or it does not
    verify (altered, or older than SESSION_COOKIE_AGE)."""
    token = request.COOKIES.get(cookie)
    if not token:
        return None
    try:
        return signing.loads(token, salt=salt, max_age=settings.SESSION_COOKIE_AGE)
    except signing.BadSignature:
        return None


def _set_signed(response: HttpResponse, cookie: str, salt: str, value: object) -> None:
    """Send this browser `value` in a signed `cookie` that lives as long as a session."""
    response.set_cookie(
        cookie, signing.dumps(value, salt=salt, compress=True),
        max_age=settings.SESSION_COOKIE_AGE, httponly=True, samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
    )


def _owned_ids(request: HttpRequest) -> list[str]:
    """The ids in this browser's token, oldest first; none if it does not verify."""
    values = _signed_value(request, COOKIE, SALT) or []
    ids = [parse_id(value) for value in values] if isinstance(values, list) else [None]
    return [] if None in ids else [str(oid) for oid in ids]


def owned(request: HttpRequest) -> frozenset[ObjectId]:
    """The ids of the comments this browser posted; none if its token does not verify."""
    return frozenset(ObjectId(value) for value in _owned_ids(request))


def remember(request: HttpRequest, response: HttpResponse, comment_id: ObjectId) -> None:
    """Add `comment_id` to this browser's token, sent back with `response`."""
    ids = [i for i in _owned_ids(request) if i != str(comment_id)] + [str(comment_id)]
    _set_signed(response, COOKIE, SALT, ids[-KEEP:])


def remember_author(response: HttpResponse, *, name: str, email: str) -> None:
    """Keep an anonymous commenter's name and e-mail in this browser for their next comment."""
    _set_signed(response, AUTHOR_COOKIE, AUTHOR_SALT, {"name": name, "email": email})


def remembered_author(request: HttpRequest) -> dict[str, str]:
    """The name and e-mail this browser last posted with (`remember_author`); empty if
    it has none or its cookie does not verify."""
    values = _signed_value(request, AUTHOR_COOKIE, AUTHOR_SALT)
    if not isinstance(values, dict):
        return {}
    return {key: values[key] for key in ("name", "email") if isinstance(values.get(key), str)}


CONFIRMED_COOKIE = "comments_confirmed"
CONFIRMED_SALT = "comments.confirmed"


def remember_confirmed(request: HttpRequest, response: HttpResponse, email: str) -> None:
    """Note in this browser (a signed cookie) that it confirmed `email` by following
    the address's confirmation link: what lets pre-moderation trust that address when
    this browser types it, and nobody else's."""
    addresses = sorted(confirmed_here(request) | {normalise_address(email)})[-KEEP:]
    _set_signed(response, CONFIRMED_COOKIE, CONFIRMED_SALT, addresses)


def confirmed_here(request: HttpRequest) -> frozenset[str]:
    """The addresses this browser confirmed (`remember_confirmed`); none if its cookie
    does not verify."""
    values = _signed_value(request, CONFIRMED_COOKIE, CONFIRMED_SALT)
    return frozenset(v for v in values if isinstance(v, str)) if isinstance(values, list) else frozenset()


def member_author(user: AbstractBaseUser) -> CommentAuthor:
    """A logged-in member as the author of their comment: their id, the name the
    host gives them, and whether they are staff (a badge)."""
    return CommentAuthor(id=user.pk, name=get_host().commenter_name(user), staff=user.is_staff)


def viewer_for(request: HttpRequest) -> Viewer:
    """Who is looking: their user id, the comments their browser posted, the addresses
    it confirmed, and whether they are an editor (who sees what awaits moderation)."""
    user = request.user
    member = user.is_authenticated
    return Viewer(user_id=user.pk if member else None, own=owned(request), editor=member and get_host().can_moderate(user),
                  confirmed=confirmed_here(request))
