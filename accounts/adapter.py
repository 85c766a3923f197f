"""How django-allauth behaves on this site (settings.ACCOUNT_ADAPTER)."""

from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings
from django.shortcuts import resolve_url


class AccountAdapter(DefaultAccountAdapter):
    def get_login_redirect_url(self, request) -> str:
        """Where a log-in with no `next` lands: the dashboard for staff, else
        LOGIN_REDIRECT_URL (home). A safe `next`, the page a reader came from, goes
        first (allauth's views read it before asking here)."""
        user = request.user
        if user.is_authenticated and user.is_active and user.is_staff:
            return resolve_url("dashboard:posts")
        return resolve_url(settings.LOGIN_REDIRECT_URL)

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
