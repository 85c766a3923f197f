"""What the accounts tests share: a fast password hasher (they check many passwords).
Readers' accounts are made by tests/database.py's make_verified_reader."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fast_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
