"""Authors: Django users with a public profile, and the summary posts embed."""

from django.contrib.auth import get_user_model

from cms.models import AuthorProfile
from cms.posts import AuthorSummary


def summary_for(user) -> AuthorSummary:
    """The fields a post embeds about its author."""
    profile = AuthorProfile.objects.filter(user=user).first()
    return AuthorSummary(
        id=user.pk,
        username=user.get_username(),
        name=(profile.display_name if profile else "") or user.get_full_name() or user.get_username(),
        picture=profile.avatar_url if profile else "",
    )


def create_author(*, username: str, display_name: str, bio: str = "", avatar_url: str = "",
                  is_staff: bool = True, password: str | None = None):
    """A user with a public profile (staff by default: authors use the dashboard)."""
    user = get_user_model().objects.create_user(username=username, password=password, is_staff=is_staff)
    AuthorProfile.objects.create(user=user, display_name=display_name, bio=bio, avatar_url=avatar_url)
    return user
