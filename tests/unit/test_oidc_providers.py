"""AUTH_OIDC_PROVIDERS (slugline/oidc_providers.py): a JSON list of providers becomes
allauth's APPS; anything else stops start-up with a message naming the variable and the
provider at fault, never the secret. And what makes a provider's configuration
document unusable (accounts/social.py)."""

from __future__ import annotations

import json

import environ
import pytest
from django.core.exceptions import ImproperlyConfigured

from accounts.social import configuration_problem
from slugline import oidc_providers
from slugline.oidc_providers import is_allowed_server_url, openid_connect_apps, read_providers

SECRET = "do-not-print-me-7f3a"
GOOD = {"id": "keycloak", "name": "Company sign-in", "server_url": "https://id.example.com/realms/staff",
        "client_id": "slugline", "secret": SECRET}


def read(monkeypatch, value: str | None):
    if value is None:
        monkeypatch.delenv("AUTH_OIDC_PROVIDERS", raising=False)
    else:
        monkeypatch.setenv("AUTH_OIDC_PROVIDERS", value)
    return read_providers(environ.Env())


def test_unset_or_blank_means_no_providers(monkeypatch):
    assert read(monkeypatch, None) == []
    assert read(monkeypatch, "") == []
    assert read(monkeypatch, "  ") == []
    assert read(monkeypatch, "[]") == []


def test_a_provider_becomes_an_allauth_app(monkeypatch):
    apps = read(monkeypatch, json.dumps([GOOD, {**GOOD, "id": "google", "name": "Google",
                                                 "server_url": "https://accounts.google.com/"}]))
    assert apps == [
        {"provider_id": "keycloak", "name": "Company sign-in", "client_id": "slugline", "secret": SECRET,
         "settings": {"server_url": "https://id.example.com/realms/staff"}},
        {"provider_id": "google", "name": "Google", "client_id": "slugline", "secret": SECRET,
         "settings": {"server_url": "https://accounts.google.com"}},
    ]


def test_a_server_url_naming_its_configuration_document_is_kept_as_given():
    url = "https://id.example.com/.well-known/openid-configuration"
    assert openid_connect_apps([{**GOOD, "server_url": url}])[0]["settings"]["server_url"] == url


def test_json_that_does_not_parse_names_the_variable(monkeypatch):
    not_json = r"^AUTH_OIDC_PROVIDERS is not valid JSON: .*docs/accounts\.md"
    with pytest.raises(ImproperlyConfigured, match=not_json):
        read(monkeypatch, '[{"id": "keycloak", "secret": "' + SECRET + '",')


BAD = {
    "an object, not a list": (GOOD, "must be a JSON list of providers, not an object"),
    "a string": ("keycloak", "not a string"),
    "an entry that is not an object": ([GOOD, 7], "provider 2 is not a JSON object"),
    "a missing key": ([{k: v for k, v in GOOD.items() if k != "client_id"}], 'lacks "client_id"'),
    "an unknown key": ([{**GOOD, "scope": "openid"}], 'unknown keys "scope"'),
    "an empty name": ([{**GOOD, "name": " "}], '"name" must be a non-empty string'),
    "a secret that is a number": ([{**GOOD, "secret": 12345}], '"secret" must be a non-empty string'),
    "an id with a slash": ([{**GOOD, "id": "a/b"}], '"id" must be lower-case letters'),
    "an upper-case id": ([{**GOOD, "id": "Keycloak"}], '"id" must be lower-case letters'),
    "two providers with one id": ([GOOD, GOOD], "provider 2 (\"keycloak\"): another provider has the id"),
    "plain http to another host": ([{**GOOD, "server_url": "http://id.example.com"}], "must be an https://"),
    "no scheme": ([{**GOOD, "server_url": "id.example.com"}], "must be an https://"),
    "a query": ([{**GOOD, "server_url": "https://id.example.com/?a=b"}], "must be an https://"),
}


@pytest.mark.parametrize(("value", "message"), BAD.values(), ids=BAD.keys())
def test_a_malformed_value_names_the_variable_and_the_fault_but_not_the_secret(value, message):
    with pytest.raises(ImproperlyConfigured) as raised:
        openid_connect_apps(value)
    text = str(raised.value)
    assert text.startswith("AUTH_OIDC_PROVIDERS") and message in text, text
    assert SECRET not in text and oidc_providers.SHAPE in text


@pytest.mark.parametrize("url", [
    "https://id.example.com", "https://id.example.com:8443/realms/x", "http://127.0.0.1:9000",
    "http://localhost:9000/", "http://[::1]:9000", "http://127.1.2.3", "http://idp.localhost",
])
def test_https_anywhere_and_http_on_this_machine_are_allowed(url):
    assert is_allowed_server_url(url)


@pytest.mark.parametrize("url", [
    "http://example.com", "http://10.0.0.1", "ftp://id.example.com", "https://", "https://id.example.com:x",
    "https://id.example.com/#top", "https://id example.com", "http://localhost.example.com",
])
def test_other_server_urls_are_refused(url):
    assert not is_allowed_server_url(url)


ENDPOINTS = {"issuer": "https://id.example.com", "authorization_endpoint": "https://id.example.com/auth",
             "token_endpoint": "https://id.example.com/token", "jwks_uri": "https://id.example.com/jwks"}


def test_a_configuration_with_http_endpoints_is_usable():
    assert configuration_problem(ENDPOINTS) is None
    assert configuration_problem({}) is None  # what is missing fails where allauth needs it


@pytest.mark.parametrize(("document", "problem"), [
    ([], "not a JSON object"),
    ("https://id.example.com", "not a JSON object"),
    ({**ENDPOINTS, "authorization_endpoint": 7}, "authorization_endpoint"),
    ({**ENDPOINTS, "token_endpoint": "/token"}, "token_endpoint"),
    ({**ENDPOINTS, "userinfo_endpoint": "javascript:alert(1)"}, "userinfo_endpoint"),
    ({**ENDPOINTS, "jwks_uri": ["https://id.example.com/jwks"]}, "jwks_uri"),
])
def test_a_configuration_that_is_not_an_object_or_has_odd_endpoints_is_unusable(document, problem):
    assert problem in (configuration_problem(document) or "")
