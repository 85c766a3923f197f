"""The `confirmed_addresses` collection: the e-mail addresses whose owners followed a
confirmation link, `{_id: <address>, confirmed: <when>}`. The only module that
touches it: the subscription pages record a confirmation (comments/notifications/),
and posting trusts a confirmed address that the browser proves it owns
(comments/posting/antispam.py). Addresses are normalised (comments/addresses.py)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from comments import addresses
from infra.mongo import get_db


def confirm(*, email: str, now: datetime | None = None) -> None:
    """Record that the owner of `email` followed its confirmation link (idempotent)."""
    get_db().confirmed_addresses.update_one(
        {"_id": addresses.normalise(email)}, {"$setOnInsert": {"confirmed": now or datetime.now(UTC)}},
        upsert=True,
    )


def is_confirmed(email: str) -> bool:
    if not email:
        return False
    return get_db().confirmed_addresses.find_one({"_id": addresses.normalise(email)}, {"_id": 1}) is not None


def forget(*, emails: Iterable[str]) -> int:
    """Forget that these addresses were confirmed (an erased account's); how many."""
    wanted = [addresses.normalise(email) for email in emails]
    return get_db().confirmed_addresses.delete_many({"_id": {"$in": wanted}}).deleted_count
