"""infra/page_windows.py with the comments' keys (comments/stores/page_windows.py): a
page read in windows of its sort key returns exactly what one unbounded query returns,
checked against comments held in a list (each window's condition evaluated in Python,
the way the server evaluates it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from comments.stores import page_windows
from comments.stores.page_windows import KEYS
from infra import page_windows as windows
from infra.page_windows import Boundary, PageHint

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
OPERATORS = {
    "$gt": lambda a, b: a > b,
    "$gte": lambda a, b: a >= b,
    "$lt": lambda a, b: a < b,
    "$lte": lambda a, b: a <= b,
}


@dataclass(frozen=True)
class Keyed:
    """A comment as far as a window sees it: its leading sort value and a position."""

    value: Any
    n: int

    def key(self, order: str) -> tuple:
        return (self.value, self.n)


def in_order(items: list[Keyed], direction: int) -> list[Keyed]:
    return sorted(items, key=lambda i: (i.value, i.n), reverse=direction < 0)


def reader(items: list[Keyed], *, field: str, direction: int, key: Keyed | None, calls: list | None = None):
    """fetch(condition, limit) over `items`: the page's own filter (strictly after
    `key` in the order) and the window's condition on `field`, in order."""
    ordered = in_order(items, direction)
    if key is not None:
        ordered = ordered[ordered.index(key) + 1:]

    def fetch(condition: dict, limit: int) -> list[Keyed]:
        if calls is not None:
            calls.append(condition)
        tests = condition.get(field, {})
        return [i for i in ordered if all(OPERATORS[op](i.value, v) for op, v in tests.items())][:limit]

    return fetch


def test_leading_time_reads_posted_and_the_first_part_of_a_full_slug():
    """`posted` is its own time; a full_slug or thread stands for its top-level comment's."""
    when = START + timedelta(seconds=5, microseconds=123456)
    full = "2026.01.01.00.00.05.123456:abcdefgh/2026.03.01.00.00.00.000000:bcdefghi"
    assert KEYS["posted"].moment(when) == when
    assert KEYS["full_slug"].moment(full) == when
    assert KEYS["thread"].moment("2026.01.01.00.00.05:abcdefgh") == START + timedelta(seconds=5)
    assert KEYS["full_slug"].moment("not a time:abcdefgh") is None
    assert windows.TimeKey("rank").moment(0.5) is None


def test_a_time_boundary_sorts_after_every_key_of_an_earlier_time_and_before_later_ones():
    """The boundary at a moment splits full_slugs by their top-level comment's time."""
    moment = START + timedelta(hours=1)
    boundary = windows.time_boundary(KEYS["full_slug"], moment).value
    assert "2026.01.01.00.59.59.999999:zzzzzzzz/2026.09.01.00.00.00.000000:zzzzzzzz" < boundary
    assert boundary < "2026.01.01.01.00.00.000000:aaaaaaaa"
    assert boundary < "2026.01.01.01.00.00:aaaaaaaa"  # the classic layout, without microseconds


def test_a_posted_boundary_keeps_milliseconds_as_the_server_stores_them():
    moment = START + timedelta(microseconds=1_234_567)
    assert windows.time_boundary(KEYS["posted"], moment).value == START + timedelta(microseconds=1_234_000)


def test_window_conditions_follow_the_direction_and_which_side_a_boundary_belongs_to():
    early, late = Boundary(value=1, moment=START), Boundary(value=9, moment=START, closes_earlier=True)
    assert windows.window_condition(KEYS["posted"], 1, early, late) == {"posted": {"$gte": 1, "$lte": 9}}
    assert windows.window_condition(KEYS["posted"], -1, late, early) == {"posted": {"$lt": 9, "$gt": 1}}
    assert windows.window_condition(KEYS["posted"], 1, None, None) == {}


def test_widen_grows_by_the_density_seen_within_bounds():
    hour = timedelta(hours=1)
    assert windows.widen(hour, found=0, missing=51) == hour * windows.MAX_GROWTH
    assert windows.widen(hour, found=50, missing=1) == hour * 2
    assert windows.widen(hour, found=10, missing=40) == hour * 8
    assert windows.widen(timedelta(0), found=10, missing=40) == windows.MIN_SPAN


def test_a_boundary_beyond_the_calendar_leaves_the_window_open():
    end = Boundary(value=datetime.max.replace(tzinfo=timezone.utc), moment=datetime.max.replace(tzinfo=timezone.utc))
    assert windows.beyond(KEYS["posted"], 1, end, timedelta(days=1)) is None


def test_page_one_forward_in_time_without_a_hint_or_an_opening_is_one_open_query():
    items = [Keyed(START + timedelta(minutes=i), i) for i in range(200)]
    calls: list = []
    got = windows.read(key=KEYS["posted"], direction=1, wanted=51,
                            fetch=reader(items, field="posted", direction=1, key=None, calls=calls))
    assert got == items[:51] and calls == [{}]


def test_page_one_forward_in_time_without_a_hint_starts_a_span_past_the_opening():
    """No hint cached (a restart, a first reader): the first window ends an hour past
    the discussion's `opens`, and holds page 1 here."""
    items = [Keyed(START + timedelta(minutes=i), i) for i in range(200)]
    calls: list = []
    got = windows.read(key=KEYS["posted"], direction=1, wanted=51, opens=START,
                            fetch=reader(items, field="posted", direction=1, key=None, calls=calls))
    assert got == items[:51] and calls == [{"posted": {"$lt": START + timedelta(hours=1)}}]


def test_page_one_back_in_time_without_a_hint_is_one_open_query_whatever_the_opening():
    items = [Keyed(START + timedelta(minutes=i), i) for i in range(200)]
    calls: list = []
    got = windows.read(key=KEYS["posted"], direction=-1, wanted=51, opens=START,
                            fetch=reader(items, field="posted", direction=-1, key=None, calls=calls))
    assert got == items[::-1][:51] and calls == [{}]


def test_a_hint_bounds_page_one_from_both_sides():
    """With the hint where page 1 ended, page 1 is one query bounded at that end."""
    items = [Keyed(START + timedelta(minutes=i), i) for i in range(200)]
    calls: list = []
    hint = PageHint(end=items[50].value, span=timedelta(minutes=50))
    got = windows.read(key=KEYS["posted"], direction=1, wanted=51, hint=hint,
                            fetch=reader(items, field="posted", direction=1, key=None, calls=calls))
    assert got == items[:51] and calls == [{"posted": {"$lte": items[50].value}}]


def test_a_page_ending_in_a_long_silence_ends_with_an_open_query():
    """Windows that keep finding nothing end, after MAX_WINDOWS, in one open query."""
    items = [Keyed(START + timedelta(minutes=i), i) for i in range(60)] + [Keyed(START + timedelta(days=3650 * 20), 60)]
    calls: list = []
    got = windows.read(key=KEYS["posted"], direction=1, wanted=51, key_value=items[20].value,
                            hint=PageHint(span=timedelta(seconds=1)),
                            fetch=reader(items, field="posted", direction=1, key=items[20], calls=calls))
    assert got == items[21:]
    assert len(calls) <= windows.MAX_WINDOWS + 1


values = st.integers(min_value=0, max_value=400)


@settings(max_examples=300, deadline=None)
@given(
    offsets=st.lists(values, min_size=1, max_size=150),
    direction=st.sampled_from([1, -1]),
    wanted=st.integers(min_value=1, max_value=60),
    key_at=st.one_of(st.none(), st.integers(min_value=0, max_value=149)),
    hint_at=st.one_of(st.none(), st.integers(min_value=-50, max_value=500)),
    span_seconds=st.integers(min_value=0, max_value=10_000),
    field=st.sampled_from(["posted", "full_slug"]),
    opens_at=st.one_of(st.none(), st.integers(min_value=-50, max_value=500)),
)
def test_windows_return_exactly_what_one_query_returns(offsets, direction, wanted, key_at, hint_at, span_seconds,
                                                       field, opens_at):
    """Any data (ties, gaps, bursts), any key, any hint or opening, stale or absurd,
    any span: the first `wanted` comments after the key, in order, as one
    unbounded query gives them."""

    def value(offset: int, n: int) -> Any:
        moment = START + timedelta(seconds=offset * 7)
        if field == "posted":
            return moment
        return f"{windows.time_boundary(KEYS['full_slug'], moment).value}:{n:08d}"

    items = [Keyed(value(o, n), n) for n, o in enumerate(offsets)]
    ordered = in_order(items, direction)
    key = ordered[key_at % len(ordered)] if key_at is not None else None
    hint = PageHint(span=timedelta(seconds=span_seconds))
    if hint_at is not None:
        hint = PageHint(end=value(hint_at, 0), span=hint.span)
    expected = ordered[ordered.index(key) + 1:] if key is not None else ordered
    got = windows.read(
        key=KEYS[field], direction=direction, wanted=wanted, key_value=key.value if key is not None else None,
        hint=hint if key is None else PageHint(span=hint.span),
        opens=START + timedelta(seconds=opens_at * 7) if opens_at is not None else None,
        fetch=reader(items, field=field, direction=direction, key=key),
    )
    assert got == expected[:wanted]


def test_observed_keeps_the_end_of_a_full_first_page_and_a_steady_span():
    items = [Keyed(START + timedelta(minutes=i), i) for i in range(51)]
    hint = PageHint(span=timedelta(minutes=40))
    seen = page_windows.observed("posted", items, "chronological", wanted=51, first_page=True, hint=hint)
    assert seen == PageHint(end=items[-1].value, span=timedelta(minutes=40))  # 50 min: within 2x, kept
    short = page_windows.observed("posted", items[:10], "chronological", wanted=51, first_page=True, hint=hint)
    assert short == hint
    later = page_windows.observed("posted", items, "chronological", wanted=51, first_page=False,
                                  hint=PageHint(span=timedelta(seconds=1)))
    assert later == PageHint(end=None, span=timedelta(minutes=50))
