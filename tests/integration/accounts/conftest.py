"""What the accounts tests share: a fast password hasher (they check many passwords)
and a builder of readers' accounts."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fast_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def make_verified_reader(db):
    """Builder: a reader's account with a verified address and a display name, as
    signing up and verifying leaves it."""
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    from accounts.models import Profile

    def build(address: str, *, password: str = "a long enough passphrase 7", name: str = "Ada"):
        user = get_user_model().objects.create_user(username=address.split("@")[0], email=address,
                                                     password=password)
        EmailAddress.objects.create(user=user, email=address, verified=True, primary=True)
        Profile.objects.create(user=user, display_name=name)
        return user

    return build
