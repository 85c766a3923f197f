"""Readers' accounts end to end through Django's test client and a real SMTP server on
loopback (tests/smtp.py): sign up, get the verification code by mail, verify, sign out,
sign in with a mailed code, reset the password by mail. Codes work once and for
ACCOUNT_CODE_MINUTES only; known and unknown addresses get the same answers."""

from __future__ import annotations

import re
import time

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import Profile
from tests import smtp
from tests.smtp import text_of

smtp_server = smtp.smtp_server  # the fixture

pytestmark = pytest.mark.django_db

PASSWORD = "a long enough passphrase 7"
CODE_RE = re.compile(r"^ {4}(\S+)\r?$", re.MULTILINE)


def code_in(message) -> str:
    """The code a mail gives, on its own indented line."""
    found = CODE_RE.findall(text_of(message))
    assert len(found) == 1, text_of(message)
    return found[0]


def last_mail(server, address: str):
    mails = server.inbox.to(address)
    assert mails, [m["To"] for m in server.inbox.messages]
    return mails[-1]


def signed_in(client: Client):
    return get_user_model().objects.filter(pk=client.session.get("_auth_user_id")).first()


def sign_up(client: Client, address: str, name: str = "Rosa Parks", **extra):
    return client.post("/accounts/signup/", {"email": address, "display_name": name,
                                              "password1": PASSWORD, **extra})


def test_a_reader_signs_up_verifies_by_code_signs_out_and_back_in_with_a_mailed_code(smtp_server):
    client = Client()
    response = sign_up(client, "rosa@example.org", name="  Rosa   Parks ")
    assert response.status_code == 302 and response["Location"] == "/accounts/confirm-email/"
    user = get_user_model().objects.get(email="rosa@example.org")
    # Not verified, not signed in, until the code comes back.
    assert not EmailAddress.objects.get(user=user).verified and signed_in(client) is None
    mail = last_mail(smtp_server, "rosa@example.org")
    assert mail["Subject"] == "[Slugline] Your code to verify your e-mail address"
    assert '"Rosa Parks"' in text_of(mail) and "10 minutes" in text_of(mail)

    page = client.get("/accounts/confirm-email/")
    assert page.status_code == 200 and "rosa@example.org" in page.content.decode()
    wrong = client.post("/accounts/confirm-email/", {"code": "NOT-IT"})
    assert wrong.status_code == 200 and "That code is not the one we mailed." in wrong.content.decode()
    response = client.post("/accounts/confirm-email/", {"code": code_in(mail)})
    assert response.status_code == 302 and response["Location"] == "/"
    assert EmailAddress.objects.get(user=user).verified and signed_in(client) == user
    assert Profile.objects.get(user=user).display_name == "Rosa Parks"
    assert "Rosa Parks" in client.get("/").content.decode()

    assert client.post("/accounts/logout/").status_code == 302 and signed_in(client) is None
    smtp_server.inbox.clear()
    response = client.post("/accounts/login/code/", {"email": "rosa@example.org"})
    assert response.status_code == 302 and response["Location"] == "/accounts/login/code/confirm/"
    mail = last_mail(smtp_server, "rosa@example.org")
    assert mail["Subject"] == "[Slugline] Your sign-in code"
    code = code_in(mail)
    response = client.post("/accounts/login/code/confirm/", {"code": code})
    assert response.status_code == 302 and response["Location"] == "/" and signed_in(client) == user

    # Once only: signed out again, the same code signs nobody in.
    client.post("/accounts/logout/")
    again = client.post("/accounts/login/code/confirm/", {"code": code})
    assert again.status_code == 302 and again["Location"].startswith("/accounts/login/code/")
    assert signed_in(client) is None


def test_a_sign_in_code_works_for_minutes_then_no_more(smtp_server, settings, make_verified_reader):
    make_verified_reader("ada@example.org")
    settings.ACCOUNT_LOGIN_BY_CODE_TIMEOUT = 1
    client = Client()
    client.post("/accounts/login/code/", {"email": "ada@example.org"})
    code = code_in(last_mail(smtp_server, "ada@example.org"))
    time.sleep(1.5)
    late = client.post("/accounts/login/code/confirm/", {"code": code})
    assert signed_in(client) is None
    assert late.status_code == 302 and late["Location"].startswith("/accounts/login/code/")


def test_three_wrong_codes_end_the_attempt(smtp_server, make_verified_reader):
    make_verified_reader("ada@example.org")
    client = Client()
    client.post("/accounts/login/code/", {"email": "ada@example.org"})
    code = code_in(last_mail(smtp_server, "ada@example.org"))
    for _ in range(3):
        client.post("/accounts/login/code/confirm/", {"code": "WRONG"})
    client.post("/accounts/login/code/confirm/", {"code": code})
    assert signed_in(client) is None


def test_the_password_is_reset_with_a_mailed_code(smtp_server, make_verified_reader):
    user = make_verified_reader("ada@example.org")
    client = Client()
    response = client.post("/accounts/password/reset/", {"email": "ada@example.org"})
    assert response.status_code == 302 and response["Location"] == "/accounts/password/reset/confirm/"
    mail = last_mail(smtp_server, "ada@example.org")
    assert mail["Subject"] == "[Slugline] Your password reset code"
    response = client.post("/accounts/password/reset/confirm/", {"code": code_in(mail)})
    assert response.status_code == 302 and response["Location"] == "/accounts/password/reset/complete/"
    new = "another long passphrase 9"
    response = client.post("/accounts/password/reset/complete/", {"password1": new, "password2": new})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password(new)
    fresh = Client()
    assert fresh.post("/accounts/login/", {"login": "ada@example.org", "password": new}).status_code == 302
    assert signed_in(fresh) == user


def test_known_and_unknown_addresses_get_the_same_answers(smtp_server, make_verified_reader):
    """No enumeration: asking for a code, a password reset or an account with an address
    answers the same whether an account has it; only the mailbox learns which."""
    make_verified_reader("ada@example.org")
    for path, field in (("/accounts/login/code/", "email"), ("/accounts/password/reset/", "email")):
        known = Client().post(path, {field: "ada@example.org"})
        unknown = Client().post(path, {field: "nobody@example.org"})
        assert (known.status_code, known.get("Location")) == (unknown.status_code, unknown.get("Location"))
    assert {m["Subject"] for m in smtp_server.inbox.to("nobody@example.org")} == {
        "[Slugline] No account has this address"}
    again, fresh = sign_up(Client(), "ada@example.org"), sign_up(Client(), "new@example.org")
    assert (again.status_code, again["Location"]) == (fresh.status_code, fresh["Location"])
    assert last_mail(smtp_server, "ada@example.org")["Subject"] == "[Slugline] You have an account already"
    assert get_user_model().objects.filter(email="ada@example.org").count() == 1


def test_mail_is_written_in_the_readers_language(smtp_server):
    sign_up(Client(HTTP_ACCEPT_LANGUAGE="vi"), "an@example.org", name="Nguyễn Thu Hà")
    mail = last_mail(smtp_server, "an@example.org")
    assert " ".join(mail["Subject"].split()) == "[Slugline] Mã xác minh địa chỉ e-mail của bạn"
    assert "Nguyễn Thu Hà" in text_of(mail)
