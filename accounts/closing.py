"""Closing a member's account (/accounts/delete/, accounts/deletion.py): the code mailed
to an account without a usable password to confirm it, and the closing itself. The
account becomes a nameless, inactive row at once; the comments app's erasure of the
member's comments, votes and subscriptions is recorded in the same step and runs in
bounded shares (comments.api.start_erasure, docs/accounts.md)."""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from allauth.socialaccount.models import SocialAccount
from allauth.usersessions.models import UserSession
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase
from django.db import transaction
from django.utils.crypto import constant_time_compare, salted_hmac

from accounts import avatars
from accounts.models import Profile
from api import tokens
from comments import api as comments_api

CODE_DIGITS = 6
# Wrong codes one mailed code survives; the next ends it.
CODE_TRIES = 3
SESSION_KEY = "account_delete_code"


def new_code() -> str:
    return "".join(secrets.choice("0123456789") for _ in range(CODE_DIGITS))


def _digest(code: str, user_id: int) -> str:
    return salted_hmac("accounts.closing.code", f"{user_id}:{code.strip()}").hexdigest()


@dataclass(frozen=True)
class CodeCheck:
    """What a code typed on the page is worth: `ok`, else why not (`missing`: no code
    mailed or it ran out, `wrong`), and the record to keep (None: none any more)."""

    ok: bool
    kept: dict | None
    reason: str = ""


def remember_code(code: str, *, user_id: int, now: datetime) -> dict:
    """What the session keeps of a mailed code: its digest, until when it works, tries."""
    expires = now + timedelta(minutes=settings.ACCOUNT_CODE_MINUTES)
    return {"digest": _digest(code, user_id), "expires": expires.timestamp(), "tries": 0}


def check_code(kept: dict | None, typed: str, *, user_id: int, now: datetime) -> CodeCheck:
    """Check a typed code against the one the session keeps (pure): it works once,
    until it expires, and CODE_TRIES wrong tries end it."""
    if not kept or now.timestamp() >= float(kept.get("expires", 0)):
        return CodeCheck(ok=False, kept=None, reason="missing")
    if constant_time_compare(kept["digest"], _digest(typed, user_id)):
        return CodeCheck(ok=True, kept=None)
    tries = int(kept.get("tries", 0)) + 1
    return CodeCheck(ok=False, kept={**kept, "tries": tries} if tries < CODE_TRIES else None, reason="wrong")


def verified_address(user) -> str | None:
    """Where a code may go: the account's verified primary address, else any verified one."""
    found = EmailAddress.objects.filter(user=user, verified=True).order_by("-primary", "email").first()
    return found.email if found else None


def _end_sessions(user) -> None:
    for session in UserSession.objects.filter(user=user):
        session.end()


def close_account(user, *, session: SessionBase) -> comments_api.Erasure:
    """Close the account at once and record the erasure of its data in the comments app:
    its picture (first), addresses, passkeys, providers, sessions (this one too), profile,
    API tokens and failed-login records go; the user row stays, inactive and nameless, so that its id
    is never given to anyone else. All or nothing: the erasure is recorded last, inside
    the transaction, so a failure leaves the account as it was."""
    emails = sorted({a.email for a in EmailAddress.objects.filter(user=user)} | ({user.email} if user.email else set()))
    # The picture goes first (its files are in MongoDB, outside the transaction): a
    # failure after it leaves the account open, without its picture.
    for profile in Profile.objects.filter(user=user).exclude(avatar_key=""):
        avatars.remove_picture(profile)
    names = [user.get_username(), *emails]
    with transaction.atomic():
        for model in (EmailAddress, Authenticator, SocialAccount, Profile):
            model.objects.filter(user=user).delete()
        for model in (AccessAttempt, AccessLog, AccessFailureLog):
            model.objects.filter(username__in=names).delete()
        _end_sessions(user)
        user.username = f"erased-{uuid.uuid4().hex[:20]}"
        user.email = user.first_name = user.last_name = ""
        user.set_unusable_password()
        user.is_active = user.is_staff = user.is_superuser = False
        user.last_login = None
        user.save()
        user.groups.clear()
        user.user_permissions.clear()
        tokens.forget_user(user_id=user.pk)
        erasure = comments_api.start_erasure(user_id=user.pk, emails=emails)
    session.flush()
    return erasure


def now() -> datetime:
    return datetime.now(UTC)
