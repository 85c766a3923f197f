"""A page read through windows of its sort key, so that its cost does not grow with
what the collection holds before or after it (docs/performance.md).

DocumentDB (the development database) cannot walk an index in order: a page query
finds every index entry its range holds, fetches them and sorts them to keep the
page, so page 1 of the newest of 100,000 sorts 100,000. A range bounded from both
sides costs what it holds. So a page is read in windows of its order's leading field
(a `TimeKey`: a date, or a text that starts with a time), each a range that ends at a
time boundary: the first window starts at the cursor's key (or, for page 1, is
bounded by where page 1 ended the last time it was read: `PageHint`; with no hint, by
a span past `opens` in an order that runs forward in time), and each further window
starts where the last one ended and reaches further in time, as far as the density
seen so far says the rest of the page needs. The windows partition the leading field
in the order's direction and every one carries the page's whole filter, so what they
return, concatenated, is exactly what the unbounded query returns: the same documents
in the same order. After `MAX_WINDOWS` windows the rest is one open-ended query.

The hints are hints: a stale one costs time, never a wrong page. They live in
Django's cache under a name the caller gives (`get_hint`, `set_hint`). Pure but for
those two.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, TypeVar

from django.core.cache import cache

T = TypeVar("T")

# How many bounded windows a page reads before the rest is one open-ended query.
MAX_WINDOWS = 10
# The first window's length in time when nothing is known of the density.
DEFAULT_SPAN = timedelta(hours=1)
# Each further window: at least twice, at most this many times, the last one's length.
MAX_GROWTH = 64
# A window never spans less than this (a page inside one thread spans no time at all).
MIN_SPAN = timedelta(seconds=1)
# How long a hint stays in the cache.
HINT_SECONDS = 24 * 3600


@dataclass(frozen=True)
class TimeKey:
    """A leading sort field whose values are dates: each stands for its own moment."""

    field: str

    def moment(self, value: Any) -> datetime | None:
        """The moment `value` stands for; None if it names none."""
        return value.astimezone(timezone.utc) if isinstance(value, datetime) and value.tzinfo else None

    def at(self, moment: datetime) -> Any:
        """The value at `moment`: every value standing for an earlier time sorts before it."""
        # Stored times keep milliseconds: a boundary sent is the boundary compared.
        return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


TIME_PREFIX_FORMATS = ("%Y.%m.%d.%H.%M.%S.%f", "%Y.%m.%d.%H.%M.%S")


@dataclass(frozen=True)
class TimePrefixedKey(TimeKey):
    """A leading sort field whose values are texts that start with a time
    (`YYYY.MM.DD.HH.MM.SS.ffffff`, up to the first `:` or `/`): each stands for that
    time, and every value whose time is earlier sorts before the time's own text."""

    def moment(self, value: Any) -> datetime | None:
        if not isinstance(value, str):
            return None
        prefix = value.split("/", 1)[0].split(":", 1)[0]
        for layout in TIME_PREFIX_FORMATS:
            try:
                return datetime.strptime(prefix, layout).replace(tzinfo=timezone.utc)
            except ValueError:
                continue
        return None

    def at(self, moment: datetime) -> Any:
        return moment.astimezone(timezone.utc).strftime(TIME_PREFIX_FORMATS[0])


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
    """What the last read of some pages in one order left behind: the leading value at
    the end of page 1, and the time a full page spanned."""

    end: Any = None
    span: timedelta = DEFAULT_SPAN


def time_boundary(key: TimeKey, moment: datetime) -> Boundary:
    """The boundary at `moment`: every value standing for an earlier time sorts before it."""
    value = key.at(moment)
    return Boundary(value=value, moment=value if isinstance(value, datetime) else moment)


def window_condition(key: TimeKey, direction: int, start: Boundary | None, stop: Boundary | None) -> dict:
    """The condition on `key`'s field of the window from `start` to `stop` in
    `direction` (1: ascending, -1: descending); None on either side: open."""
    condition: dict[str, Any] = {}
    lower, upper = ("$gte", "$gt"), ("$lte", "$lt")  # (inclusive, exclusive)
    if start is not None:
        condition[(lower if direction > 0 else upper)[0 if not start.closes_earlier else 1]] = start.value
    if stop is not None:
        condition[(upper if direction > 0 else lower)[0 if stop.closes_earlier else 1]] = stop.value
    return {key.field: condition} if condition else {}


def widen(span: timedelta, *, found: int, missing: int) -> timedelta:
    """The next window's length: long enough, at the density the last window showed
    (`found` in `span`), for the `missing` ones, twice over; at least twice the last,
    at most MAX_GROWTH times."""
    factor = MAX_GROWTH if found == 0 else min(MAX_GROWTH, max(2.0, 2.0 * missing / found))
    return max(MIN_SPAN, span * factor)


def beyond(key: TimeKey, direction: int, start: Boundary, span: timedelta) -> Boundary | None:
    """The time boundary `span` past `start` in `direction`, strictly beyond its
    value (doubling `span` until it is); None past the calendar's ends."""
    for _ in range(64):
        try:
            stop = time_boundary(key, start.moment + span * direction)
        except OverflowError:
            return None
        if (stop.value > start.value) if direction > 0 else (stop.value < start.value):
            return stop
        span *= 2
    return None


def read(
    *, key: TimeKey, direction: int, wanted: int, key_value: Any = None, hint: PageHint = PageHint(),
    opens: datetime | None = None, fetch: Callable[[dict, int], list[T]],
) -> list[T]:
    """The first `wanted` of a page, window by window. `key_value`: the leading value
    of the cursor's key (None: page 1, whose first window ends at `hint.end` when
    known; else, going forward in time, `hint.span` past `opens`). `fetch(condition,
    limit)` runs the page's query with `condition` on the key's field added, in the
    page's order."""
    start: Boundary | None = None
    stop: Boundary | None = None
    span = max(MIN_SPAN, hint.span)
    if key_value is not None and (moment := key.moment(key_value)) is not None:
        start = Boundary(value=key_value, moment=moment)
        stop = beyond(key, direction, start, span)
    elif key_value is None and hint.end is not None and (moment := key.moment(hint.end)) is not None:
        stop = Boundary(value=hint.end, moment=moment, closes_earlier=True)
    elif key_value is None and hint.end is None:
        stop = first_stop(key, direction, span=span, opens=opens)
    got: list[T] = []
    for _ in range(MAX_WINDOWS):
        if stop is None:
            break
        found = fetch(window_condition(key, direction, start, stop), wanted - len(got))
        got += found
        if len(got) >= wanted:
            return got
        if start is not None and stop.moment != start.moment:
            span = abs(stop.moment - start.moment)
        span = widen(span, found=len(found), missing=wanted - len(got))
        start, stop = stop, beyond(key, direction, stop, span)
    return got + fetch(window_condition(key, direction, start, None), wanted - len(got))


def first_stop(key: TimeKey, direction: int, *, span: timedelta, opens: datetime | None) -> Boundary | None:
    """Where page 1's first window ends when no read left a hint: `span` past `opens`
    going forward in time. None (one open query) going back in time, where the last
    hour can be empty for years and the growing windows that follow cost more than
    the one sort (bench/comment_pages.py, "newest page 1, no hints"), or when `opens`
    is unknown."""
    if direction < 0 or opens is None:
        return None
    try:
        return time_boundary(key, opens + span)
    except OverflowError:
        return None


def observed(key: TimeKey, *, count: int, first: Any, last: Any, wanted: int, first_page: bool,
             hint: PageHint) -> PageHint:
    """The hint a page just read leaves, given how many it read and the leading values
    of the first and the last: where page 1 ends (a full first page) and the time a
    full page spans (at least MIN_SPAN; kept while within twice the one seen, so that
    most reads write nothing)."""
    if count < wanted or not count:
        return hint
    early, late = key.moment(first), key.moment(last)
    span = max(MIN_SPAN, abs(late - early)) if early and late else hint.span
    if hint.span / 2 <= span <= hint.span * 2:
        span = hint.span
    return PageHint(end=last if first_page else hint.end, span=span)


def get_hint(name: str) -> PageHint:
    """The hint kept under `name` (an empty one if none)."""
    try:
        found = cache.get(name)
    except Exception:  # a hint is optional: a cache that fails costs time, not the page
        return PageHint()
    return found if isinstance(found, PageHint) else PageHint()


def set_hint(name: str, *, hint: PageHint, previous: PageHint) -> None:
    """Keep the hint under `name` for the next read (written only when it changed)."""
    if hint == previous:
        return
    try:
        cache.set(name, hint, HINT_SECONDS)
    except Exception:  # a hint is optional (as in get_hint)
        pass
