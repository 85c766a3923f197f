"""Signing in with an OpenID Connect provider in a real browser: a Slugline site of its
own under gunicorn, with AUTH_OIDC_PROVIDERS naming django-allauth's own provider
(tests/oidc_provider/), itself a second process on loopback. The reader presses the
provider's button, signs in and consents at the provider, and comes back to Slugline
signed in, with an account whose address is the provider's verified one; every page is
under the site's Content-Security-Policy."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from playwright.sync_api import expect

from tests.oidc_provider.harness import OIDCProvider, ProviderClient, ProviderUser

PROVIDER_ID = "idp"
NAME = "Test identity"
ADA = ProviderUser("ada", "ada@example.org", verified=True, name="Ada Lovelace")


@pytest.fixture(scope="module")
def oidc_site(chromium, site_template):
    """(site, provider): Slugline with the provider configured, and the provider, each
    on a free loopback port; both stopped at the end."""
    site = site_template.site(workers=2)
    provider = OIDCProvider()
    client = ProviderClient(id="slugline-browser", secret="browser-client-secret",
                            redirect_uris=(f"{site.url}/accounts/oidc/{PROVIDER_ID}/login/callback/",))
    try:
        provider.prepare(users=[ADA], clients=[client])
        provider.start()
        site.start(AUTH_OIDC_PROVIDERS=json.dumps([{
            "id": PROVIDER_ID, "name": NAME, "server_url": provider.url,
            "client_id": client.id, "secret": client.secret,
        }]))
        yield site, provider
    finally:
        site.stop()
        provider.stop()
        shutil.rmtree(site.workdir, ignore_errors=True)
        provider.remove()


@pytest.fixture
def page_of(browser):
    contexts = []

    def open_page(site):
        context = browser.new_context(base_url=site.url, bypass_csp=False)
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        page.on("console", lambda m: page.errors.append(m.text)
                if "Content Security Policy" in m.text else None)
        page.on("response", lambda r: page.errors.append(f"{r.status} {r.url}") if r.status >= 500 else None)
        return page

    yield open_page
    for context in contexts:
        context.close()


def test_the_provider_is_a_button_on_the_sign_up_page(oidc_site, page_of):
    site, _ = oidc_site
    page = page_of(site)
    page.goto("/accounts/signup/")
    button = page.get_by_role("link", name=NAME)
    expect(button).to_have_attribute("href", re.compile(f"/accounts/oidc/{PROVIDER_ID}/login/"))


def test_a_reader_signs_in_at_the_provider_and_comes_back_signed_in(oidc_site, page_of):
    site, provider = oidc_site
    page = page_of(site)
    page.goto("/accounts/login/")
    page.get_by_role("link", name=NAME).click()
    # Slugline asks before leaving for the provider (a POST: no sign-in starts from a link).
    expect(page.locator(".site-header")).to_be_visible()
    page.locator("main form button[type=submit]").click()

    page.wait_for_url(re.compile(re.escape(provider.url) + "/accounts/login/"))
    page.locator("input[name=login]").fill(ADA.username)
    page.locator("input[name=password]").fill(ADA.password)
    page.locator("form button[type=submit]").click()
    page.wait_for_url(re.compile(re.escape(provider.url) + "/identity/o/authorize"))
    page.get_by_role("button", name="Authorize").click()

    page.wait_for_url(f"{site.url}/")
    expect(page.locator(".site-header .account-link")).to_have_text(ADA.name)
    page.goto("/accounts/email/")
    expect(page.locator("main")).to_contain_text(ADA.email)
    expect(page.locator("main")).to_contain_text(re.compile("verified", re.IGNORECASE))
    assert not page.errors, page.errors


def test_the_provider_pages_pass_axe(oidc_site, browser, axe):
    """The sign-in page with the provider's button and the page before leaving for it:
    no serious or critical axe violation (axe is injected, so the CSP is bypassed)."""
    site, _ = oidc_site
    context = browser.new_context(base_url=site.url, bypass_csp=True)
    try:
        page = context.new_page()
        for path in ("/accounts/login/", f"/accounts/oidc/{PROVIDER_ID}/login/"):
            page.goto(path)
            violations, described = axe(page)
            assert not violations, f"{path}:\n{described}"
    finally:
        context.close()
