"""The sign-up form: allauth's, with the display name the account comments under."""

from __future__ import annotations

import unicodedata

from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import DISPLAY_NAME_MAX_LENGTH, Profile

# Unicode categories a display name may not hold: control, surrogate, private use, unassigned.
_REFUSED_CATEGORIES = {"Cc", "Cs", "Co", "Cn"}
BAD_DISPLAY_NAME = _("A display name needs a letter or a digit, and no control characters.")


def clean_display_name(value: str) -> str:
    """`value` with runs of white space made one space; a ValidationError when it holds
    a character no name should (a control character, private use, unassigned) or no
    letter or digit at all (a name of joiners and marks would show as nothing)."""
    categories = [unicodedata.category(char) for char in value if char not in "\t\n\r "]
    if any(c in _REFUSED_CATEGORIES for c in categories) or not any(c[0] in "LN" for c in categories):
        raise forms.ValidationError(BAD_DISPLAY_NAME, code="display_name")
    return " ".join(value.split())


class SignupForm(AllauthSignupForm):
    display_name = forms.CharField(
        label=_("Display name"), max_length=DISPLAY_NAME_MAX_LENGTH,
        help_text=_("Shown with your comments."),
        widget=forms.TextInput(attrs={"autocomplete": "nickname"}),
    )

    field_order = ["email", "display_name", "password1"]

    def clean_display_name(self) -> str:
        return clean_display_name(self.cleaned_data["display_name"])

    def custom_signup(self, request, user) -> None:
        super().custom_signup(request, user)
        Profile.objects.create(user=user, display_name=self.cleaned_data["display_name"])
