"""The same text posted again: a poster gives back the earlier comment instead of
storing a copy when the same author posted the same text under the same parent within
COMMENTS_DUPLICATE_WINDOW seconds, or is posting it from another request right now
(the first of them claims the text in comments/recent_texts.py, the others wait for
its comment). Used by comments/services.post_comment."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

from comments import conf, recent_texts
from comments.host import Discussion
from comments.records import Comment, CommentAuthor
from comments.stores import get_store

# How long a poster waits for the comment of another poster who claimed the same
# text a moment before (it is being stored), checking every CLAIM_POLL seconds.
CLAIM_WAIT, CLAIM_POLL = 2.0, 0.05


def claim_text(
    *, post: Discussion, parent: Comment | None, author: CommentAuthor, ip: str | None, text: str,
    at: datetime | None,
) -> tuple[Comment | None, str | None]:
    """(the earlier comment to give back, None) when this text was posted here by this
    author within COMMENTS_DUPLICATE_WINDOW seconds, or is being posted by another
    request right now; else (None, the claim this poster now holds on the text, to
    release if storing fails). Backdated comments (`at`: demo content, imports) are
    not claimed."""
    earlier = recent_duplicate(post=post, parent=parent, author=author, ip=ip, text=text, at=at)
    window = conf.get().duplicate_window
    if earlier is not None or window <= 0 or at is not None:
        return earlier, None
    now = datetime.now(timezone.utc)
    claim_key = recent_texts.key(discussion_id=post.id, parent_id=parent.id if parent else None, author=author,
                                 ip=ip or None, text=text)
    if recent_texts.claim(claim_key, now=now, window=timedelta(seconds=window)):
        return None, claim_key
    deadline = time.monotonic() + CLAIM_WAIT
    while time.monotonic() < deadline:
        time.sleep(CLAIM_POLL)
        earlier = recent_duplicate(post=post, parent=parent, author=author, ip=ip, text=text, at=at)
        if earlier is not None:
            return earlier, None
    # The other poster's comment never appeared (it failed): store this one.
    return None, None


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
