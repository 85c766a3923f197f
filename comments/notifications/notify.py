"""What posting and moderation put in the outbox (comments/notifications/outbox.py): plain
functions, no request in sight, and nothing here waits for SMTP.

- `subscribe_after_posting`: a commenter's opt-ins ("e-mail me replies", "follow this
  discussion"): started at once for a member or a browser that confirmed the
  address before; otherwise requests that wait for the owner of the address, and a
  confirmation mail to it.
- `comment_visible`: a comment readers can now see (approved at once, or later by an
  editor) tells the subscribers of its parent, the discussion's followers and the
  post's author. Keyed by (subscription, comment), so running it again (a moderation
  action re-run after an interruption) enqueues nothing twice.
- `comment_held`: a comment waiting in the queue goes into the editors' digest.

Whether mail really goes out is decided again when it is sent (comments/notifications/sender.py):
a comment deleted meanwhile, an address not confirmed or unsubscribed sends nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import UTC, datetime

from bson import ObjectId
from django.contrib.auth import get_user_model
from django.utils import translation
from pymongo.errors import PyMongoError

from comments import addresses, conf, records
from comments.host import Discussion, get_host
from comments.notifications import outbox, subscriptions
from comments.notifications.subscriptions import DISCUSSION, REPLIES
from comments.posting import antispam, limits
from comments.records import Comment
from comments.stores import get_store
from infra import mongo

REPLY, FOLLOW, CONFIRM, MANAGE, AUTHOR, QUEUE = "reply", "follow", "confirm", "manage", "author", "queue"
# Mail about a new comment in a branch someone follows (a BRANCH subscription).
THREAD = "thread"
# What a comment readers can now see tells (`comment_visible`), keyed by the comment.
VISIBLE = (REPLY, THREAD, FOLLOW, AUTHOR)

logger = logging.getLogger(__name__)


def request_address_mail(*, kind: str, email: str, ip: str | None, now: datetime | None = None) -> None:
    """Ask for a confirmation (`CONFIRM`) or a "manage your subscriptions" (`MANAGE`)
    mail to `email`, within the limits per address and per client. The same work
    whatever the address: whether it is known, confirmed or has subscriptions is
    decided by the sender, so that neither the answer nor its timing tells. The mail is
    written in the language active now, the one the visitor asked in."""
    now = now or datetime.now(UTC)
    email = addresses.normalise(email)
    current = conf.get()
    window = current.notifications_confirm_window
    number = int(now.timestamp() // window)
    # Counted as the posting rate limits are (comments/posting/antispam.py), with their margin.
    expires = (number + 1) * window + antispam.EXPIRY_MARGIN
    admitted = True
    for who, limit in ((f"addr:{email}", current.notifications_confirm_per_address),
                       (f"ip:{ip or 'unknown'}", current.notifications_confirm_per_client)):
        if limit > 0:
            admitted = limits.take_slot(key=f"mail-{kind}:{who}", window=number, limit=limit,
                                        expires=expires) and admitted
    if admitted:
        outbox.enqueue(key=f"{kind}:{email}:{number}", batch=f"{kind}:{email}", kind=kind, to=email,
                       data={"lang": translation.get_language()}, now=now)


def subscribe_after_posting(*, comment: Comment, replies: bool, follow: bool, email: str,
                            user_id: int | None, ip: str | None, confirmed: Iterable[str] = ()) -> bool:
    """Record what a commenter opted into with `comment`. A member's (their account's
    address) and those of a browser that confirmed this address before (`confirmed`:
    the addresses its signed cookie lists) start at once; anyone else's are requests
    that wait for the address's owner, who gets a confirmation mail. True in that
    case, so the page tells them to look for it (it says so whether or not the
    address was confirmed before: a stranger learns nothing)."""
    if not (replies or follow) or not email:
        return False
    email = addresses.normalise(email)
    owner = user_id is not None or email in {addresses.normalise(address) for address in confirmed}
    if replies:
        subscriptions.subscribe(kind=REPLIES, target=comment.id, discussion_id=comment.discussion_id,
                                email=email, user_id=user_id, owner=owner, language=translation.get_language())
    if follow:
        subscriptions.subscribe(kind=DISCUSSION, target=comment.discussion_id,
                                discussion_id=comment.discussion_id, email=email, user_id=user_id,
                                owner=owner, language=translation.get_language())
    if owner:
        return False
    request_address_mail(kind=CONFIRM, email=email, ip=ip)
    return True


def is_authors(subscription: subscriptions.Subscription, comment: Comment) -> bool:
    """Whether the subscriber wrote `comment` (no mail about one's own words)."""
    author = comment.author
    if subscription.user_id is not None and subscription.user_id == author.id:
        return True
    return bool(author.email) and addresses.normalise(author.email) == subscription.email


def comment_visible(comment: Comment, *, post_author_id: int | None = None) -> int:
    """Enqueue what a comment that readers can now see tells: its parent's reply
    subscribers, the followers of a branch it is in, the discussion's followers (not
    twice for one address) and the post's author. Idempotent; how many items were new."""
    if not comment.approved:
        return 0
    told: set[str] = set()
    entries = []
    groups = []
    if comment.parent_id is not None:
        groups.append((REPLY, subscriptions.active_for(kind=REPLIES, target=comment.parent_id)))
        groups.append((THREAD, subscriptions.branch_followers(discussion_id=comment.discussion_id,
                                                              full_slug=comment.full_slug)))
    groups.append((FOLLOW, subscriptions.active_for(kind=DISCUSSION, target=comment.discussion_id)))
    for kind, found in groups:
        for subscription in found:
            if subscription.email in told or is_authors(subscription, comment):
                continue
            told.add(subscription.email)
            entries.append({"key": f"{kind}:{subscription.id}:{comment.id}", "batch": f"sub:{subscription.id}",
                            "kind": kind, "to": subscription.email,
                            "data": {"subscription": subscription.id, "comment": comment.id}})
    # Two round trips for every subscriber together: this runs as the comment is posted.
    new = outbox.enqueue_all(entries, window=conf.get().notifications_batch_seconds)
    new += _tell_author(comment, post_author_id=post_author_id, told=told)
    return new


def _tell_author(comment: Comment, *, post_author_id: int | None, told: set[str]) -> int:
    minutes = conf.get().notifications_author_digest_minutes
    if minutes <= 0 or post_author_id is None or comment.author.id == post_author_id:
        return 0
    user = get_user_model().objects.filter(pk=post_author_id, is_active=True).first()
    if user is None or not user.email or addresses.normalise(user.email) in told:
        return 0
    return outbox.enqueue(key=f"{AUTHOR}:{user.pk}:{comment.id}", batch=f"{AUTHOR}:{user.pk}", kind=AUTHOR,
                          to=addresses.normalise(user.email), data={"comment": comment.id},
                          window=minutes * 60)


def comment_held(comment: Comment) -> int:
    """A comment waiting in the queue goes into each editor's next digest (the item
    names the editor: the mail's moderation links are signed for them)."""
    minutes = conf.get().notifications_queue_digest_minutes
    if minutes <= 0 or comment.status != records.PENDING:
        return 0
    return outbox.enqueue_all(
        [{"key": f"{QUEUE}:{user.pk}:{comment.id}", "batch": f"{QUEUE}:{user.pk}", "kind": QUEUE,
          "to": addresses.normalise(user.email), "data": {"comment": comment.id, "editor": user.pk}}
         for user in get_host().moderators()],
        window=minutes * 60,
    )


def post_author_id(discussion_id: ObjectId) -> int | None:
    """The user id of the author of the post this discussion belongs to."""
    post = get_host().get(discussion_id)
    return post.author.id if post is not None else None


def approved(*, comment_ids: Iterable) -> int:
    """After an editor's action approved these comments: what each one tells now that
    readers see it. Idempotent (comments/moderation/changes.py may run a batch again)."""
    authors: dict = {}
    new = 0
    for comment in get_store().find_by_ids(ids=list(comment_ids)):
        if comment.discussion_id not in authors:
            authors[comment.discussion_id] = post_author_id(comment.discussion_id)
        new += comment_visible(comment, post_author_id=authors[comment.discussion_id])
    return new


def after_posting(comment: Comment, *, post_author_id: int | None) -> None:
    """After a comment is stored: tell who should hear of it. The comment is stored
    whatever happens here: an outage only costs the notices (logged)."""
    try:
        if comment.approved:
            comment_visible(comment, post_author_id=post_author_id)
        else:
            comment_held(comment)
    except PyMongoError as exc:
        if not mongo.is_outage(exc):
            raise
        logger.warning("Notices about comment %s were not enqueued (%s).", comment.id, exc.__class__.__name__)


# --- Connected to the app's signals in CommentsConfig.ready() (comments/signals.py) ------


def on_comment_posted(sender: object, *, comment: Comment, discussion: Discussion, **kwargs: object) -> None:
    """A comment posted: its notices (`after_posting`)."""
    after_posting(comment, post_author_id=discussion.author.id)


def on_status_changed(sender: object, *, comment_ids: Iterable, status: str, undone: bool = False,
                      **kwargs: object) -> None:
    """Comments an editor's action approved: what each one tells now that readers see it.
    An editor's undo (`undone`) tells nothing new: an approval undone drops what it
    queued and is not sent yet; a comment approved again by an undo was told of before."""
    if undone:
        if status != records.APPROVED:
            outbox.drop_due(kinds=VISIBLE, comment_ids=list(comment_ids))
    elif status == records.APPROVED:
        approved(comment_ids=comment_ids)
