"""What the comments app learns about a reader's account (through the blog's host,
cms/comments_host.py): the name their comments are signed with, the address their
reply mail and follows go to, and the names strangers may not take."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.db.models.signals import post_delete, post_save

from accounts.models import Profile
from accounts.names import reader_name
from comments import api as comments_api

# The name a member's comments are signed with: their Profile's ("" without one).
display_name = reader_name


def member_address(user) -> tuple[str, bool]:
    """Where the account's mail goes, and whether it may comment as a member: its
    verified primary address (allauth's EmailAddress); nothing while its addresses
    await verification; `user.email` for an account with no address record at all,
    one made by the site's staff (the admin, createsuperuser), never by sign-up."""
    rows = list(EmailAddress.objects.filter(user=user).values_list("email", "primary", "verified"))
    if not rows:
        return str(user.email or ""), True
    verified = [email for email, primary, is_verified in rows if primary and is_verified]
    return (verified[0], True) if verified else ("", False)


def account_facts(user_ids: Iterable[int]) -> dict[int, tuple[datetime, bool]]:
    """For each of these accounts that exists: when it was made, and whether it may
    comment as a member (as `member_address` decides, and staff always), in two queries."""
    ids = sorted({int(user_id) for user_id in user_ids})
    if not ids:
        return {}
    users = get_user_model()._default_manager.filter(pk__in=ids).values_list("pk", "date_joined", "is_staff")
    addresses: dict[int, list[bool]] = {}
    for user_id, primary, verified in EmailAddress.objects.filter(user_id__in=ids).values_list(
            "user_id", "primary", "verified"):
        addresses.setdefault(user_id, []).append(primary and verified)
    return {pk: (joined, bool(staff) or pk not in addresses or any(addresses[pk]))
            for pk, joined, staff in users}


def display_names() -> list[str]:
    """Every reader's display name (the comments app caches what it builds from them)."""
    return list(Profile.objects.values_list("display_name", flat=True))


def forget_names(**kwargs) -> None:
    """A display name made, changed or gone: the comment form's check sees it at once."""
    comments_api.forget_reserved_names()


def connect() -> None:
    for signal in (post_save, post_delete):
        signal.connect(forget_names, sender=Profile, dispatch_uid=f"accounts.forget_names.{id(signal)}")
