from django.conf import settings
from django.db import models


class AuthorProfile(models.Model):
    """An author's public profile. Posts and comments embed a summary of it."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    display_name = models.CharField(max_length=100)
    bio = models.TextField(blank=True, max_length=2000)
    avatar_url = models.URLField(blank=True)
    old_usernames = models.JSONField(default=list, blank=True)

    def __str__(self):
        return self.display_name
