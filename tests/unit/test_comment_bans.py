"""The pure rules of members' bans (comments/moderation/bans.py): a ban holds until its
end or its lifting, a timed one lifts itself, the one in force is the longest; and
the ban form's lengths (comments/moderation/forms.py)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from bson import ObjectId

from comments.moderation.bans import Ban, current
from comments.moderation.forms import PERMANENT, UNTIL, ban_end

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=timezone.utc)
DAY = timedelta(days=1)


def ban(*, ends: datetime | None, lifted: datetime | None = None, starts: datetime = NOW - DAY) -> Ban:
    return Ban(id=ObjectId(), user_id=7, reason="Rude", starts=starts, ends=ends, by="bruno", lifted=lifted)


def test_a_timed_ban_holds_until_its_end_and_lifts_itself_then():
    timed = ban(ends=NOW + DAY)
    assert timed.active_at(NOW) and timed.active_at(NOW + DAY - timedelta(seconds=1))
    assert not timed.active_at(NOW + DAY) and not timed.active_at(NOW + 2 * DAY)
    assert timed.ended_at() == NOW + DAY


def test_a_permanent_ban_holds_until_lifted():
    forever = ban(ends=None)
    assert forever.permanent and forever.active_at(NOW + 1000 * DAY) and forever.ended_at() is None
    lifted = ban(ends=None, lifted=NOW)
    assert not lifted.active_at(NOW + DAY) and lifted.ended_at() == NOW


def test_a_ban_lifted_before_its_end_ended_when_lifted():
    early = ban(ends=NOW + DAY, lifted=NOW)
    assert not early.active_at(NOW) and early.ended_at() == NOW


def test_the_ban_in_force_is_the_longest_of_those_that_hold():
    short, long, over = ban(ends=NOW + DAY), ban(ends=NOW + 5 * DAY), ban(ends=NOW - DAY)
    assert current([short, long, over], now=NOW) is long
    forever = ban(ends=None)
    assert current([long, forever], now=NOW) is forever
    assert current([over, ban(ends=None, lifted=NOW - DAY)], now=NOW) is None
    assert current([], now=NOW) is None


@pytest.mark.parametrize("length, until, expected", [
    ("1", None, NOW + DAY), ("30", None, NOW + 30 * DAY), ("365", None, NOW + 365 * DAY),
    (PERMANENT, NOW + DAY, None), (UNTIL, NOW + 3 * DAY, NOW + 3 * DAY),
])
def test_a_bans_length_gives_its_end(length, until, expected):
    assert ban_end(length=length, until=until, now=NOW) == expected
