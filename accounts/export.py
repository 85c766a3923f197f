"""A member's data download (/accounts/export/): everything the site holds about the
signed-in member, as one JSON document written a piece at a time (a streamed
response: a member with many comments costs one batch of them in memory, not all).

    {"account": {...}, "addresses": [...], "comments": [...], "votes": [...],
     "subscriptions": [...], "sessions": [...], "api_tokens": [...]}

docs/accounts.md lists each section's fields.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from itertools import islice
from typing import Any

from allauth.account.models import EmailAddress
from allauth.usersessions.models import UserSession
from bson import ObjectId
from django.contrib.auth.decorators import login_required
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, StreamingHttpResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from accounts import avatars, member_data
from api import tokens
from accounts.models import Profile
from comments import api as comments_api

# The comments (and votes) whose discussions are looked up in one query.
BATCH = 200


class Encoder(DjangoJSONEncoder):
    """Django's JSON encoder that also writes MongoDB ids, and times in ISO 8601 to the
    microsecond (as stored)."""

    def default(self, o: Any) -> Any:
        if isinstance(o, datetime):
            return o.isoformat()
        return str(o) if isinstance(o, ObjectId) else super().default(o)


def dumps(value: Any) -> str:
    return json.dumps(value, cls=Encoder, ensure_ascii=False)


def account(user) -> dict:
    profile = Profile.objects.filter(user=user).first()
    return {"id": user.pk, "username": user.get_username(),
            "display_name": profile.display_name if profile else "",
            "public_profile": bool(profile and profile.public_profile),
            "avatar": avatars.exported(profile),
            "date_joined": user.date_joined, "last_login": user.last_login}


def addresses(user) -> list[dict]:
    return [{"email": a.email, "verified": a.verified, "primary": a.primary}
            for a in EmailAddress.objects.filter(user=user).order_by("email")]


def _batches(items: Iterable[Any]) -> Iterator[list[Any]]:
    found = iter(items)
    while batch := list(islice(found, BATCH)):
        yield batch


def comments(user) -> Iterator[dict]:
    """Each of the member's comments, newest first, with its discussion."""
    for batch in _batches(comments_api.all_member_comments(author_id=user.pk)):
        on = member_data.discussions(c.discussion_id for c in batch)
        for comment in batch:
            discussion = on.get(comment.discussion_id)
            yield {"id": comment.id, "text": comment.text, "posted": comment.posted, "edited": comment.edited,
                   "status": comment.status, "name": comment.author.name, "email": comment.author.email,
                   "discussion": _discussion(discussion, comment.discussion_id, comment)}


def _discussion(discussion: comments_api.Discussion | None, discussion_id: ObjectId,
                comment: comments_api.Comment | None = None) -> dict:
    """A discussion as the download names it: its id, title and (for a comment) the
    comment's permalink; title and link empty when the discussion is gone."""
    named: dict[str, Any] = {"id": discussion_id, "title": discussion.title if discussion else ""}
    if comment is not None:
        named["permalink"] = comments_api.comment_permalink(discussion=discussion, comment=comment) \
            if discussion else ""
    return named


def votes(user) -> Iterator[dict]:
    """Each vote the member cast signed in, oldest first, with its discussion."""
    for batch in _batches(comments_api.member_votes(user_id=user.pk)):
        on = member_data.discussions(v["discussion_id"] for v in batch)
        for vote in batch:
            yield {"comment_id": vote["comment_id"], "vote": vote["vote"], "changed": vote["changed"],
                   "discussion": _discussion(on.get(vote["discussion_id"]), vote["discussion_id"])}


def subscriptions(user) -> list[dict]:
    """The active notification subscriptions of the member's verified addresses."""
    found = [s for _, subscriptions in member_data.verified_subscriptions(user) for s in subscriptions]
    on = member_data.discussions(s.discussion_id for s in found)
    return [{"email": s.email, "kind": s.kind, "created": s.created, "confirmed": s.confirmed,
             "language": s.language, "discussion": _discussion(on.get(s.discussion_id), s.discussion_id)}
            for s in found]


def sessions(user, *, current_key: str | None) -> list[dict]:
    """The devices the member is signed in on, as allauth's sessions page lists them."""
    return [{"ip": s.ip, "user_agent": s.user_agent, "created": s.created_at, "last_seen": s.last_seen_at,
             "current": s.session_key == current_key}
            for s in UserSession.objects.purge_and_list(user)]


def api_tokens(user) -> list[dict]:
    """The API tokens that act as the member, revoked ones too: what each is for and
    its times, never its digest."""
    return [{"name": t.name, "scope": t.scope, "prefix": t.prefix, "created": t.created, "expires": t.expires,
             "last_used": t.last_used, "revoked": t.revoked} for t in tokens.held_by(user_id=user.pk)]


def document(user, *, current_key: str | None) -> Iterator[str]:
    """The download's JSON, in pieces: each list item is written as it is read."""
    yield '{"account": ' + dumps(account(user))
    yield ', "addresses": ' + dumps(addresses(user))
    for name, items in (("comments", comments(user)), ("votes", votes(user))):
        yield f', "{name}": ['
        for number, item in enumerate(items):
            yield ("" if number == 0 else ", ") + dumps(item)
        yield "]"
    yield ', "subscriptions": ' + dumps(subscriptions(user))
    yield ', "sessions": ' + dumps(sessions(user, current_key=current_key))
    yield ', "api_tokens": ' + dumps(api_tokens(user)) + "}\n"


@never_cache
@login_required
@require_GET
def export(request: HttpRequest) -> StreamingHttpResponse:
    """The signed-in member's data as a JSON file to save (module docstring)."""
    user, key = request.user, request.session.session_key
    response = StreamingHttpResponse(document(user, current_key=key), content_type="application/json")
    day = timezone.localdate().isoformat()
    response["Content-Disposition"] = f'attachment; filename="slugline-data-{user.pk}-{day}.json"'
    return response
