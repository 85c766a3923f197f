"""Who may comment, and as whom (COMMENTS_WHO_MAY_COMMENT; docs/reference.md):

- "anyone" (the default): a stranger comments with a name (and maybe an address), a
  signed-in member as their account;
- "members": only signed-in members; a stranger sees "Sign in to comment", its link
  carrying `next=` back to the discussion, and a stranger's POST is refused with that
  link and their text kept;
- "anonymous": only strangers; a signed-in reader (editors too) sees that comments
  here are anonymous and that they comment signed out, and their POST is refused
  with that, their text kept; a stranger's form says comments here are anonymous.

Where members may, a member comments as a member only once their host lets them
(`BaseHost.member_verification_url`: Slugline asks for a verified address first);
until then the form is refused with a link to that page, their text kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.shortcuts import resolve_url
from django.utils.translation import gettext, gettext_noop

from comments import conf
from comments.host import get_host

# Each refusal's words and its link's label, by its code.
WORDS = {
    "members_only": (gettext_noop("Only members can comment here: sign in to comment."),
                     gettext_noop("Sign in to comment")),
    "unverified": (gettext_noop("Verify your account's e-mail address before you comment: your comments carry "
                                "your account, and replies are mailed to that address."),
                   gettext_noop("Verify your address")),
    "anonymous_only": (gettext_noop("Comments here are anonymous: members cannot comment while signed in. "
                                    "Sign out to comment with a name of your choosing."), ""),
}
# What a stranger's form says where only strangers may comment.
ANONYMOUS_ONLY = gettext_noop("Comments here are anonymous: no account is needed or used, only the name you give.")
# What the comment form adds to either refusal.
KEPT = gettext_noop("Your text is kept below.")


@dataclass(frozen=True)
class Refusal:
    """Why this reader cannot comment now, in words (`message`, plain text: the API
    sends it as it is), and where to go to fix it (`url`, with its link's `label`)."""

    code: str
    message: str
    url: str  # "" when there is nowhere to send them (no link)
    label: str


def members_only() -> bool:
    """Whether only signed-in members may comment (a setting out of its values counts
    as "members": comments.E008 reports it)."""
    return conf.get().who_may_comment not in ("anyone", "anonymous")


def anonymous_only() -> bool:
    """Whether only strangers may comment (members not while signed in)."""
    return conf.get().who_may_comment == "anonymous"


def sign_in_url(next_url: str) -> str:
    """The site's login page (LOGIN_URL), coming back to `next_url` after."""
    return f"{resolve_url(settings.LOGIN_URL)}?{urlencode({'next': next_url})}"


def refusal(user: Any, *, next_url: str) -> Refusal | None:
    """Why `user` (signed in or not) may not comment at all now, or None: a stranger
    where only members may, or a member whose host wants them verified first."""
    if user is None or not user.is_authenticated:
        return _refused("members_only", sign_in_url(next_url)) if members_only() else None
    if anonymous_only():
        return _refused("anonymous_only", "")
    url = get_host().member_verification_url(user)
    return _refused("unverified", url) if url is not None else None


def _refused(code: str, url: str) -> Refusal:
    message, label = WORDS[code]
    return Refusal(code, gettext(message), url, gettext(label) if label else "")
