"""django-allauth's settings (readers' accounts: accounts/, docs/accounts.md), part of
slugline/settings.py, which imports them all; from the environment where noted."""

from typing import Any as _Any

import environ as _environ

from slugline import oidc_providers as _oidc_providers

_env = _environ.Env()  # settings.py has read .env already

# Readers' accounts (django-allauth; accounts/, docs/accounts.md). Readers sign up with an
# address, a display name and a password, and verify the address with a mailed code
# before the account counts; they log in with a password or a mailed code. Editors log
# in on the same page with their username (or address), throttled by Axes (settings.py).
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_FORMS = {
    "login": "accounts.forms.LoginForm",
    "signup": "accounts.forms.SignupForm",
    "request_login_code": "accounts.forms.RequestLoginCodeForm",
    "confirm_login_code": "accounts.forms.ConfirmLoginCodeForm",
    "confirm_email_verification_code": "accounts.forms.ConfirmEmailVerificationCodeForm",
    "reset_password": "accounts.forms.ResetPasswordForm",
    "confirm_password_reset_code": "accounts.forms.ConfirmPasswordResetCodeForm",
    "reset_password_from_key": "accounts.forms.ResetPasswordKeyForm",
}
ACCOUNT_USER_DISPLAY = "accounts.names.display_name"
# Signed in until they sign out (SESSION_COOKIE_AGE), as editors always were: no "remember me".
ACCOUNT_SESSION_REMEMBER = True
ACCOUNT_LOGIN_METHODS = {"email", "username"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*"]
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_EMAIL_VERIFICATION_BY_CODE_ENABLED = True
ACCOUNT_LOGIN_BY_CODE_ENABLED = True
ACCOUNT_PASSWORD_RESET_BY_CODE_ENABLED = True
# Every mailed code (verification, log-in, password reset) works once, for this long.
ACCOUNT_CODE_MINUTES = _env.int("ACCOUNT_CODE_MINUTES", default=10)
ACCOUNT_EMAIL_VERIFICATION_BY_CODE_TIMEOUT = ACCOUNT_CODE_MINUTES * 60
ACCOUNT_LOGIN_BY_CODE_TIMEOUT = ACCOUNT_CODE_MINUTES * 60
ACCOUNT_PASSWORD_RESET_BY_CODE_TIMEOUT = ACCOUNT_CODE_MINUTES * 60
ACCOUNT_LOGIN_BY_CODE_MAX_ATTEMPTS = 3
ACCOUNT_EMAIL_VERIFICATION_BY_CODE_MAX_ATTEMPTS = 3
ACCOUNT_PASSWORD_RESET_BY_CODE_MAX_ATTEMPTS = 3
# Known and unknown addresses get the same answers (a known one is told by mail).
ACCOUNT_PREVENT_ENUMERATION = True
ACCOUNT_EMAIL_SUBJECT_PREFIX = _env.str("ACCOUNT_EMAIL_SUBJECT_PREFIX", default="[Slugline] ")
# allauth's limits, per client ("ip") and per address ("key"), kept in the shared cache
# above. Failed passwords are Axes's alone (per username and address, in the database):
# allauth's own "login_failed" limit is off, or strangers could lock an editor out.
ACCOUNT_RATE_LIMITS = {
    "signup": "10/m/ip,50/d/ip",
    "login": "30/m/ip",
    "login_failed": "",
    "request_login_code": "10/m/ip,3/5m/key,10/d/key",
    "reset_password": "10/m/ip,3/5m/key,10/d/key",
    "reset_password_from_key": "20/m/ip",
    "confirm_email": "1/10s/key,10/d/key",
    "change_password": "5/m/user",
    "manage_email": "10/m/user",
    "reauthenticate": "10/m/user",
}
# Passkeys through allauth's MFA app (sign-in with a passkey; added from the account page).
MFA_SUPPORTED_TYPES = ["webauthn"]
MFA_PASSKEY_LOGIN_ENABLED = True
# Signing up with a passkey instead of a password (the address is verified by a mailed
# code first). A passkey's relying party is the host the reader sees: WebAuthn needs
# https, or http://localhost in development (not http://127.0.0.1); the origin is
# always checked (MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN stays off).
MFA_PASSKEY_SIGNUP_ENABLED = True
# A passkey is a way to sign in, not a second step after a password or a code.
MFA_ADAPTER = "accounts.passkeys.MFAAdapter"
# OpenID Connect providers from AUTH_OIDC_PROVIDERS (slugline/oidc_providers.py,
# docs/accounts.md): each is a button on the sign-in and sign-up pages. PKCE on every
# sign-in. A provider's address signs in to the account that has it only when the
# provider says it is verified (then the provider is connected to that account; an
# editor's account never, accounts.social); an unverified one never takes an account
# over. Each call to a provider waits at most AUTH_OIDC_TIMEOUT_SECONDS; a provider
# that is down, slow or answers garbage gives a page saying so (accounts.social).
SOCIALACCOUNT_PROVIDERS: dict[str, _Any] = {
    "openid_connect": {"APPS": _oidc_providers.read_providers(_env), "OAUTH_PKCE_ENABLED": True},
}
SOCIALACCOUNT_ADAPTER = "accounts.social.SocialAccountAdapter"
SOCIALACCOUNT_EMAIL_AUTHENTICATION = True
SOCIALACCOUNT_EMAIL_AUTHENTICATION_AUTO_CONNECT = True
SOCIALACCOUNT_REQUESTS_TIMEOUT = _env.int("AUTH_OIDC_TIMEOUT_SECONDS", default=5)
