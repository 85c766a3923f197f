"""A reader's page read through windows of its sort key, so that its cost does not
grow with the discussion (docs/performance.md).

DocumentDB (the development database) cannot walk an index in order: a page query
finds every index entry its range holds, fetches them and sorts them to keep 51, so
page 1 of a 100,000-comment discussion sorts 100,000 comments. A range bounded from
both sides costs what it holds. So a page is read in windows of its order's leading
field (`full_slug`, `posted` or `thread`), each a range that ends at a time boundary:
the first window starts at the cursor's key (or, for page 1, is bounded by where
page 1 ended the last time it was read: `PageHint`; with no hint, by a span past the
discussion's `opens` in an order that runs forward in time), and each further window
starts where the last one ended and reaches further in time, as far as the density seen so
far says the rest of the page needs. The windows partition the leading field in the
order's direction and every one carries the page's whole filter, so what they return,
concatenated, is exactly what the unbounded query returns: the same comments in the
same order. After `MAX_WINDOWS` windows the rest is one open-ended query (today's).

A time boundary of `full_slug` or `thread` is the time prefix of their first part
(`YYYY.MM.DD.HH.MM.SS.ffffff`): every key whose top-level comment was posted before
that time sorts before it. The hints are hints: a stale one costs time, never a
wrong page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from django.core.cache import cache

from comments.records import Comment

# How many bounded windows a page reads before the rest is one open-ended query.
MAX_WINDOWS = 10
# The first window's length in time when nothing is known of the discussion's density.
DEFAULT_SPAN = timedelta(hours=1)
# Each further window: at least twice, at most this many times, the last one's length.
MAX_GROWTH = 64
# A window never spans less than this (a page inside one thread spans no time at all).
MIN_SPAN = timedelta(seconds=1)
# A rest of at most this many comments is read as one query: sorting them costs less
# than the windows' round trips (about 5 ms for 1,000 on the development database).
SHORT_REACH = 1_000
# How long a discussion's hints stay in the cache.
HINT_SECONDS = 24 * 3600
# The fields a window can bound: the leading field of each order of records.ORDERS.
TIME_FIELDS = ("full_slug", "thread", "posted")
TIME_PREFIX_FORMATS = ("%Y.%m.%d.%H.%M.%S.%f", "%Y.%m.%d.%H.%M.%S")


@dataclass(frozen=True)
class Boundary:
    """Where one window ends and the next begins: a value of the leading field, the
    moment it stands for, and whether the value itself belongs to the earlier window
    (a page end read before) or to the later one (a time boundary)."""

    value: Any
    moment: datetime
    closes_earlier: bool = False


@dataclass(frozen=True)
class PageHint:
    """What the last read of a discussion's pages in one order left behind: the
    leading value at the end of page 1, and the time a full page spanned."""

    end: Any = None
    span: timedelta = DEFAULT_SPAN


def leading_time(field: str, value: Any) -> datetime | None:
    """The moment a value of the leading field stands for: `posted` itself, or the
    time of a `full_slug`'s or `thread`'s first part; None if it names none."""
    if field == "posted":
        return value.astimezone(timezone.utc) if isinstance(value, datetime) and value.tzinfo else None
    if field not in TIME_FIELDS or not isinstance(value, str):
        return None
    prefix = value.split("/", 1)[0].split(":", 1)[0]
    for layout in TIME_PREFIX_FORMATS:
        try:
            return datetime.strptime(prefix, layout).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
    return None


def time_boundary(field: str, moment: datetime) -> Boundary:
    """The boundary at `moment`: every value standing for an earlier time sorts before it."""
    if field == "posted":
        # Stored times keep milliseconds: a boundary sent is the boundary compared.
        moment = moment.replace(microsecond=moment.microsecond // 1000 * 1000)
        return Boundary(value=moment, moment=moment)
    return Boundary(value=moment.astimezone(timezone.utc).strftime(TIME_PREFIX_FORMATS[0]), moment=moment)


def window_condition(field: str, direction: int, start: Boundary | None, stop: Boundary | None) -> dict:
    """The condition on `field` of the window from `start` to `stop` in `direction`
    (1: ascending, -1: descending); None on either side: open."""
    condition: dict[str, Any] = {}
    if start is not None:
        inclusive = not start.closes_earlier
        condition[("$gte" if inclusive else "$gt") if direction > 0 else ("$lte" if inclusive else "$lt")] = start.value
    if stop is not None:
        inclusive = stop.closes_earlier
        condition[("$lte" if inclusive else "$lt") if direction > 0 else ("$gte" if inclusive else "$gt")] = stop.value
    return {field: condition} if condition else {}


def widen(span: timedelta, *, found: int, missing: int) -> timedelta:
    """The next window's length: long enough, at the density the last window showed
    (`found` comments in `span`), for the `missing` ones, twice over; at least twice
    the last, at most MAX_GROWTH times."""
    factor = MAX_GROWTH if found == 0 else min(MAX_GROWTH, max(2.0, 2.0 * missing / found))
    return max(MIN_SPAN, span * factor)


def beyond(field: str, direction: int, start: Boundary, span: timedelta) -> Boundary | None:
    """The time boundary `span` past `start` in `direction`, strictly beyond its
    value (doubling `span` until it is); None past the calendar's ends."""
    for _ in range(64):
        try:
            stop = time_boundary(field, start.moment + span * direction)
        except OverflowError:
            return None
        if (stop.value > start.value) if direction > 0 else (stop.value < start.value):
            return stop
        span *= 2
    return None


def read(
    *, field: str, direction: int, wanted: int, key_value: Any = None, hint: PageHint = PageHint(),
    opens: datetime | None = None, fetch: Callable[[dict, int], list[Comment]],
) -> list[Comment]:
    """The first `wanted` comments of a page, window by window. `key_value`: the
    leading value of the cursor's key (None: page 1, whose first window ends at
    `hint.end` when known; else, going forward in time, `hint.span` past `opens`, no
    later than the discussion's first comment). `fetch(condition, limit)` runs the
    page's query with `condition` on `field` added, in the page's order."""
    start: Boundary | None = None
    stop: Boundary | None = None
    span = max(MIN_SPAN, hint.span)
    if key_value is not None and (moment := leading_time(field, key_value)) is not None:
        start = Boundary(value=key_value, moment=moment)
        stop = beyond(field, direction, start, span)
    elif key_value is None and hint.end is not None and (moment := leading_time(field, hint.end)) is not None:
        stop = Boundary(value=hint.end, moment=moment, closes_earlier=True)
    elif key_value is None and hint.end is None:
        stop = first_stop(field, direction, span=span, opens=opens)
    got: list[Comment] = []
    for _ in range(MAX_WINDOWS):
        if stop is None:
            break
        found = fetch(window_condition(field, direction, start, stop), wanted - len(got))
        got += found
        if len(got) >= wanted:
            return got
        if start is not None and stop.moment != start.moment:
            span = abs(stop.moment - start.moment)
        span = widen(span, found=len(found), missing=wanted - len(got))
        start, stop = stop, beyond(field, direction, stop, span)
    return got + fetch(window_condition(field, direction, start, None), wanted - len(got))


def first_stop(field: str, direction: int, *, span: timedelta, opens: datetime | None) -> Boundary | None:
    """Where page 1's first window ends when no read left a hint: `span` past `opens`
    going forward in time. None (one open query) going back in time, where the last
    hour can be empty for years and the growing windows that follow cost more than
    the one sort (bench/comment_pages.py, "newest page 1, no hints"), or when `opens`
    is unknown."""
    if direction < 0 or opens is None:
        return None
    try:
        return time_boundary(field, opens + span)
    except OverflowError:
        return None


def observed(field: str, comments: Sequence[Comment], order: str, *, wanted: int, first_page: bool,
             hint: PageHint) -> PageHint:
    """The hint a page just read leaves: where page 1 ends (a full first page) and
    the time a full page spans (at least MIN_SPAN; kept while within twice the one
    seen, so that most reads write nothing)."""
    if len(comments) < wanted or not comments:
        return hint
    first, last = comments[0].key(order)[0], comments[-1].key(order)[0]
    early, late = leading_time(field, first), leading_time(field, last)
    span = max(MIN_SPAN, abs(late - early)) if early and late else hint.span
    if hint.span / 2 <= span <= hint.span * 2:
        span = hint.span
    return PageHint(end=last if first_page else hint.end, span=span)


def _hint_key(discussion_id: Any, order: str) -> str:
    return f"comments:page-hint:{discussion_id}:{order}"


def get_hint(*, discussion_id: Any, order: str) -> PageHint:
    """The hint left for this discussion's pages in `order` (an empty one if none)."""
    try:
        found = cache.get(_hint_key(discussion_id, order))
    except Exception:  # a hint is optional: a cache that fails costs time, not the page
        return PageHint()
    return found if isinstance(found, PageHint) else PageHint()


def set_hint(*, discussion_id: Any, order: str, hint: PageHint, previous: PageHint) -> None:
    """Keep the hint for the next read (written only when it changed)."""
    if hint == previous:
        return
    try:
        cache.set(_hint_key(discussion_id, order), hint, HINT_SECONDS)
    except Exception:  # a hint is optional (as in get_hint)
        pass
