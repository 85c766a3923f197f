"""The same text posted again: a poster gives back the earlier comment instead of
storing a copy when the same author posted the same text under the same parent within
COMMENTS_DUPLICATE_WINDOW seconds, or is posting it from another request right now
(the first of them claims the text in comments/posting/recent_texts.py, the others wait for
its comment). Used by comments/services.post_comment."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

from bson import ObjectId

from comments import conf
from comments.host import Discussion
from comments.posting import recent_texts
from comments.records import Comment, CommentAuthor
from comments.stores import get_store
from infra import mongo

# How long a poster waits for the comment of another poster who claimed the same
# text a moment before (it is being stored), checking every CLAIM_POLL seconds, when
# no request budget bounds the storing (else: the budget's time).
CLAIM_WAIT, CLAIM_POLL = 2.0, 0.05
# Spent claims a poster takes over before it stores without one (each taken over
# first by another poster, whose comment it then waits for).
TAKEOVERS = 3


def claim_text(
    *, post: Discussion, parent: Comment | None, author: CommentAuthor, ip: str | None, text: str,
    at: datetime | None, comment_id: ObjectId,
) -> tuple[Comment | None, str | None]:
    """(the earlier comment to give back, None) when this text was posted here by this
    author within COMMENTS_DUPLICATE_WINDOW seconds, or is being posted by another
    request right now; else (None, the claim this poster now holds on the text for
    the comment it stores as `comment_id`, to release if storing fails). Backdated
    comments (`at`: demo content, imports) are not claimed.

    A claim whose comment was deleted or removed since (or never stored) is taken over
    at once: the text may be posted again. Waiting for a comment being stored takes at
    most half of what is left of the request's budget (the rest is for storing)."""
    def earlier() -> Comment | None:
        return recent_duplicate(post=post, parent=parent, author=author, ip=ip, text=text, at=at)

    found = earlier()
    window = conf.get().duplicate_window
    if found is not None or window <= 0 or at is not None:
        return found, None
    span = timedelta(seconds=window)
    claim_key = recent_texts.key(discussion_id=post.id, parent_id=parent.id if parent else None, author=author,
                                 ip=ip or None, text=text)
    held = recent_texts.claim(claim_key, comment_id=comment_id, now=datetime.now(timezone.utc), window=span)
    give_up = time.monotonic() + _waitable()
    for _ in range(TAKEOVERS):
        if held is None:
            return None, claim_key
        spent = _spent(held, until=give_up)
        found = earlier()
        if found is not None:
            return found, None
        if not spent:
            break
        held = recent_texts.take_over(claim_key, held=held, comment_id=comment_id, now=datetime.now(timezone.utc),
                                      window=span)
    # Still being stored past this request's patience, or taken over by others again
    # and again: store this one.
    return (None, claim_key) if held is None else (None, None)


def _spent(held: recent_texts.Held, *, until: float) -> bool:
    """Wait until the claim `held` is spent: its comment stored (given back, or gone
    since), or the time its poster had to store it over (their storing failed). False
    when `until` (monotonic) comes first."""
    settles = time.monotonic() + _unsettled_seconds(held)
    while held.comment_id is None or get_store().find_by_id(held.comment_id) is None:
        now = time.monotonic()
        if now >= settles:
            return True
        if now >= until:
            return False
        time.sleep(CLAIM_POLL)
    return True


def _unsettled_seconds(held: recent_texts.Held) -> float:
    """How long the poster holding `held` may still be storing its comment: a request
    stores within its MongoDB budget (MONGODB_REQUEST_BUDGET_MS)."""
    if held.claimed is None:
        return 0.0
    settle = mongo.request_budget() or CLAIM_WAIT
    return (held.claimed + timedelta(seconds=settle) - datetime.now(timezone.utc)).total_seconds()


def _waitable() -> float:
    """How long this poster may wait for another's comment: half of its request's
    MongoDB budget left (CLAIM_WAIT without one)."""
    left = mongo.budget_left()
    return CLAIM_WAIT if left is None else max(0.0, left / 2)


def recent_duplicate(
    *, post: Discussion, parent: Comment | None, author: CommentAuthor, ip: str | None, text: str,
    at: datetime | None,
) -> Comment | None:
    """The same text by the same author under the same parent, posted within
    COMMENTS_DUPLICATE_WINDOW seconds (0: no such check)."""
    window = conf.get().duplicate_window
    if window <= 0:
        return None
    since = (at or datetime.now(timezone.utc)) - timedelta(seconds=window)
    return get_store().find_duplicate(
        discussion_id=post.id, parent_id=parent.id if parent else None, author=author, ip=ip or None,
        text=text, since=since,
    )
