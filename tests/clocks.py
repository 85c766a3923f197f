"""The rate limiters' clock, stopped for a test (`rate_clock`, a plugin of
tests/conftest.py).

The limits count in fixed windows of the clock (comments/posting/antispam.py,
api/middleware.py) and store each count with the time it may be deleted, which the
database's TTL monitor does about once a minute. A test whose clock runs may see its
window end between two requests; one stopped in the past (a moment of 1970) stores
counts already expired, which the monitor may delete between two requests. So
`rate_clock` stops both limiters' clocks at `window_start()`: the start of an hour, a
day from now, where a window of 60 seconds and one of 600 both start and no count
expires during the run. A test moves it on with `rate_clock.now += seconds`.
"""

from __future__ import annotations

import time

import pytest

HOUR = 3600


def window_start(*, hours_ahead: int = 24) -> float:
    """The start of an hour `hours_ahead` from now (a whole number of seconds)."""
    return float((int(time.time()) // HOUR + hours_ahead) * HOUR)


class StoppedClock:
    """A clock that reads `now` until a test moves it."""

    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def rate_clock(monkeypatch) -> StoppedClock:
    """The comments' and the API's rate limiters' clock, stopped at `window_start()`."""
    from api import middleware
    from comments.posting import antispam

    clock = StoppedClock(window_start())
    monkeypatch.setattr(antispam, "clock", clock)
    monkeypatch.setattr(middleware, "clock", clock)
    return clock
