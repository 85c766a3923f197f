"""Moderating from the mail: whether a signed link of the editors' queue mail
(comments/notifications/moderation_links.py) may act, and acting on it once. The
`moderation_link_uses` collection, the only module that touches it:

    {_id: "<editor>:<comment>:<mail>", editor, comment_id, action, at, expires}

A link acts only while it is whole, younger than NOTIFICATIONS_MODERATION_LINK_MAX_AGE,
its editor still moderates (the host's `can_moderate`, asked again at every use), its
comment still waits in the queue, and no link of that comment in that mail was used.
Its use is claimed with one insert keyed by the mail's links for the comment
(`Link.use_key`), so two clicks at once (or Approve and Spam at once) act once: the
second insert fails on the key. The action is then the queue's own
(`moderation.moderate`), recorded in the moderation history under the editor's
username. A use record leaves with its link's lifetime (TTL on `expires`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.utils.translation import gettext_noop
from pymongo import ASCENDING, IndexModel
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError

from comments import conf
from comments.host import Discussion, get_host
from comments.moderation import changes, queue as moderation
from comments.notifications.moderation_links import EXPIRED, TAMPERED, BadLink, Link, read_token
from comments.records import PENDING, Comment
from comments.stores import get_store
from infra.mongo import get_db

# Why a link does not act, with the page's HTTP status (the messages are translated where shown).
USED, NOT_EDITOR, GONE, DECIDED, OFF = "used", "not_editor", "gone", "decided", "off"
REFUSALS = {
    TAMPERED: (gettext_noop("This moderation link is broken: it was changed or cut short. "
                            "Nothing was changed; moderate the comment from the queue."), 400),
    EXPIRED: (gettext_noop("This moderation link has expired: such links work for a limited time "
                           "after their mail is sent. Nothing was changed; moderate the comment from the queue."), 410),
    USED: (gettext_noop("This mail's links for this comment were used already: nothing more was changed."), 409),
    NOT_EDITOR: (gettext_noop("This link was sent to someone who no longer moderates comments here: "
                              "nothing was changed."), 403),
    GONE: (gettext_noop("That comment no longer exists."), 404),
    DECIDED: (gettext_noop("This comment no longer waits for moderation: someone has decided on it "
                           "already, so nothing was changed."), 409),
    OFF: (gettext_noop("This site no longer moderates from the mail: moderate the comment from the queue."), 410),
}

INDEXES = [IndexModel([("expires", ASCENDING)], expireAfterSeconds=0, name="expires")]


def ensure_indexes(db: Database) -> list[str]:
    return db.moderation_link_uses.create_indexes(INDEXES)


class LinkRefused(Exception):
    """A link that may not act (`code`: one of REFUSALS), with what a page shows of it."""

    def __init__(self, code: str, *, comment: Comment | None = None, discussion: Discussion | None = None):
        super().__init__(code)
        self.code, self.comment, self.discussion = code, comment, discussion

    @property
    def message(self) -> str:
        """The reason, untranslated (gettext it where it is shown)."""
        return REFUSALS[self.code][0]

    @property
    def status(self) -> int:
        return REFUSALS[self.code][1]


@dataclass(frozen=True)
class Ready:
    """A link that may act now: its editor, comment and the comment's discussion."""

    link: Link
    editor: Any
    comment: Comment
    discussion: Discussion | None


@dataclass(frozen=True)
class Done:
    """What a link did: `progress.done` False when the rest is being finished."""

    ready: Ready
    progress: changes.Progress


def max_age() -> int:
    return conf.get().notifications_moderation_link_max_age


def moderator(user_id: object) -> Any | None:
    """The user with this id, if they moderate comments now (the host's `can_moderate`:
    an editor demoted or made inactive since the mail no longer does)."""
    try:
        user = get_user_model()._default_manager.filter(pk=user_id).first()
    except (TypeError, ValueError):
        return None
    return user if user is not None and get_host().can_moderate(user) else None


def check(token: str, *, now: datetime | None = None) -> Ready:
    """The link `token` names, if it may act now; else LinkRefused saying why. Reads
    only: a mail program's link checker that opens the page changes nothing."""
    if max_age() <= 0:
        raise LinkRefused(OFF)
    try:
        link = read_token(token, max_age=max_age(), now=now)
    except BadLink as exc:
        raise LinkRefused(exc.code) from None
    editor = moderator(link.editor_id)
    if editor is None:
        raise LinkRefused(NOT_EDITOR)
    comment = get_store().find_by_id(link.comment_id)
    if comment is None:
        raise LinkRefused(GONE)
    discussion = get_host().get(comment.discussion_id)
    if get_db().moderation_link_uses.find_one({"_id": link.use_key}, {"_id": 1}) is not None:
        raise LinkRefused(USED, comment=comment, discussion=discussion)
    if comment.status != PENDING:
        raise LinkRefused(DECIDED, comment=comment, discussion=discussion)
    return Ready(link=link, editor=editor, comment=comment, discussion=discussion)


def act(token: str, *, now: datetime | None = None) -> Done:
    """Carry out the link's action as its editor, once: `check`, claim the use (one
    insert: of clicks at once, one claims it, the others are refused as USED), then
    the queue's own action. A claim whose comment was decided meanwhile, or whose
    action failed before it was recorded, is given back."""
    ready = check(token, now=now)
    link, at = ready.link, now or datetime.now(UTC)
    uses = get_db().moderation_link_uses
    try:
        # Kept as long as the link could work (from `at`, later than its issue).
        uses.insert_one({"_id": link.use_key, "editor": str(link.editor_id), "comment_id": link.comment_id,
                         "action": link.action, "at": at, "expires": at + timedelta(seconds=max_age())})
    except DuplicateKeyError:
        raise LinkRefused(USED, comment=ready.comment, discussion=ready.discussion) from None
    try:
        current = get_store().find_by_id(link.comment_id)
        if current is None or current.status != PENDING:
            raise LinkRefused(GONE if current is None else DECIDED, comment=current, discussion=ready.discussion)
        progress = moderation.moderate(action=link.action, comment_ids=[link.comment_id],
                                       editor=ready.editor.get_username())
    except Exception:
        uses.delete_one({"_id": link.use_key})
        raise
    return Done(ready=ready, progress=progress)
