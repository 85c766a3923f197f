"""infra/times.py: times at the precision MongoDB stores. Pure."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from infra.times import to_millisecond


def test_microseconds_are_cut_to_whole_milliseconds():
    moment = datetime(2026, 12, 1, 17, 30, 5, 123_999, tzinfo=UTC)
    assert to_millisecond(moment) == datetime(2026, 12, 1, 17, 30, 5, 123_000, tzinfo=UTC)


@given(st.datetimes(timezones=st.just(UTC)))
def test_a_time_loses_less_than_a_millisecond_and_keeps_its_zone(moment):
    cut = to_millisecond(moment)
    assert timedelta(0) <= moment - cut < timedelta(milliseconds=1)
    assert cut.microsecond % 1000 == 0 and cut.tzinfo is UTC
    assert to_millisecond(cut) == cut
