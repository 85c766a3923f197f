"""Passkeys (django-allauth's MFA app, WebAuthn; settings.MFA_ADAPTER): on this site a
passkey is one more way to sign in, like a password or a mailed code, not a second step
after them."""

from __future__ import annotations

from allauth.mfa.adapter import DefaultMFAAdapter


class MFAAdapter(DefaultMFAAdapter):
    def is_mfa_enabled(self, user, types=None) -> bool:
        """Never: a reader's passkeys are not asked for after a password or a code (allauth
        would, and a reader who lost the device would be locked out: there are no
        recovery codes). Signing in with a passkey alone is allauth's passkey login;
        a sensitive change asks again for the password or a mailed code."""
        return False
