"""Passkeys (accounts/passkeys.py, allauth's MFA app): a way to sign in, not a second
step after a password or a code; adding one asks who the reader is again, by password
or, for an account without one, by a mailed code; the pages are in the site's layout.
Making and using passkeys in a browser: tests/browser/test_browser_passkeys.py."""

from __future__ import annotations

import re

from allauth.mfa.models import Authenticator
from django.core import mail
from django.urls import reverse

PASSWORD = "a long enough passphrase 7"


def with_passkey(user):
    """The account with a passkey on record (what the sign-in stages look at)."""
    Authenticator.objects.create(user=user, type=Authenticator.Type.WEBAUTHN,
                                 data={"name": "Laptop", "passwordless": True})
    return user


def test_a_password_sign_in_is_not_asked_for_the_passkey(client, make_verified_reader):
    reader = with_passkey(make_verified_reader("ada@example.org", password=PASSWORD))
    answer = client.post(reverse("account_login"), {"login": "ada@example.org", "password": PASSWORD})
    assert answer.status_code == 302 and answer["Location"] == "/"
    assert client.session["_auth_user_id"] == str(reader.pk)


def test_the_passkey_pages_are_in_the_site_layout_and_words(client, make_verified_reader):
    make_verified_reader("ada@example.org", password=PASSWORD)
    client.post(reverse("account_login"), {"login": "ada@example.org", "password": PASSWORD})
    page = client.get(reverse("mfa_index")).content.decode()
    assert 'class="site-header"' in page and "You have no passkey yet." in page
    assert "Two-Factor" not in page
    asked = client.get(reverse("mfa_add_webauthn"))
    assert asked.status_code == 302 and asked["Location"].startswith(reverse("account_reauthenticate"))
    client.post(asked["Location"], {"password": PASSWORD})
    page = client.get(reverse("mfa_add_webauthn")).content.decode()
    assert 'class="site-header"' in page and "Add a passkey" in page
    # The box allauth's script reads: always a passkey that signs in alone.
    assert 'name="passwordless" id="id_passwordless" checked hidden' in page
    assert "/static/mfa/js/webauthn" in page


def test_adding_a_passkey_to_an_account_without_password_asks_for_a_mailed_code(client, make_verified_reader):
    reader = make_verified_reader("ada@example.org")
    reader.set_unusable_password()
    reader.save()
    client.force_login(reader)
    asked = client.get(reverse("mfa_add_webauthn"))
    assert asked.status_code == 302
    assert asked["Location"].startswith(reverse("account_request_reauthentication_code"))
    page = client.get(asked["Location"]).content.decode()
    assert 'class="site-header"' in page
    sent = client.post(asked["Location"], {"recipient": "ada@example.org"})
    assert sent.status_code == 302 and [m.to for m in mail.outbox] == [["ada@example.org"]]
    code = re.findall(r"^ {4}(\S+)$", mail.outbox[0].body, re.MULTILINE)
    assert len(code) == 1, mail.outbox[0].body
    confirmed = client.post(sent["Location"], {"code": code[0]})
    assert confirmed.status_code == 302 and confirmed["Location"] == reverse("mfa_add_webauthn")
    assert "Add a passkey" in client.get(confirmed["Location"]).content.decode()
