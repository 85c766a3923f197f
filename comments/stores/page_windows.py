"""A discussion's pages read in windows of their sort key (infra/page_windows.py, and
docs/performance.md): the leading field of each order of records.ORDERS as a time key,
and the hints each discussion's pages leave, per order, in Django's cache.

A time boundary of `full_slug` or `thread` is the time prefix of their first part
(`YYYY.MM.DD.HH.MM.SS.ffffff`): every key whose top-level comment was posted before
that time sorts before it; `posted` is its own time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from comments.records import Comment
from infra import page_windows as windows
from infra.page_windows import PageHint, TimeKey, TimePrefixedKey

__all__ = ["KEYS", "SHORT_REACH", "PageHint", "get_hint", "observed", "read", "set_hint"]

# The fields a window can bound: the leading field of each order of records.ORDERS.
KEYS: dict[str, TimeKey] = {"posted": TimeKey("posted"), "full_slug": TimePrefixedKey("full_slug"),
                            "thread": TimePrefixedKey("thread")}
# A rest of at most this many comments is read as one query: sorting them costs less
# than the windows' round trips (about 5 ms for 1,000 on the development database).
SHORT_REACH = 1_000


def read(*, field: str, direction: int, wanted: int, fetch: Callable[[dict, int], list[Comment]],
         key_value: Any = None, hint: PageHint = PageHint(), opens: datetime | None = None) -> list[Comment]:
    """The first `wanted` comments of a page in windows of `field` (windows.read, with
    the field's time key)."""
    return windows.read(key=KEYS[field], direction=direction, wanted=wanted, key_value=key_value, hint=hint,
                        opens=opens, fetch=fetch)


def observed(field: str, comments: Sequence[Comment], order: str, *, wanted: int, first_page: bool,
             hint: PageHint) -> PageHint:
    """The hint a page of comments in `order` just read leaves (windows.observed)."""
    if not comments:
        return hint
    return windows.observed(KEYS[field], count=len(comments), first=comments[0].key(order)[0],
                            last=comments[-1].key(order)[0], wanted=wanted, first_page=first_page, hint=hint)


def _hint_key(discussion_id: Any, order: str) -> str:
    return f"comments:page-hint:{discussion_id}:{order}"


def get_hint(*, discussion_id: Any, order: str) -> PageHint:
    """The hint left for this discussion's pages in `order` (an empty one if none)."""
    return windows.get_hint(_hint_key(discussion_id, order))


def set_hint(*, discussion_id: Any, order: str, hint: PageHint, previous: PageHint) -> None:
    """Keep the hint for the next read (written only when it changed)."""
    windows.set_hint(_hint_key(discussion_id, order), hint=hint, previous=previous)
