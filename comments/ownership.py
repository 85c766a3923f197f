"""Which comments this browser posted, and who is looking.

A reader who posts without logging in gets a signed token in their browser: a
cookie naming the comments that browser posted, signed with the site's key, so it
cannot be altered to name someone else's comment. It lets them see their comments
while they await moderation, and edit or delete them within COMMENTS_EDIT_WINDOW.
Logged-in members are recognised by their user id as well.

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


def viewer_for(request) -> Viewer:
    """Who is looking: their user id, the comments their browser posted, and whether
    they are an editor (who sees what awaits moderation)."""
    user = request.user
    member = user.is_authenticated
    return Viewer(user_id=user.pk if member else None, own=owned(request), editor=member and is_editor(user))
