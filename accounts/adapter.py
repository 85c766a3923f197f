"""How django-allauth behaves on this site (settings.ACCOUNT_ADAPTER)."""

from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings
from django.shortcuts import resolve_url
from django.utils.translation import gettext_lazy as _

from infra.clients import client_ip


class AccountAdapter(DefaultAccountAdapter):
    # The refusals a reader can meet on the sign-up and sign-in pages, in the site's
    # words (and catalogs); allauth's own for the rest.
    error_messages = {
        **DefaultAccountAdapter.error_messages,
        "account_inactive": _("This account is closed: it cannot sign in."),
        "email_password_mismatch": _("That e-mail address and password do not match an account."),
        "username_password_mismatch": _("That username and password do not match an account."),
        "email_taken": _("An account has this e-mail address already."),
        "incorrect_code": _("That code is not the one we mailed."),
        "invalid_login": _("Give the e-mail address or username of your account."),
        "invalid_password_reset": _("This password reset was used already or has expired."),
        "too_many_login_attempts": _("Too many tries for this account. Wait a few minutes, then try again."),
        "unknown_email": _("No account has this e-mail address."),
        "unverified_primary_email": _("Your main address must be a verified one."),
        "rate_limited": _("Too many tries from here in a short time. Wait a few minutes, then try again."),
    }

    def get_login_redirect_url(self, request) -> str:
        """Where a log-in with no `next` lands: the dashboard for staff, else
        LOGIN_REDIRECT_URL (home). A safe `next`, the page a reader came from, goes
        first (allauth's views read it before asking here)."""
        user = request.user
        if user.is_authenticated and user.is_active and user.is_staff:
            return resolve_url("dashboard:posts")
        return resolve_url(settings.LOGIN_REDIRECT_URL)

    def get_client_ip(self, request) -> str:
        """The address allauth's limits count per client: the site's one rule
        (infra.clients: REMOTE_ADDR, or behind our proxy the address it appended), as
        Axes and the comment limits count."""
        return client_ip(request) or super().get_client_ip(request)

    def get_login_stages(self) -> list[str]:
        """allauth's stages, with e-mail verification waived for staff (accounts.stages)."""
        return [
            "accounts.stages.EmailVerificationStage" if path == "allauth.account.stages.EmailVerificationStage"
            else path
            for path in super().get_login_stages()
        ]

    def save_user(self, request, user, form, commit=True):
        """A new account is a reader's: whatever a form sent, never staff and never a
        superuser (groups and permissions are only ever given in the admin)."""
        user.is_staff = False
        user.is_superuser = False
        return super().save_user(request, user, form, commit=commit)
