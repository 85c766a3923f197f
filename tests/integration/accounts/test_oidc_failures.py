"""A provider that is down, slow or answers garbage (accounts/social.py): the reader gets
a page in the site's layout saying so (502), never a 500, and is not signed in; a slow
provider is waited on for SOCIALACCOUNT_REQUESTS_TIMEOUT seconds at most. Each provider
here is a loopback server of tests/oidc_provider/broken.py."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse

from accounts import social
from slugline.oidc_providers import openid_connect_apps
from tests.oidc_provider.broken import Answer, BrokenProvider, closed_port

NAME = "Company sign-in"
FAILED = "did not answer in time, or answered something we could not read"
TIMEOUT = 1


@pytest.fixture(autouse=True)
def _quick_timeout(settings, db):
    settings.SOCIALACCOUNT_REQUESTS_TIMEOUT = TIMEOUT


def configure(settings, server_url: str) -> None:
    settings.SOCIALACCOUNT_PROVIDERS = {"openid_connect": {"APPS": openid_connect_apps([
        {"id": "company", "name": NAME, "server_url": server_url,
         "client_id": "slugline", "secret": "s3cret"},
    ]), "OAUTH_PKCE_ENABLED": True}}


def start_signing_in(client):
    return client.post(reverse("openid_connect_login", kwargs={"provider_id": "company"}))


def assert_failure_page(answer, client) -> None:
    page = answer.content.decode()
    assert answer.status_code == social.PROVIDER_FAILED_STATUS, page[:2000]
    assert 'class="site-header"' in page, "not in the site's layout"
    assert NAME in page and FAILED in page
    assert "_auth_user_id" not in client.session


def test_a_provider_that_is_down_gives_the_failure_page(settings, client):
    configure(settings, f"http://127.0.0.1:{closed_port()}")
    assert_failure_page(start_signing_in(client), client)


def test_a_slow_provider_is_given_up_on_after_the_timeout(settings, client):
    with BrokenProvider() as provider:
        slow = Answer.json(provider.discovery(), delay=TIMEOUT + 5)
        provider.answers["/.well-known/openid-configuration"] = slow
        configure(settings, provider.url)
        started = time.monotonic()
        answer = start_signing_in(client)
        waited = time.monotonic() - started
    assert_failure_page(answer, client)
    assert TIMEOUT <= waited < TIMEOUT + 3


GARBAGE = {
    "HTML for JSON": Answer("<html><body>Welcome to nginx!</body></html>", content_type="text/html"),
    "a list for an object": Answer.json(["issuer"]),
    "an object without endpoints": Answer.json({"issuer": "somewhere"}),
    "an error status": Answer.json({"error": "server_error"}, status=500),
    "endpoints that are not strings": Answer.json({"authorization_endpoint": 7, "token_endpoint": [1]}),
    "bytes that are not text": Answer(b"\xff\xfe\x00garbage", content_type="application/json"),
}


@pytest.mark.parametrize("garbage", GARBAGE.values(), ids=GARBAGE.keys())
def test_a_provider_configuration_that_is_garbage_gives_the_failure_page(settings, client, garbage):
    with BrokenProvider({"/.well-known/openid-configuration": garbage}) as provider:
        configure(settings, provider.url)
        answer = start_signing_in(client)
    assert_failure_page(answer, client)


def come_back(client, provider: BrokenProvider):
    """Begin signing in (the provider's configuration is sound), then come back to the
    callback as if the provider had sent the reader with a code."""
    begun = start_signing_in(client)
    assert begun.status_code == 302, begun.content.decode()[:2000]
    state = parse_qs(urlsplit(begun["Location"]).query)["state"][0]
    callback = reverse("openid_connect_callback", kwargs={"provider_id": "company"})
    return client.get(callback, {"code": "a-code", "state": state})


TOKEN_GARBAGE = {
    "a token endpoint that times out": {"/token": Answer.json({"access_token": "a"}, delay=TIMEOUT + 5)},
    "a token endpoint answering HTML": {"/token": Answer("<html>oops</html>", content_type="text/html")},
    "a token endpoint answering broken JSON": {"/token": Answer('{"access_token": ')},
    "a token that is a list": {"/token": Answer.json(["access_token"])},
    "user info that is a list": {
        "/token": Answer.json({"access_token": "a", "token_type": "Bearer"}),
        "/userinfo": Answer.json(["sub"]),
    },
    "user info without a subject": {
        "/token": Answer.json({"access_token": "a", "token_type": "Bearer"}),
        "/userinfo": Answer.json({"email": "ada@example.org", "email_verified": True}),
    },
    "an ID token that is not a JWT": {
        "/token": Answer.json({"access_token": "a", "token_type": "Bearer", "id_token": "not.a.jwt"}),
        "/userinfo": Answer.json({"sub": "1"}),
    },
}


@pytest.mark.parametrize("answers", TOKEN_GARBAGE.values(), ids=TOKEN_GARBAGE.keys())
def test_garbage_on_the_way_back_gives_the_failure_page(settings, client, answers):
    with BrokenProvider(answers) as provider:
        provider.answers["/.well-known/openid-configuration"] = Answer.json(provider.discovery())
        configure(settings, provider.url)
        answer = come_back(client, provider)
    assert_failure_page(answer, client)


def test_an_unknown_provider_is_not_found(settings, client):
    configure(settings, f"http://127.0.0.1:{closed_port()}")
    answer = client.post(reverse("openid_connect_login", kwargs={"provider_id": "nobody"}))
    assert answer.status_code == 404
