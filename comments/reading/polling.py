"""New comments while a reader reads: what static/js/live.js asks every 15 seconds.

`GET /posts/<slug>/comments/latest/?seen=N` answers how many comments the discussion
has now and, against the N the reader's page showed, how many are new, with the words
to say it ("3 new comments — show") in the reader's language. It is polled, not
pushed: gunicorn's sync workers serve one request at a time each, so a server-sent
events stream would hold a whole worker per open tab (four workers, four readers);
a poll holds one for about a millisecond.

It counts only what every reader sees: the discussion's approved comments and its
listed entries (comments and placeholders), as its counters keep them after every
change (comments/stores/counters.py); a pending or spam comment changes neither, so
neither the body nor the ETag tells a reader anything about it.

Each answer says when its numbers were read from the database (`read_at`), and the
script ignores an answer read before one it has applied: with a cache per process
(the default LocMemCache under several gunicorn workers), one worker may still hold
numbers from before a comment that another has already announced, and the "1 new
comment" button would come and go between polls. A version that every change
advances would order them too, but would tell readers when a comment was held back.

Cost: the two numbers are kept in the cache (CACHES) for POLL_CACHE_SECONDS under
the post's slug, so a poll is a cache hit, or once per slug and period one indexed
read of the post (by slug) and one of its state (by `_id`); nothing reads the comments. The ETag is made of the
numbers, `seen` and the language; a poll that sends it back in If-None-Match while
nothing changed is answered 304 Not Modified with no body.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass

from django.core.cache import cache
from django.core.exceptions import BadRequest
from django.utils.translation import gettext, gettext_noop, ngettext

from comments.host import get_host
from comments.stores import counters, get_store

# How long a discussion's numbers are reused: a new comment shows within this plus
# the script's 15 seconds between polls.
POLL_CACHE_SECONDS = 5
KEY_PREFIX = "comments:poll:"
BAD_SEEN = gettext_noop("`seen` is the number of comments the page showed: a whole number.")
# No discussion has more comments than this (the bound keeps `seen` a small number).
MAX_SEEN = 10**9
DIGITS = re.compile(r"[0-9]{1,10}")


@dataclass(frozen=True)
class Counts:
    """What every reader of a discussion sees: its approved comments, and its listed
    entries (comments and placeholders: a delete with replies changes only the first),
    and when they were read from the database (milliseconds since the epoch)."""

    comments: int
    listed: int
    read_at: int = 0


def parse_seen(raw: str | None) -> int:
    """The `seen` parameter: a whole number from 0 to MAX_SEEN; BadRequest otherwise."""
    if raw is None or not DIGITS.fullmatch(raw) or int(raw) > MAX_SEEN:
        raise BadRequest(gettext(BAD_SEEN))
    return int(raw)


def counts_of(slug: str) -> Counts:
    """The discussion's counts, from the cache or one read of its post and its state; Http404 for a
    slug that names no published post (never cached)."""
    key = KEY_PREFIX + hashlib.sha256(slug.encode()).hexdigest()[:32]
    kept = cache.get(key)
    if kept is not None:
        return Counts(*kept)
    post = get_host().published_or_404(slug)
    kept = counters.state(post.id, store=get_store()).counts
    counts = Counts(comments=kept.approved, listed=kept.listed, read_at=time.time_ns() // 1_000_000)
    cache.set(key, (counts.comments, counts.listed, counts.read_at), POLL_CACHE_SECONDS)
    return counts


def etag(counts: Counts, *, seen: int, language: str) -> str:
    """The answer's entity tag: the same exactly when the answer says the same
    (when its numbers were read is not part of what it says)."""
    digest = hashlib.sha256(f"{counts.comments}:{counts.listed}:{seen}:{language}".encode()).hexdigest()[:20]
    return f'"{digest}"'


def answer(counts: Counts, *, seen: int) -> dict:
    """The JSON body: the count now, how many are new, the words for both, and when
    the numbers were read."""
    new = max(0, counts.comments - seen)
    return {
        "comments": counts.comments,
        "read_at": counts.read_at,
        "new": new,
        "label": ngettext("%(count)s new comment — show", "%(count)s new comments — show", new)
        % {"count": new},
        "shown": ngettext("%(count)s new comment shown", "%(count)s new comments shown", new)
        % {"count": new},
    }
