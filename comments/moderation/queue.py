"""Editors' moderation: the queue, and what editors do to comments (approve, mark as
spam, delete, remove a whole sub-thread, ban a commenter). Plain functions; no
request in sight. Who may call them is the dashboard's business (editors only).

Every action is recorded with what it changes before it changes anything, then
applied and each discussion it touched settled: placeholders first (a deleted
comment with approved replies stays as "[deleted]"), then the post's comment count
and latest comments (comments/moderation/changes.py). An action cut short by its request's time
budget is finished later, never left half-done. Nothing here happens in a signal:
each function says what it changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from bson import ObjectId
from django.contrib.auth import get_user_model
from django.utils.translation import gettext, gettext_noop

from comments import records
from comments.host import get_host
from comments.moderation import bans, blocklist, changes, flags
from comments.moderation.standing import Standing, standings
from comments.records import APPROVED, DELETED, SPAM, Comment, QueueFilter
from comments.stores import counters, get_store

ACTIONS = ("approve", "spam", "delete")
STATUS_OF_ACTION = {"approve": APPROVED, "spam": SPAM, "delete": DELETED}
NOTHING_CHOSEN = gettext_noop("Choose at least one comment.")
NO_SUCH_COMMENT = gettext_noop("That comment no longer exists.")
BAN_SELF = gettext_noop("You cannot ban yourself.")
BAN_EDITOR = gettext_noop("“%(name)s” is an editor: an editor cannot be banned.")


class BanRefused(Exception):
    """A ban that must not be: of the editor banning, or of another editor."""

    def __init__(self, template: str, **params: str):
        super().__init__(template % params)
        self.template, self.params = template, params

    @property
    def message(self) -> str:
        """The reason, in the active language."""
        return gettext(self.template) % self.params


@dataclass(frozen=True)
class QueueEntry:
    """A comment as the queue shows it, with its readers' flags and, for a member's,
    their standing (account age, verified, bans)."""

    comment: Comment
    flags: list[flags.Flag]
    member: Standing | None = None


@dataclass(frozen=True)
class Banned:
    """What a ban recorded and how many comments it marked as spam."""

    keys: list[tuple[str, str]]
    marked: int
    # False when the request's time ran out first: the rest is being finished.
    done: bool = True


def tab_counts(*, filters: QueueFilter) -> dict[str, int]:
    """How many comments each queue tab holds under these filters: the pending, spam
    and recent tabs from the discussions' counters when no filter names a commenter
    (comments/stores/counters.py), the others counted."""
    found = {tab: get_store().count_queue(tab=tab, filters=filters) for tab in records.QUEUE_TABS
             if tab not in COUNTED_TABS or filters.name or filters.email or filters.ip}
    if len(found) < len(records.QUEUE_TABS):
        totals = counters.totals(store=get_store(), discussion_id=filters.discussion_id)
        found.update({"pending": totals.pending, "spam": totals.spam,
                      "recent": totals.approved + totals.pending + totals.spam + totals.deleted})
    return {tab: found[tab] for tab in records.QUEUE_TABS}


# The tabs whose counts are the counters' (by status; "recent" is every comment).
COUNTED_TABS = ("pending", "spam", "recent")


def queue_page(*, tab: str, filters: QueueFilter, skip: int, limit: int) -> list[QueueEntry]:
    """A page of a queue tab, each comment with its flags and its member's standing
    (three more queries in all)."""
    comments = get_store().find_queue(tab=tab, filters=filters, skip=skip, limit=limit)
    found = flags.find_flags(comment_ids=[c.id for c in comments])
    members = standings(c.author.id for c in comments if c.author.id is not None)
    return [QueueEntry(comment=c, flags=found.get(c.id, []),
                       member=members.get(c.author.id) if c.author.id is not None else None)
            for c in comments]


def moderate(*, action: str, comment_ids: Iterable[ObjectId], editor: str = "") -> changes.Progress:
    """Approve, mark as spam or delete these comments (bulk): how far it got (`total`:
    how many it changes; `done`: False when the request's time ran out first and the
    rest is being finished in the background).

    Approving also clears their flags: an editor has judged them, and readers'
    flags start counting again from none. Approving a flagged comment that is approved
    already dismisses its flags (`dismissed` counts those; a record of its own). Deleting keeps the text in the database
    (an editor can approve a mistaken delete back) but readers never see it; a
    comment its own author deleted (its text emptied) is never approved back.
    Recorded first and applied as far as the request's time allows; the rest is
    finished later (comments/moderation/changes.py).
    """
    status = STATUS_OF_ACTION[action]
    chosen = get_store().find_by_ids(ids=comment_ids)
    if action != "approve":
        return changes.apply(action=action, status=status, comments=chosen, editor=editor)
    chosen = [c for c in chosen if not changes.deleted_by_author(c)]
    approved = changes.apply(action=action, status=status, comments=chosen, editor=editor)
    # `chosen` as they were: the ones approved before this action.
    dismissed = changes.dismiss_flags(comments=chosen, editor=editor)
    return replace(approved, done=approved.done and dismissed.done, dismissed=dismissed.total,
                   records=approved.records + dismissed.records)


def remove_subthread(*, comment_id: ObjectId, editor: str = "") -> changes.Progress:
    """Delete a comment and every reply below it (`total`: how many it deletes). No
    placeholder is left inside it, and an ancestor that only stood for these replies
    loses its placeholder."""
    comment = get_store().find_by_id(comment_id)
    if comment is None:
        return changes.NOTHING
    thread = get_store().find_subthread(comment=comment)
    return changes.apply(action="remove_thread", status=DELETED, comments=thread, editor=editor)


def ban_keys(comment: Comment) -> list[tuple[str, str]]:
    """What banning this comment's author records: the member's user id; for an
    anonymous commenter their IP address. Never a typed e-mail address: anyone can
    type anyone's, and banning an impostor must not ban the address's owner."""
    if comment.author.id is not None:
        return [(blocklist.BAN_USER, str(comment.author.id))]
    return [(blocklist.BAN_IP, comment.ip)] if comment.ip else []


@dataclass(frozen=True)
class BanPreview:
    """What banning a comment's author would do, shown before it is done."""

    comment: Comment
    keys: list[tuple[str, str]]
    comments: list[Comment]
    names: list[str]

    @property
    def count(self) -> int:
        return len(self.comments)


def ban_refusal(comment: Comment, *, editor_id: int | None) -> BanRefused | None:
    """Why banning this comment's author must not be, if it must not: they are the
    editor banning (`editor_id`), or someone who moderates this site."""
    if comment.author.id is None:
        return None
    return member_ban_refusal(user_id=comment.author.id, name=comment.author.name, editor_id=editor_id)


def member_ban_refusal(*, user_id: int, name: str, editor_id: int | None) -> BanRefused | None:
    """Why banning this member must not be, if it must not (as `ban_refusal`)."""
    if editor_id is not None and user_id == editor_id:
        return BanRefused(BAN_SELF)
    user = get_user_model()._default_manager.filter(pk=user_id).first()
    if user is not None and get_host().can_moderate(user):
        return BanRefused(BAN_EDITOR, name=name)
    return None


def _banned_comments(comment: Comment, keys: list[tuple[str, str]]) -> list[Comment]:
    """The comments a ban on `keys` marks as spam: the member's own, or every anonymous
    comment from the address (an address ban never reaches members or editors).
    Deleted comments stay deleted, and spam is spam already."""
    if not keys:
        return [comment] if comment.status not in (SPAM, DELETED) else []
    commenter = records.by_commenter(
        user_id=comment.author.id, ips=[v for k, v in keys if k == blocklist.BAN_IP],
    )
    found = get_store().find_by_commenter(commenter=commenter, exclude_status=SPAM)
    found = [c for c in found if c.status != DELETED]
    if comment.author.id is None:
        found = [c for c in found if c.author.id is None]
    return found


def preview_ban(*, comment_id: ObjectId) -> BanPreview | None:
    """What banning this comment's author would change; None if the comment is gone."""
    comment = get_store().find_by_id(comment_id)
    if comment is None:
        return None
    keys = ban_keys(comment)
    theirs = _banned_comments(comment, keys)
    return BanPreview(comment=comment, keys=keys, comments=theirs,
                      names=sorted({c.author.name for c in theirs if c.author.name}))


def ban_commenter(*, comment_id: ObjectId, editor: str, editor_id: int | None = None, reason: str = "",
                  ends: datetime | None = None) -> Banned | None:
    """Ban this comment's author from commenting and mark their comments as spam (a
    member's own; from an address, every anonymous comment sent from it; deleted
    ones stay deleted). A member is banned by account with `reason` until `ends`
    (None: for good: comments/moderation/bans.py), an address on the blocklist.
    None if the comment is gone; an anonymous comment without an
    IP address bans nothing and marks only itself. BanRefused for the editor banning
    (`editor_id`) or any other editor. The ban is recorded with what it changed, so
    lifting it can put those comments back (`lift_ban`, `unban_member`)."""
    preview = preview_ban(comment_id=comment_id)
    if preview is None:
        return None
    if (refused := ban_refusal(preview.comment, editor_id=editor_id)) is not None:
        raise refused
    return _ban(preview.keys, preview.comments, editor=editor, reason=reason, ends=ends)


def ban_member(*, user_id: int, name: str, editor: str, editor_id: int | None, reason: str,
               ends: datetime | None) -> Banned:
    """Ban this member by account (from their history page) as `ban_commenter` does."""
    if (refused := member_ban_refusal(user_id=user_id, name=name, editor_id=editor_id)) is not None:
        raise refused
    return _ban([(blocklist.BAN_USER, str(user_id))], member_comments(user_id), editor=editor, reason=reason,
                ends=ends)


def member_comments(user_id: int) -> list[Comment]:
    """A member's comments a ban marks as spam: those neither spam nor deleted."""
    found = get_store().find_by_commenter(commenter=records.by_commenter(user_id=user_id), exclude_status=SPAM)
    return [c for c in found if c.status != DELETED]


def _ban(keys: list[tuple[str, str]], comments: list[Comment], *, editor: str, reason: str,
         ends: datetime | None) -> Banned:
    changes.check_size(len(comments))  # Before the ban is recorded: all or nothing.
    for kind, value in keys:
        if kind == blocklist.BAN_USER:
            bans.add(user_id=int(value), reason=reason, ends=ends, by=editor)
        else:
            blocklist.add_entry(kind=kind, value=value, added_by=editor)
    progress = changes.apply(action="ban", status=SPAM, comments=comments, editor=editor, keys=keys)
    return Banned(keys=keys, marked=progress.total, done=progress.done)


@dataclass(frozen=True)
class Lifted:
    removed: bool
    restored: int


def _unrestored_ban(kind: str, value: str) -> dict | None:
    """The latest recorded ban by this key (a blocklist entry's, or a member's account),
    unless it was restored."""
    ban = changes.latest_ban(keys=[(kind, value)])
    return ban if ban is not None and not ban.get("restored") else None


def restorable_for(*, entry: blocklist.Entry) -> list[Comment]:
    """The comments the latest ban with this blocklist entry marked as spam and that
    are still spam: what lifting it may restore."""
    return restorable_by(kind=entry.kind, value=entry.value)


def restorable_by(*, kind: str, value: str) -> list[Comment]:
    """As `restorable_for`, for the latest ban by this key (a member: BAN_USER and their id)."""
    ban = _unrestored_ban(kind, value)
    return changes.restorable(ban) if ban is not None else []


def lift_ban(*, entry_id: object, restore: bool, editor: str = "") -> Lifted:
    """Remove a ban from the blocklist; with `restore`, give the comments its ban
    marked as spam (and that nobody changed since) the status they had before."""
    entry = blocklist.find_entry(entry_id=entry_id)
    if entry is None:
        return Lifted(removed=False, restored=0)
    return Lifted(removed=blocklist.remove_entry(entry_id=entry.id),
                  restored=_restore(entry.kind, entry.value, editor=editor) if restore else 0)


def _restore(kind: str, value: str, *, editor: str) -> int:
    """Put back what the latest ban by this key marked as spam (unless done before)."""
    ban = _unrestored_ban(kind, value)
    return changes.restore(ban=ban, editor=editor).total if ban is not None else 0


def unban_member(*, user_id: int, editor: str, restore: bool) -> Lifted:
    """Lift this member's ban (by account, or a blocklist ban of theirs from before
    bans had reasons); with `restore`, as `lift_ban`. `removed`: whether one held."""
    lifted = bans.lift(user_id=user_id, by=editor)
    legacy = blocklist.remove_value(kind=blocklist.BAN_USER, value=str(user_id))
    restored = _restore(blocklist.BAN_USER, str(user_id), editor=editor) if restore else 0
    return Lifted(removed=bool(lifted) or legacy, restored=restored)
