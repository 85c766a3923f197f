"""A moment for the rate limits' tests to stop their clock at.

The limits count in fixed windows of the clock (comments/posting/antispam.py,
api/middleware.py) and store each count with the time it may be deleted, which the
database's TTL monitor does about once a minute. A test whose clock runs may see its
window end between two requests; one stopped in the past (a moment of 1970) stores
counts already expired, which the monitor may delete between two requests. So these
tests stop the clock at `window_start()`: the start of an hour, a day from now, where a
window of 60 seconds and one of 600 both start and no count expires during the run.
"""

from __future__ import annotations

import time

HOUR = 3600


def window_start(*, hours_ahead: int = 24) -> float:
    """The start of an hour `hours_ahead` from now (a whole number of seconds)."""
    return float((int(time.time()) // HOUR + hours_ahead) * HOUR)
