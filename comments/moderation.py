"""Editors' moderation: the queue, and what editors do to comments (approve, mark as
spam, delete, remove a whole sub-thread, ban a commenter). Plain functions; no
request in sight. Who may call them is the dashboard's business (editors only).

Every action changes statuses with one `update_many`, then settles each discussion
it touched: placeholders first (a deleted comment with approved replies stays as
"[deleted]"), then the post's comment count and latest comments
(`services.settle`). Nothing here happens in a signal: each function says what it
changes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from bson import ObjectId

from comments import blocklist, flags, services, store
from comments.store import APPROVED, DELETED, SPAM, Comment, QueueFilter

ACTIONS = ("approve", "spam", "delete")
STATUS_OF_ACTION = {"approve": APPROVED, "spam": SPAM, "delete": DELETED}
NOTHING_CHOSEN = "Choose at least one comment."
NO_SUCH_COMMENT = "That comment no longer exists."


@dataclass(frozen=True)
class QueueEntry:
    """A comment as the queue shows it, with its readers' flags."""

    comment: Comment
    flags: list[flags.Flag]


@dataclass(frozen=True)
class Banned:
    """What a ban recorded and how many comments it marked as spam."""

    keys: list[tuple[str, str]]
    marked: int


def tab_counts(*, filters: QueueFilter) -> dict[str, int]:
    """How many comments each queue tab holds under these filters."""
    return {tab: store.count_queue(tab=tab, filters=filters) for tab in store.QUEUE_TABS}


def queue_page(*, tab: str, filters: QueueFilter, skip: int, limit: int) -> list[QueueEntry]:
    """A page of a queue tab, each comment with its flags (one more query in all)."""
    comments = store.find_queue(tab=tab, filters=filters, skip=skip, limit=limit)
    found = flags.find_flags(comment_ids=[c.id for c in comments])
    return [QueueEntry(comment=c, flags=found.get(c.id, [])) for c in comments]


def _settle_all(comments: Iterable[Comment]) -> None:
    """Settle every discussion these comments are in (placeholders, then summary)."""
    by_discussion: dict[ObjectId, list[str]] = defaultdict(list)
    for comment in comments:
        by_discussion[comment.discussion_id].append(comment.slug)
    for discussion_id, changed in by_discussion.items():
        services.settle(discussion_id=discussion_id, slugs=changed)


def moderate(*, action: str, comment_ids: Iterable[ObjectId]) -> int:
    """Approve, mark as spam or delete these comments (bulk); how many changed.

    Approving also clears their flags: an editor has judged them, and readers'
    flags start counting again from none. Deleting keeps the text in the database
    (an editor can approve a mistaken delete back) but readers never see it; a
    comment its own author deleted (its text emptied) is never approved back.
    """
    status = STATUS_OF_ACTION[action]
    chosen = store.find_by_ids(ids=comment_ids)
    if action == "approve":
        chosen = [c for c in chosen if not (c.status == DELETED and not c.text)]
    if not chosen:
        return 0
    ids = [c.id for c in chosen]
    changed = store.set_status(ids=ids, status=status)
    if action == "approve":
        flags.clear_flags(comment_ids=ids)
        store.set_flag_count(ids=ids, flag_count=0)
    _settle_all(chosen)
    return changed


def remove_subthread(*, comment_id: ObjectId) -> int:
    """Delete a comment and every reply below it in one update_many on the anchored
    `full_slug` prefix; how many comments it covered. No placeholder is left inside
    it, and an ancestor that only stood for these replies loses its placeholder."""
    comment = store.find_by_id(comment_id)
    if comment is None:
        return 0
    removed = store.set_subthread_status(comment=comment, status=DELETED)
    services.settle(discussion_id=comment.discussion_id, slugs=[comment.slug])
    return removed


def ban_keys(comment: Comment) -> list[tuple[str, str]]:
    """What banning this comment's author records: the member's user id; for an
    anonymous commenter their e-mail address (when given) and IP address."""
    if comment.author.id is not None:
        return [(blocklist.BAN_USER, str(comment.author.id))]
    keys = []
    if comment.author.email:
        keys.append((blocklist.BAN_EMAIL, comment.author.email))
    if comment.ip:
        keys.append((blocklist.BAN_IP, comment.ip))
    return keys


def ban_commenter(*, comment_id: ObjectId, editor: str) -> Banned | None:
    """Ban this comment's author from commenting and mark every comment of theirs
    (same user, or same e-mail or IP address) as spam, in one update_many. None
    if the comment is gone; an anonymous comment with neither e-mail nor IP address
    bans nothing and marks only itself."""
    comment = store.find_by_id(comment_id)
    if comment is None:
        return None
    keys = ban_keys(comment)
    for kind, value in keys:
        blocklist.add_entry(kind=kind, value=value, added_by=editor)
    if not keys:
        return Banned(keys=[], marked=moderate(action="spam", comment_ids=[comment.id]))
    commenter = store.by_commenter(
        user_id=comment.author.id,
        emails=[v for k, v in keys if k == blocklist.BAN_EMAIL],
        ips=[v for k, v in keys if k == blocklist.BAN_IP],
    )
    theirs = store.find_by_commenter(commenter=commenter, exclude_status=SPAM)
    marked = store.set_status_by_commenter(commenter=commenter, status=SPAM)
    _settle_all(theirs)
    return Banned(keys=keys, marked=marked)
