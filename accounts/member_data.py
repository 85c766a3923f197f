"""What a member's own pages (accounts/views.py) and their data download
(accounts/export.py) both read: the discussions their comments and subscriptions are
on, and the subscriptions of their verified addresses."""

from __future__ import annotations

from collections.abc import Iterable

from allauth.account.models import EmailAddress
from bson import ObjectId

from comments import api as comments_api


def discussions(ids: Iterable[ObjectId]) -> dict[ObjectId, comments_api.Discussion]:
    """The discussions with these ids, by id, in one query; those gone are left out."""
    return {d.id: d for d in comments_api.get_host().get_many(list(set(ids)))}


def verified_subscriptions(user) -> list[tuple[str, list[comments_api.Subscription]]]:
    """Each of the member's verified addresses, by address, with its active
    notification subscriptions."""
    return [(address.email, comments_api.address_subscriptions(email=address.email))
            for address in EmailAddress.objects.filter(user=user, verified=True).order_by("email")]
