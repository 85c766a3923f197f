"""The dashboard's forms for people: an author's own profile, and an editor's view of
an author (with a rename). They own validation; every error has a code, and the
messages tests check are the constants below."""

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.validators import URLValidator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from cms.authors import USERNAME_TAKEN
from dashboard.form_limits import too_long

DISPLAY_NAME_REQUIRED = _("Give the name readers will see.")
BAD_AVATAR_URL = _("Give the picture's address as a full http:// or https:// URL.")


class ProfileForm(forms.Form):
    """An author's public profile: what readers see on posts and the author page."""

    display_name = forms.CharField(
        label=_("Display name"),
        max_length=100, error_messages={"required": DISPLAY_NAME_REQUIRED, **too_long()}
    )
    bio = forms.CharField(
        label=_("Bio"), required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 5}), error_messages=too_long()
    )
    avatar_url = forms.URLField(
        required=False,
        max_length=200,
        label=_("Picture URL"),
        assume_scheme="https",
        validators=[URLValidator(schemes=["http", "https"], message=BAD_AVATAR_URL, code="bad_url")],
        error_messages={"invalid": BAD_AVATAR_URL, **too_long()},
    )


class AuthorForm(ProfileForm):
    """An editor's view of an author: the profile, and the username (a rename)."""

    username = forms.CharField(
        label=_("Username"),
        max_length=150,
        validators=[UnicodeUsernameValidator()],
        error_messages=too_long(),
        help_text=_("Letters, digits and @ . + - _ only. The old author address will redirect here."),
    )
    field_order = ["username", "display_name", "bio", "avatar_url"]

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_username(self) -> str:
        username = self.cleaned_data["username"]
        if get_user_model().objects.filter(username=username).exclude(pk=self.user.pk).exists():
            raise forms.ValidationError(gettext(USERNAME_TAKEN), code="username_taken")
        return username

