"""The name an account goes by (the header's link, allauth's "signed in as …")."""

from __future__ import annotations

from django.core.exceptions import ObjectDoesNotExist


def display_name(user) -> str:
    """Its display name (a reader's Profile, else an author's profile), else its
    username. settings.ACCOUNT_USER_DISPLAY."""
    for related in ("account_profile", "profile"):
        try:
            profile = getattr(user, related)
        except ObjectDoesNotExist:
            continue
        if profile.display_name:
            return profile.display_name
    return user.get_username()
