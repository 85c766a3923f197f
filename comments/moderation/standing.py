"""A member as editors see them beside their comments: their account's facts (how old,
whether verified: the host's `member_facts`) and their ban history (comments/moderation/bans.py).
Plain functions that only read; two queries for a page of the queue, whatever its size."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from comments.host import MemberFacts, get_host
from comments.moderation.bans import Ban, current, histories


@dataclass(frozen=True)
class Standing:
    """One member's account facts (None: the account is gone) and bans, newest first,
    read at `now`."""

    user_id: int
    facts: MemberFacts | None
    bans: list[Ban] = field(default_factory=list)
    now: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    @property
    def current_ban(self) -> Ban | None:
        """The ban that holds now, or None (a timed one past its end has lifted itself)."""
        return current(self.bans, now=self.now)

    @property
    def earlier_bans(self) -> int:
        """How many of their bans hold no longer."""
        return sum(1 for ban in self.bans if not ban.active_at(self.now))


def standings(user_ids: Iterable[int]) -> dict[int, Standing]:
    """The standing of each of these members, by user id."""
    ids = sorted({int(user_id) for user_id in user_ids})
    if not ids:
        return {}
    facts = get_host().member_facts(ids)
    history = histories(user_ids=ids)
    now = datetime.now(timezone.utc)
    return {user_id: Standing(user_id=user_id, facts=facts.get(user_id), bans=history.get(user_id, []), now=now)
            for user_id in ids}


def standing(user_id: int) -> Standing:
    """One member's standing (their history page)."""
    return standings([user_id])[int(user_id)]
