"""allauth's forms in the site's words: every field labelled as the site says it (no
placeholder standing in for a label), and the sign-up form asks for the display name
the account comments under. settings.ACCOUNT_FORMS names them."""

from __future__ import annotations

import unicodedata

from allauth.account import forms as allauth_forms
from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from accounts.models import DISPLAY_NAME_MAX_LENGTH, Profile

# Unicode categories a display name may not hold: control, surrogate, private use, unassigned.
_REFUSED_CATEGORIES = {"Cc", "Cs", "Co", "Cn"}
BAD_DISPLAY_NAME = _("A display name needs a letter or a digit, and no control characters.")

# Texts of Django's password rules and of allauth that these forms show, marked here so
# that the site's catalogs (read before Django's and allauth's own) translate them:
# Django's Hindi catalog lacks the password rules, its Vietnamese one the "too short"
# error as Django 5.2 spells it, and allauth ships no Vietnamese or Hindi at all.
BORROWED_TEXTS = (
    _("Your password can’t be too similar to your other personal information."),
    ngettext_lazy("Your password must contain at least %(min_length)d character.",
                  "Your password must contain at least %(min_length)d characters.", "min_length"),
    _("Your password can’t be a commonly used password."),
    _("Your password can’t be entirely numeric."),
    ngettext_lazy("This password is too short. It must contain at least %d character.",
                  "This password is too short. It must contain at least %d characters.", "min_length"),
    _("This password is too common."),
    _("This password is entirely numeric."),
    _("The password is too similar to the %(verbose_name)s."),
    _("You must type the same password each time."),
)

LABELS = {
    "login": _("E-mail address or username"),
    "email": _("E-mail address"),
    "password": _("Password"),
    "code": _("Code"),
}
NEW_PASSWORD_LABELS = {"password1": _("New password"), "password2": _("New password, again")}


class SiteLabels:
    """Relabels the fields named in `labels` and drops every placeholder."""

    labels: dict = LABELS

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, field in self.fields.items():
            if name in self.labels:
                field.label = self.labels[name]
            field.widget.attrs.pop("placeholder", None)


def clean_display_name(value: str) -> str:
    """`value` with runs of white space made one space; a ValidationError when it holds
    a character no name should (a control character, private use, unassigned) or no
    letter or digit at all (a name of joiners and marks would show as nothing)."""
    categories = [unicodedata.category(char) for char in value if char not in "\t\n\r "]
    if any(c in _REFUSED_CATEGORIES for c in categories) or not any(c[0] in "LN" for c in categories):
        raise forms.ValidationError(BAD_DISPLAY_NAME, code="display_name")
    return " ".join(value.split())


class LoginForm(SiteLabels, allauth_forms.LoginForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Editors type a username, readers an address: a password manager's "username".
        self.fields["login"].widget.attrs["autocomplete"] = "username"


class SignupForm(SiteLabels, allauth_forms.SignupForm):
    labels = {**LABELS, "password1": _("Password")}
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


class RequestLoginCodeForm(SiteLabels, allauth_forms.RequestLoginCodeForm):
    pass


class ConfirmLoginCodeForm(SiteLabels, allauth_forms.ConfirmLoginCodeForm):
    pass


class ConfirmEmailVerificationCodeForm(SiteLabels, allauth_forms.ConfirmEmailVerificationCodeForm):
    pass


class ResetPasswordForm(SiteLabels, allauth_forms.ResetPasswordForm):
    pass


class ConfirmPasswordResetCodeForm(SiteLabels, allauth_forms.ConfirmPasswordResetCodeForm):
    pass


class ResetPasswordKeyForm(SiteLabels, allauth_forms.ResetPasswordKeyForm):
    labels = {**LABELS, **NEW_PASSWORD_LABELS}


WRONG_PASSWORD = _("That is not your password. Nothing was erased.")
WRONG_CODE = _("That code is not the one we mailed you. Nothing was erased.")
NO_CODE = _("No code is waiting for this account, or it ran out. Ask for a new one. Nothing was erased.")


class DeleteAccountForm(forms.Form):
    """What closing an account asks first: the account's password, or (an account
    without a usable one) the code mailed to its address (accounts/closing.py checks it)."""

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        if user.has_usable_password():
            self.fields["password"] = forms.CharField(label=LABELS["password"], strip=False,
                                                      widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}))
        else:
            self.fields["code"] = forms.CharField(label=LABELS["code"], max_length=20,
                                                  widget=forms.TextInput(attrs={"autocomplete": "one-time-code"}))

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(WRONG_PASSWORD, code="wrong_password")
        return password
