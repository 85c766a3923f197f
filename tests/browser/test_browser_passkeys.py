"""Passkeys (django-allauth's MFA app, WebAuthn) in headless Chromium with its virtual
authenticator (CDP's WebAuthn domain): a reader adds a passkey from their account pages,
signs out, and signs in with the passkey alone; a new reader signs up with a passkey
(the mailed code, then the passkey) and signs in with it. allauth's scripts run under
the site's Content-Security-Policy.

WebAuthn wants a secure context and a relying party that is a domain: the pages are
opened at http://localhost (a secure context for Chromium; 127.0.0.1 is not a valid
relying party id). The site is a gunicorn of this module's own, whose mail goes to a
test SMTP server here (the codes)."""

from __future__ import annotations

import re
import shutil
import uuid

import pytest
from playwright.sync_api import expect

from tests.smtp import SMTPServer, text_of

PASSWORD = "passkey-tests-only-9Wz!"
CODE_RE = re.compile(r"^ {4}(\S+)\r?$", re.MULTILINE)


@pytest.fixture(scope="module")
def passkey_site(chromium, site_template):
    """(site, SMTP server): Slugline on a free loopback port, mailing through the server."""
    smtp = SMTPServer()
    smtp.start()
    site = site_template.site(workers=2)
    try:
        site.start(EMAIL_URL=smtp.url)
        yield site, smtp
    finally:
        site.stop()
        smtp.stop()
        shutil.rmtree(site.workdir, ignore_errors=True)


@pytest.fixture
def reader(passkey_site, new_reader):
    """A reader with a verified address and a password, in the site's database."""
    site, _ = passkey_site
    who = {"email": f"pia-{uuid.uuid4().hex[:8]}@example.org", "name": "Pia Passkey", "password": PASSWORD}
    new_reader(site, **who)
    return who


@pytest.fixture
def localhost_page(browser, passkey_site):
    """A page at http://localhost:<port> under the site's CSP, with a virtual
    authenticator that holds passkeys and verifies its user; `page.errors` collects
    script errors, what the CSP refused and any 5xx answer."""
    site, _ = passkey_site
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


def sign_out_and_in_with_the_passkey(page, name: str) -> None:
    """Sign out, then sign in with nothing but the passkey; the header names the reader."""
    header = page.locator(".site-header")
    header.get_by_role("button", name="Sign out").click()
    expect(header.get_by_role("link", name="Sign in")).to_be_visible()
    page.goto("/accounts/login/")
    page.get_by_role("button", name="Sign in with a passkey").click()
    expect(header.locator(".account-link")).to_have_text(name)


def test_a_reader_adds_a_passkey_and_signs_in_with_it_alone(localhost_page, reader):
    page = localhost_page
    page.goto("/accounts/login/")
    page.locator("input[name=login]").fill(reader["email"])
    page.locator("input[name=password]").fill(reader["password"])
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.locator(".site-header .account-link")).to_have_text(reader["name"])

    page.goto("/accounts/2fa/")
    page.get_by_role("link", name="Add a passkey").click()
    # Adding a key asks for the password again (allauth's reauthentication).
    expect(page).to_have_url(re.compile(r"/accounts/reauthenticate/"))
    page.locator("input[name=password]").fill(reader["password"])
    page.locator("main form button[type=submit]").first.click()
    page.wait_for_url("**/accounts/2fa/webauthn/add/")
    expect(page.locator(".site-header")).to_be_visible()
    page.locator("input[name=name]").fill("Laptop")
    page.get_by_role("button", name="Add the passkey").click()
    page.wait_for_url("**/accounts/2fa/")
    expect(page.locator("main")).to_contain_text("You have 1 passkey.")
    page.get_by_role("link", name="Manage your passkeys").click()
    expect(page.locator("main table")).to_contain_text("Laptop")
    assert [c["isResidentCredential"] for c in page.credentials()] == [True]

    sign_out_and_in_with_the_passkey(page, reader["name"])
    assert page.credentials()[0]["signCount"] >= 1
    assert not page.errors, page.errors


def test_a_new_reader_signs_up_with_a_passkey_and_signs_in_with_it(localhost_page, passkey_site):
    page, (_, smtp) = localhost_page, passkey_site
    address = f"noa-{uuid.uuid4().hex[:8]}@example.org"
    page.goto("/accounts/signup/")
    page.get_by_role("link", name="Sign up with a passkey instead").click()
    expect(page.locator("h1")).to_have_text("Sign up with a passkey")
    page.locator("input[name=email]").fill(address)
    page.locator("input[name=display_name]").fill("Noa Newcomer")
    page.get_by_role("button", name="Sign up", exact=True).click()

    expect(page.locator("input[name=code]")).to_be_visible()
    [mail] = smtp.inbox.to(address)
    [code] = CODE_RE.findall(text_of(mail))
    page.locator("input[name=code]").fill(code)
    page.get_by_role("button", name="Confirm").click()

    expect(page.locator("h1")).to_have_text("Make your passkey")
    page.get_by_role("button", name="Make the passkey").click()
    expect(page.locator(".site-header .account-link")).to_have_text("Noa Newcomer")
    assert len(page.credentials()) == 1

    sign_out_and_in_with_the_passkey(page, "Noa Newcomer")
    assert not page.errors, page.errors


def test_the_passkey_pages_pass_axe(browser, passkey_site, reader, axe):
    """Signing up with a passkey, the account's passkeys and adding one: no serious or
    critical axe violation (axe is injected, so the CSP is bypassed)."""
    site, _ = passkey_site
    context = browser.new_context(base_url=f"http://localhost:{site.port}", bypass_csp=True)
    try:
        page = context.new_page()
        page.goto("/accounts/signup/passkey/")
        violations, described = axe(page)
        assert not violations, described
        page.goto("/accounts/login/")
        page.locator("input[name=login]").fill(reader["email"])
        page.locator("input[name=password]").fill(reader["password"])
        page.get_by_role("button", name="Sign in", exact=True).click()
        expect(page.locator(".site-header .account-link")).to_be_visible()
        page.goto("/accounts/2fa/webauthn/add/")
        page.locator("input[name=password]").fill(reader["password"])
        page.locator("main form button[type=submit]").first.click()
        page.wait_for_url("**/accounts/2fa/webauthn/add/")
        for path in ("/accounts/2fa/webauthn/add/", "/accounts/2fa/", "/accounts/2fa/webauthn/"):
            page.goto(path)
            violations, described = axe(page)
            assert not violations, f"{path}:\n{described}"
    finally:
        context.close()
