from django.conf import settings
from django.db import models

DISPLAY_NAME_MAX_LENGTH = 100


class Profile(models.Model):
    """What an account shows of itself: the name it signs its comments with, and
    whether its public profile page (/members/<id>/) is open to others (off until the
    member turns it on: a comment history is theirs to publish). Made at sign-up
    (accounts.forms.SignupForm); one per account."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="account_profile")
    display_name = models.CharField(max_length=DISPLAY_NAME_MAX_LENGTH)
    created = models.DateTimeField(auto_now_add=True)
    public_profile = models.BooleanField(default=False)

    def __str__(self):
        return self.display_name
