"""The log-in stages the site changes (AccountAdapter.get_login_stages)."""

from __future__ import annotations

from allauth.account.stages import EmailVerificationStage as AllauthEmailVerificationStage


class EmailVerificationStage(AllauthEmailVerificationStage):
    """allauth's mandatory verification, for readers only. Editors' accounts are made in
    the admin or with `createsuperuser`, often with no address at all; their log-in
    stays as it was (username and password, throttled by Axes). A reader's account
    never becomes staff by signing up (AccountAdapter.save_user)."""

    def handle(self):
        user = self.login.user
        if user is not None and user.is_active and user.is_staff:
            return None, True
        return super().handle()
