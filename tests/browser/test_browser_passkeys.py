"""Passkeys (django-allauth's MFA app, WebAuthn) in headless Chromium with its virtual
authenticator (CDP's WebAuthn domain): a reader adds a passkey from their account pages,
signs out, and signs in with the passkey alone; allauth's scripts run under the site's
Content-Security-Policy.

WebAuthn wants a secure context and a relying party that is a domain: the pages are
opened at http://localhost (a secure context for Chromium; 127.0.0.1 is not a valid
relying party id)."""

from __future__ import annotations

import re
import subprocess

import pytest
from playwright.sync_api import expect

from bench.harness import PYTHON, REPO

READER = {"username": "pia", "email": "pia@example.org", "name": "Pia Passkey",
          "password": "passkey-tests-only-9Wz!"}


@pytest.fixture
def reader(site):
    """A reader with a verified address and a password, in the site's database."""
    code = (
        "from allauth.account.models import EmailAddress\n"
        "from django.contrib.auth import get_user_model\n"
        "from accounts.models import Profile\n"
        f"u = get_user_model().objects.create_user(username={READER['username']!r}, email={READER['email']!r},"
        f" password={READER['password']!r})\n"
        f"EmailAddress.objects.create(user=u, email={READER['email']!r}, verified=True, primary=True)\n"
        f"Profile.objects.create(user=u, display_name={READER['name']!r})\n"
    )
    run = subprocess.run([PYTHON, "manage.py", "shell", "-c", code], cwd=REPO, env=site.env(),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    yield READER
    subprocess.run([PYTHON, "manage.py", "shell", "-c",
                    f"from django.contrib.auth import get_user_model; "
                    f"get_user_model().objects.filter(username={READER['username']!r}).delete()"],
                   cwd=REPO, env=site.env(), capture_output=True, timeout=120)


@pytest.fixture
def localhost_page(browser, site):
    """A page at http://localhost:<port> under the site's CSP, with a virtual
    authenticator that holds passkeys and verifies its user; `page.errors` collects
    script errors, what the CSP refused and any 5xx answer."""
    context = browser.new_context(base_url=f"http://localhost:{site.port}", bypass_csp=False)
    context.set_default_timeout(15_000)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    authenticator = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
        "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True,
    }})
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("console", lambda m: page.errors.append(m.text) if "Content Security Policy" in m.text else None)
    page.on("response", lambda r: page.errors.append(f"{r.status} {r.url}") if r.status >= 500 else None)
    page.credentials = lambda: cdp.send("WebAuthn.getCredentials",
                                         {"authenticatorId": authenticator["authenticatorId"]})["credentials"]
    yield page
    context.close()


def test_a_reader_adds_a_passkey_and_signs_in_with_it_alone(localhost_page, reader):
    page = localhost_page
    page.goto("/accounts/login/")
    page.locator("input[name=login]").fill(reader["email"])
    page.locator("input[name=password]").fill(reader["password"])
    page.get_by_role("button", name="Sign in", exact=True).click()
    account = page.locator(".site-header .account-link")
    expect(account).to_have_text(reader["name"])

    page.goto("/accounts/2fa/")
    expect(page.locator(".site-header")).to_be_visible()
    page.goto("/accounts/2fa/webauthn/add/")
    # Adding a key asks for the password again (allauth's reauthentication).
    expect(page).to_have_url(re.compile(r"/accounts/reauthenticate/"))
    page.locator("input[name=password]").fill(reader["password"])
    page.locator("main form button[type=submit]").first.click()
    page.wait_for_url("**/accounts/2fa/webauthn/add/")
    expect(page.locator(".site-header")).to_be_visible()
    page.locator("input[name=name]").fill("Laptop")
    page.locator("input[name=passwordless]").check()
    page.locator("#mfa_webauthn_add").click()
    page.wait_for_url("**/accounts/2fa/")
    page.goto("/accounts/2fa/webauthn/")
    expect(page.locator("main")).to_contain_text("Laptop")
    assert [c["isResidentCredential"] for c in page.credentials()] == [True]

    page.locator(".site-header").get_by_role("button", name="Sign out").click()
    expect(page.locator(".site-header").get_by_role("link", name="Sign in")).to_be_visible()

    page.goto("/accounts/login/")
    page.get_by_role("button", name="Sign in with a passkey").click()
    expect(account).to_have_text(reader["name"])
    assert page.credentials()[0]["signCount"] >= 1
    assert not page.errors, page.errors
