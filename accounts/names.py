"""The name an account goes by: its reader's name (the comments app signs a member's
comments with it, accounts.commenting) and its display name (the header's link,
allauth's "signed in as …")."""

from __future__ import annotations

from django.core.exceptions import ObjectDoesNotExist


def reader_name(user) -> str:
    """The display name of a reader's account ("" for an account without a Profile:
    editors made with createsuperuser)."""
    try:
        return user.account_profile.display_name
    except ObjectDoesNotExist:
        return ""


def display_name(user) -> str:
    """Its reader's name, else its author profile's name, else its username.
    settings.ACCOUNT_USER_DISPLAY."""
    if name := reader_name(user):
        return name
    try:
        author_name = user.profile.display_name
    except ObjectDoesNotExist:
        author_name = ""
    return author_name or user.get_username()
