from django.conf import settings
from django.db import models

DISPLAY_NAME_MAX_LENGTH = 100


class Profile(models.Model):
    """What an account shows of itself: the name it signs its comments with, and
    whether its public profile page (/members/<id>/) is open to others (off until the
    member turns it on: a comment history is theirs to publish), and its picture. Made at sign-up
    (accounts.forms.SignupForm); one per account."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="account_profile")
    display_name = models.CharField(max_length=DISPLAY_NAME_MAX_LENGTH)
    created = models.DateTimeField(auto_now_add=True)
    public_profile = models.BooleanField(default=False)
    # The member's picture (media/avatars.py): its library key and the format of its
    # JPEG or PNG squares ("jpg", "png"); both empty without one (initials are drawn).
    avatar_key = models.CharField(max_length=32, blank=True, default="")
    avatar_format = models.CharField(max_length=4, blank=True, default="")

    def __str__(self):
        return self.display_name
