"""What a destructive moderation action will change, worked out before it is done,
so that the editor confirms knowing it ("This will mark 37 comments by 3 names as
spam"). Plain functions that only read; no request in sight. Approving is not
asked about: it is undone by any other action."""

from __future__ import annotations

from dataclasses import dataclass, field

from bson import ObjectId
from django.contrib.auth import get_user_model
from django.utils.translation import gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from comments.host import get_host
from comments.moderation import queue as moderation
from comments.moderation.blocklist import BAN_EMAIL, BAN_IP, BAN_USER
from comments.records import DELETED, SPAM, Comment
from comments.stores import get_store

# The actions the queue asks an editor to confirm.
ASKED = ("spam", "delete", "thread", "ban")
TITLES = {
    "spam": _("Mark comments as spam?"),
    "delete": _("Delete comments?"),
    "thread": _("Remove this thread?"),
    "ban": _("Ban this commenter?"),
}
BUTTONS = {
    "spam": pgettext_lazy("moderation button", "Mark as spam"),
    "delete": pgettext_lazy("moderation button", "Delete"),
    "thread": pgettext_lazy("moderation button", "Remove the thread"),
    "ban": pgettext_lazy("moderation button", "Ban and mark as spam"),
}
# A "ban" of a comment with no account or address to ban by only marks it as spam.
BAN_NOBODY_BUTTON = pgettext_lazy("moderation button", "Mark as spam")
# `comments` and `names` are counted phrases ("2 comments", "“Sam Lee”" or "3 names").
SUMMARIES = {
    "spam": _("This will mark %(comments)s by %(names)s as spam."),
    "delete": _("This will delete %(comments)s by %(names)s; replies to them stay, under “[deleted]”."),
    "thread": _("This will delete %(comments)s by %(names)s: the comment and every reply below it."),
    "ban": _("This will ban %(who)s from commenting and mark %(comments)s by %(names)s as spam."),
}
BAN_NOBODY = _("This comment has no account or IP address to ban by; it will only be marked as spam.")
BAN_ONLY = _("This will ban %(who)s from commenting; none of their comments needs marking as spam.")
KEY_LABELS = {BAN_EMAIL: _("e-mail"), BAN_IP: _("IP")}
MEMBER = _("the member “%(name)s”")
MEMBER_GONE = _("a member whose account is deleted (number %(id)s)")
ACCOUNT_GONE = _("(deleted account %(id)s)")
# The confirmation page lists this many of the comments it will change.
SHOWN = 10


@dataclass(frozen=True)
class Impact:
    """The comments an action will change, and for a ban what it records."""

    action: str
    comments: list[Comment]
    ban_keys: list[tuple[str, str]] = field(default_factory=list)
    who: str = ""  # whom a ban is by, in words
    found: bool = True  # False when none of the chosen comments exists any more

    @property
    def names(self) -> list[str]:
        return sorted({c.author.name for c in self.comments})

    @property
    def shown(self) -> list[Comment]:
        return self.comments[:SHOWN]

    @property
    def more(self) -> int:
        return max(0, len(self.comments) - SHOWN)

    @property
    def changes_something(self) -> bool:
        return bool(self.comments or self.ban_keys)

    @property
    def bans_nobody(self) -> bool:
        """A ban with no account or address to ban by: it only marks the comment as spam."""
        return self.action == "ban" and not self.ban_keys

    @property
    def bans_member(self) -> bool:
        """A ban by a member's account: it asks a reason and a length."""
        return self.action == "ban" and any(kind == BAN_USER for kind, _value in self.ban_keys)

    @property
    def title(self) -> str:
        return TITLES["spam"] if self.bans_nobody else TITLES[self.action]

    @property
    def button(self) -> str:
        """What the confirming button says."""
        return BAN_NOBODY_BUTTON if self.bans_nobody else BUTTONS[self.action]

    def summary(self) -> str:
        """One sentence: what will change."""
        if self.bans_nobody:
            return BAN_NOBODY
        if self.action == "ban" and not self.comments:
            return BAN_ONLY % {"who": self.who}
        return SUMMARIES[self.action] % {
            "comments": _comments(len(self.comments)), "names": _names(self.names), "who": self.who
        }


def _comments(n: int) -> str:
    return ngettext("%(count)d comment", "%(count)d comments", n) % {"count": n}


def _names(names: list[str]) -> str:
    if len(names) == 1:
        return gettext("“%(name)s”") % {"name": names[0]}
    return ngettext("%(count)d name", "%(count)d names", len(names)) % {"count": len(names)}


def _who(comment: Comment, keys: list[tuple[str, str]]) -> str:
    """Whom a ban is by: a member by name, anyone else by the addresses it records."""
    if comment.author.id is not None:
        return MEMBER % {"name": comment.author.name}
    return joined([f"{KEY_LABELS.get(kind, kind)} {value}" for kind, value in keys])


def member_names(user_ids: list[str]) -> dict[str, str]:
    """The name each of these members comments under (by id, as a ban records it);
    a deleted account is missing."""
    ids = [int(value) for value in user_ids if value.isdigit()]
    users = get_user_model()._default_manager.filter(pk__in=ids) if ids else []
    return {str(user.pk): get_host().commenter_name(user) for user in users}


def banned_one(kind: str, value: str, names: dict[str, str]) -> str:
    """One thing a ban is by, in words: a member by name, an address by its kind."""
    if kind == BAN_USER:
        return MEMBER % {"name": names[value]} if value in names else MEMBER_GONE % {"id": value}
    return f"{KEY_LABELS.get(kind, kind)} {value}"


def banned_who(keys: list[tuple[str, str]]) -> str:
    """Whom a ban recording `keys` is by, in words ("the member “Ada”", "IP 192.0.2.9")."""
    names = member_names([value for kind, value in keys if kind == BAN_USER])
    return joined([banned_one(kind, value, names) for kind, value in keys])


def joined(parts: list[str]) -> str:
    """"a and b and c", in the active language's words."""
    text = parts[0] if parts else ""
    for part in parts[1:]:
        text = gettext("%(first)s and %(second)s") % {"first": text, "second": part}
    return text


def impact_of(*, action: str, comment_ids: list[ObjectId]) -> Impact:
    """What `action` (one of ASKED) on these comments would change now: for spam and
    delete the chosen comments not already so; for thread the comment and its
    replies not yet deleted; for ban what moderation.ban_commenter would record and
    mark (moderation.preview_ban). Not `found` when none of the ids exists any more."""
    if action in ("spam", "delete"):
        status = SPAM if action == "spam" else DELETED
        found = get_store().find_by_ids(ids=comment_ids)
        return Impact(action=action, comments=[c for c in found if c.status != status], found=bool(found))
    if action == "ban":
        ban = moderation.preview_ban(comment_id=comment_ids[0])
        if ban is None:
            return Impact(action=action, comments=[], found=False)
        newest_first = sorted(ban.comments, key=lambda c: c.posted, reverse=True)
        return Impact(action=action, comments=newest_first, ban_keys=ban.keys, who=_who(ban.comment, ban.keys))
    comment = get_store().find_by_id(comment_ids[0])
    if comment is None:
        return Impact(action=action, comments=[], found=False)
    below = [c for c in get_store().find_subthread(comment=comment) if c.status != DELETED]
    return Impact(action=action, comments=below)
