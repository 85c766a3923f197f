"""The OpenID Connect providers readers may sign in with, from AUTH_OIDC_PROVIDERS.

The variable holds a JSON list of `{"id", "name", "server_url", "client_id", "secret"}`;
settings.py reads it with django-environ and hands `openid_connect_apps()`'s result to
django-allauth (SOCIALACCOUNT_PROVIDERS["openid_connect"]["APPS"]). A value that is not
such a list stops every process at start-up (gunicorn, manage.py, the tests) with
ImproperlyConfigured naming the variable and the provider at fault; a secret is never
repeated in a message. Pure: no Django settings are read here.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured

VARIABLE = "AUTH_OIDC_PROVIDERS"
KEYS = ("id", "name", "server_url", "client_id", "secret")
# The id is a segment of the provider's URLs (/accounts/oidc/<id>/login/).
ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")

SHAPE = (
    ' Expected a JSON list such as [{"id": "keycloak", "name": "Company sign-in", '
    '"server_url": "https://id.example.com/realms/staff", "client_id": "slugline", '
    '"secret": "…"}] (docs/accounts.md).'
)
NOT_JSON = "{var} is not valid JSON: {error}."
NOT_A_LIST = "{var} must be a JSON list of providers, not {kind}."
NOT_AN_OBJECT = "{var}: provider {where} is not a JSON object."
MISSING_KEYS = "{var}: provider {where} lacks {keys}."
UNKNOWN_KEYS = "{var}: provider {where} has unknown keys {keys} (allowed: {allowed})."
NOT_TEXT = '{var}: provider {where}: "{key}" must be a non-empty string.'
BAD_ID = (
    '{var}: provider {where}: "id" must be lower-case letters, digits, "-" and "_" '
    "(at most 64, starting with a letter or digit), not {value!r}."
)
DUPLICATE_ID = '{var}: provider {where}: another provider has the id {value!r} already.'
BAD_SERVER_URL = (
    '{var}: provider {where}: "server_url" must be an https:// address (http:// only '
    "for this machine: localhost, 127.0.0.1, [::1]), not {value!r}."
)


def read_providers(env: environ.Env, var: str = VARIABLE) -> list[dict[str, Any]]:
    """allauth's APPS for the providers the environment names in `var` (none when it is
    unset or blank); ImproperlyConfigured when its value is not a valid list."""
    if not env.str(var, default="").strip():
        return []
    try:
        value = env.json(var)
    except ValueError as error:
        raise ImproperlyConfigured(NOT_JSON.format(var=var, error=error) + SHAPE) from None
    return openid_connect_apps(value, var=var)


def openid_connect_apps(value: Any, *, var: str = VARIABLE) -> list[dict[str, Any]]:
    """`value` (parsed JSON) checked and turned into allauth's APPS entries, in order."""
    if not isinstance(value, list):
        raise _invalid(NOT_A_LIST, var=var, kind=_kind(value))
    apps: list[dict[str, Any]] = []
    for number, entry in enumerate(value, start=1):
        apps.append(_app(entry, var=var, number=number, taken={app["provider_id"] for app in apps}))
    return apps


def _app(entry: Any, *, var: str, number: int, taken: set[str]) -> dict[str, Any]:
    where = str(number)
    if not isinstance(entry, dict):
        raise _invalid(NOT_AN_OBJECT, var=var, where=where)
    if isinstance(entry.get("id"), str) and entry["id"]:
        where = f'{number} ("{entry["id"][:64]}")'
    missing = [key for key in KEYS if key not in entry]
    if missing:
        raise _invalid(MISSING_KEYS, var=var, where=where, keys=_quoted(missing))
    unknown = sorted(str(key) for key in entry if key not in KEYS)
    if unknown:
        raise _invalid(UNKNOWN_KEYS, var=var, where=where, keys=_quoted(unknown), allowed=_quoted(KEYS))
    for key in KEYS:
        if not isinstance(entry[key], str) or not entry[key].strip():
            raise _invalid(NOT_TEXT, var=var, where=where, key=key)
    provider_id = entry["id"]
    if not ID_PATTERN.fullmatch(provider_id):
        raise _invalid(BAD_ID, var=var, where=where, value=provider_id)
    if provider_id in taken:
        raise _invalid(DUPLICATE_ID, var=var, where=where, value=provider_id)
    server_url = entry["server_url"].strip()
    if not is_allowed_server_url(server_url):
        raise _invalid(BAD_SERVER_URL, var=var, where=where, value=server_url)
    return {
        "provider_id": provider_id,
        "name": entry["name"].strip(),
        "client_id": entry["client_id"],
        "secret": entry["secret"],
        # allauth adds /.well-known/openid-configuration to an address without one.
        "settings": {"server_url": server_url if "/.well-known/" in server_url else server_url.rstrip("/")},
    }


def is_allowed_server_url(url: str) -> bool:
    """An https:// address with a host; or http:// to this machine (tests, a provider
    on the same host): the client secret and the tokens travel to it."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 (raises ValueError for a port that is not a number)
    except ValueError:
        return False
    if not host or parts.query or parts.fragment or any(char.isspace() for char in url):
        return False
    if parts.scheme == "https":
        return True
    return parts.scheme == "http" and _is_loopback(host)


def _is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _invalid(message: str, **values: Any) -> ImproperlyConfigured:
    return ImproperlyConfigured(message.format(**values) + SHAPE)


def _quoted(keys) -> str:
    return ", ".join(f'"{key}"' for key in keys)


def _kind(value: Any) -> str:
    return {dict: "an object", str: "a string", bool: "true or false", type(None): "null"}.get(
        type(value), "a number"
    )
