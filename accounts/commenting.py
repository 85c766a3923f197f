"""What the comments app learns about a reader's account (through the blog's host,
cms/comments_host.py): the name their comments are signed with, the address their
reply mail and follows go to, and the names strangers may not take."""

from __future__ import annotations

from allauth.account.models import EmailAddress
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


def display_names() -> list[str]:
    """Every reader's display name (the comments app caches what it builds from them)."""
    return list(Profile.objects.values_list("display_name", flat=True))


def forget_names(**kwargs) -> None:
    """A display name made, changed or gone: the comment form's check sees it at once."""
    comments_api.forget_reserved_names()


def connect() -> None:
    for signal in (post_save, post_delete):
        signal.connect(forget_names, sender=Profile, dispatch_uid=f"accounts.forget_names.{id(signal)}")
