"""Signing in with an OpenID Connect provider, for real: django-allauth's own provider
(tests/oidc_provider/) runs as a process of its own on loopback; the reader signs in
and consents there (over HTTP, as a browser would) and comes back to Slugline through
Django's test client, which then calls the provider's token and user-info endpoints.

A provider's address signs in to the account that has it only when the provider says
it is verified, and never to an editor's (accounts/social.py)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

from accounts.models import Profile
from slugline.oidc_providers import openid_connect_apps
from tests.oidc_provider.harness import OIDCProvider, ProviderClient, ProviderUser, sign_in_at_provider

PROVIDER_ID = "idp"
NAME = "Test identity"
CLIENT = ProviderClient(
    id="slugline-tests", secret="client-secret-for-tests",
    redirect_uris=(f"http://testserver/accounts/oidc/{PROVIDER_ID}/login/callback/",),
)
ADA = ProviderUser("ada", "ada@example.org", verified=True, name="Ada Lovelace")
BRUNO = ProviderUser("bruno", "bruno@example.org", verified=True, name="Bruno Reader")
# Someone whose provider account claims an address it never proved.
MALLORY = ProviderUser("mallory", "chen@example.org", verified=False, name="Mallory")
# Someone whose provider account has an editor's address, verified there.
EVE = ProviderUser("eve", "edith@example.org", verified=True, name="Eve")
# Someone the provider knows no address for.
NEMO = ProviderUser("nemo", "", verified=False, name="Nemo")


@pytest.fixture(scope="module")
def provider():
    started = OIDCProvider()
    try:
        started.prepare(users=[ADA, BRUNO, MALLORY, EVE, NEMO], clients=[CLIENT])
        started.start()
        yield started
    finally:
        started.stop()
        started.remove()


@pytest.fixture(autouse=True)
def _configured(settings, provider, db):
    settings.SOCIALACCOUNT_PROVIDERS = {"openid_connect": {"APPS": openid_connect_apps([{
        "id": PROVIDER_ID, "name": NAME, "server_url": provider.url,
        "client_id": CLIENT.id, "secret": CLIENT.secret,
    }]), "OAUTH_PKCE_ENABLED": True}}


def sign_in_with_provider(client, user: ProviderUser, *, grant: bool = True):
    """The reader presses the provider's button on Slugline, confirms, signs in and
    consents at the provider, and comes back: Slugline's answer to the callback."""
    begun = client.post(reverse("openid_connect_login", kwargs={"provider_id": PROVIDER_ID}))
    assert begun.status_code == 302, begun.content.decode()[:2000]
    back = urlsplit(sign_in_at_provider(begun["Location"], user=user, grant=grant))
    assert back.netloc == "testserver", back
    return client.get(f"{back.path}?{back.query}")


def signed_in_as(client):
    user_id = client.session.get("_auth_user_id")
    return get_user_model().objects.get(pk=user_id) if user_id else None


def test_every_configured_provider_is_a_button_on_the_sign_in_and_sign_up_pages(client):
    for page in ("account_login", "account_signup"):
        html = client.get(reverse(page)).content.decode()
        assert NAME in html and f"/accounts/oidc/{PROVIDER_ID}/login/" in html, page


def test_a_new_reader_comes_back_signed_in_with_the_providers_verified_address(client):
    answer = sign_in_with_provider(client, ADA)
    assert answer.status_code == 302 and answer["Location"] == "/", answer.content.decode()[:2000]
    user = signed_in_as(client)
    assert user is not None and user.email == ADA.email
    assert EmailAddress.objects.get(user=user, email=ADA.email).verified
    assert not user.is_staff and not user.is_superuser and not user.has_usable_password()
    assert SocialAccount.objects.get(user=user).provider == PROVIDER_ID
    assert Profile.objects.get(user=user).display_name == ADA.name


def test_coming_back_again_signs_in_to_the_same_account(client):
    sign_in_with_provider(client, ADA)
    first = signed_in_as(client)
    client.post(reverse("account_logout"))
    assert signed_in_as(client) is None
    sign_in_with_provider(client, ADA)
    assert signed_in_as(client) == first
    assert get_user_model().objects.filter(email=ADA.email).count() == 1


def test_a_verified_address_signs_in_to_the_readers_account_that_has_it(client, make_verified_reader):
    reader = make_verified_reader(BRUNO.email, name="Bruno")
    sign_in_with_provider(client, BRUNO)
    assert signed_in_as(client) == reader
    assert SocialAccount.objects.filter(user=reader, provider=PROVIDER_ID).exists()
    reader.refresh_from_db()
    assert reader.has_usable_password(), "a verified address of the account's own keeps its password"


def test_an_unverified_address_does_not_take_over_the_account_that_has_it(client, make_verified_reader):
    reader = make_verified_reader(MALLORY.email, name="Chen")
    answer = sign_in_with_provider(client, MALLORY)
    # As a sign-up with a taken address: "check your mail" (the owner is told by mail).
    assert answer.status_code == 302 and answer["Location"] == reverse("account_email_verification_sent")
    assert [m.to for m in mail.outbox] == [[MALLORY.email]]
    assert signed_in_as(client) != reader
    assert not SocialAccount.objects.filter(user=reader).exists()
    reader.refresh_from_db()
    assert reader.has_usable_password()
    assert get_user_model().objects.filter(email__iexact=MALLORY.email).count() == 1


def test_an_editors_address_does_not_sign_in_to_the_editors_account(client, make_user):
    editor = make_user("edith", role="editor")
    editor.email = EVE.email
    editor.save()
    EmailAddress.objects.create(user=editor, email=EVE.email, verified=True, primary=True)
    sign_in_with_provider(client, EVE)
    assert signed_in_as(client) != editor
    assert not SocialAccount.objects.filter(user=editor).exists()


def test_a_reader_who_cancels_at_the_provider_is_told_so_and_not_signed_in(client):
    answer = sign_in_with_provider(client, ADA, grant=False)
    assert answer.status_code == 302
    page = client.get(answer["Location"])
    assert page.status_code == 200 and 'class="site-header"' in page.content.decode()
    assert signed_in_as(client) is None


def test_the_page_before_leaving_lets_its_form_lead_to_the_provider_and_nowhere_else(client, provider):
    """Its form's answer redirects to the provider: the page's CSP form-action allows
    the provider's origin besides the site's own (other pages allow only the site)."""
    page = client.get(reverse("openid_connect_login", kwargs={"provider_id": PROVIDER_ID}))
    assert page.status_code == 200 and 'class="site-header"' in page.content.decode()
    form_action = next(d for d in page["Content-Security-Policy"].split(";") if "form-action" in d).split()
    assert form_action == ["form-action", "'self'", provider.url]
    elsewhere = client.get(reverse("account_login"))["Content-Security-Policy"]
    assert provider.url not in elsewhere


def test_without_an_address_from_the_provider_the_reader_gives_one_and_verifies_it(client):
    answer = sign_in_with_provider(client, NEMO)
    assert answer.status_code == 302 and answer["Location"] == reverse("socialaccount_signup")
    page = client.get(answer["Location"]).content.decode()
    assert 'class="site-header"' in page and 'name="email"' in page
    given = client.post(answer["Location"], {"email": "nemo@example.org"})
    assert given.status_code == 302 and given["Location"] == reverse("account_email_verification_sent")
    assert [m.to for m in mail.outbox] == [["nemo@example.org"]]
    assert signed_in_as(client) is None


def test_a_reader_sees_the_providers_connected_to_the_account(client):
    sign_in_with_provider(client, ADA)
    page = client.get(reverse("socialaccount_connections")).content.decode()
    assert 'class="site-header"' in page and NAME in page
