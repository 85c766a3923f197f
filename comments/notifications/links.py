"""Where the subscription pages (comments/notifications/urls.py) are, and so where the
links in notification mail and between those pages lead.

The pages are mounted under every discussion's prefix by comments.urls
(`<prefix>notifications/confirm/<token>/`, …), so the five lines are enough; a host
may also mount them once for the whole site (the optional sixth line,
`include("comments.notifications.urls")`: Slugline's /notifications/). Mail links to
the site-wide mount when the host has one, so links already mailed keep their
address; otherwise under the prefix of the discussion the mail is about. A page links
to its neighbours on the mount it was opened on. The tokens are the same under both.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from bson import ObjectId
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse

from comments.host import get_host
from comments.notifications.subscriptions import Subscription

# The pages' namespaces: the host's site-wide mount, and the one inside comments.urls.
SITE_WIDE = "subscriptions"
IN_DISCUSSION = "comments:subscriptions"


def _site_wide(name: str, tokens: list[str]) -> str | None:
    """The path of page `name` at the host's site-wide mount; None when it has none."""
    try:
        return reverse(f"{SITE_WIDE}:{name}", args=tokens)
    except NoReverseMatch:
        return None


def in_discussion(name: str, *, token: str | None = None, discussion_slug: str) -> str:
    """The path of subscription page `name` ("ask", "confirm", "unsubscribe",
    "manage") for a mail about the discussion `discussion_slug` names: at the
    site-wide mount when the host has one, else under that discussion's prefix."""
    tokens = [token] if token is not None else []
    return _site_wide(name, tokens) or reverse(f"{IN_DISCUSSION}:{name}", args=[discussion_slug, *tokens])


def for_address(name: str, *, token: str | None = None, about: Iterable[Subscription]) -> str | None:
    """The path of subscription page `name` for a mail about an address (`about`: the
    subscriptions it concerns): at the site-wide mount when the host has one, else
    under the prefix of the discussion of the subscription asked for or confirmed
    last that the host still has; None when none is left."""
    tokens = [token] if token is not None else []
    found = _site_wide(name, tokens)
    if found is not None:
        return found
    host = get_host()
    for discussion_id in newest_first(about):
        discussion = host.get(discussion_id)
        if discussion is not None:
            return reverse(f"{IN_DISCUSSION}:{name}", args=[discussion.slug, *tokens])
    return None


def here(request: HttpRequest, name: str, *, token: str | None = None) -> str:
    """The path of subscription page `name` on the mount `request` came in on (the
    site-wide one, or the same discussion's prefix)."""
    match = request.resolver_match
    if match is None:  # pragma: no cover - only a view called outside URL resolution
        raise NoReverseMatch("a subscription page's links need the request's URL match")
    kwargs = {key: value for key, value in match.kwargs.items() if key != "token"}
    if token is not None:
        kwargs["token"] = token
    return reverse(f"{match.namespace}:{name}", kwargs=kwargs)


def last_touched(subscription: Subscription) -> datetime:
    """When the subscription was last asked for, confirmed or made."""
    return max(moment for moment in (subscription.requested, subscription.confirmed, subscription.created)
               if moment is not None)


def newest_first(found: Iterable[Subscription]) -> list[ObjectId]:
    """The discussions of these subscriptions, that of the one asked for or confirmed
    last first (the comment that caused an address's mail), each once."""
    ordered: list[ObjectId] = []
    for subscription in sorted(found, key=last_touched, reverse=True):
        if subscription.discussion_id not in ordered:
            ordered.append(subscription.discussion_id)
    return ordered
