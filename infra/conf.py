"""The MongoDB platform's settings, read in one place, each with its default, so a
project that installs the comments app sets none of them (docs/distribution.md).

Read on each call, never at import time: tests and benchmarks that change a setting
(`settings.MONGODB_NAME = ...`) see it at once. Slugline's settings set every one from
the environment; another project may set only `COMMENTS_MONGODB_URI`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

# Every setting infra reads, with its default (docs/distribution.md, "Settings").
DEFAULTS: dict[str, Any] = {
    "MONGODB_CONNECT_TIMEOUT_MS": 1000,
    "MONGODB_SERVER_SELECTION_TIMEOUT_MS": 1000,
    "MONGODB_TIMEOUT_MS": 0,  # 0: no bound on an operation beyond the request's budget
    "MONGODB_SOCKET_TIMEOUT_MS": 60_000,
    "MONGODB_REQUEST_BUDGET_MS": 1500,
    "MONGODB_HEARTBEAT_MS": 1000,
    "BEHIND_PROXY": False,
}
# The database when neither MONGODB_NAME nor the URI's path names one.
DEFAULT_DB_NAME = "comments"
# The client's name in the server's logs, unless MONGODB_APPNAME names another.
DEFAULT_APPNAME = "slugline-comments"
NO_URI = (
    "No MongoDB server is configured: set COMMENTS_MONGODB_URI (or MONGODB_URI) to a "
    "mongodb:// address (docs/distribution.md)."
)
BAD_URI = "COMMENTS_MONGODB_URI (or MONGODB_URI) must be a mongodb:// or mongodb+srv:// address, not {uri!r}."
BAD_NAME = "MONGODB_NAME must be a non-empty database name without '/', '.', '$', spaces or NUL, not {name!r}."
BAD_NUMBER = "{name} must be a whole number of milliseconds, 0 or more, not {value!r}."


def get(name: str) -> Any:
    """The setting `name` from the project's settings, or its default."""
    return getattr(settings, name, DEFAULTS[name])


def configured_uri() -> str:
    """COMMENTS_MONGODB_URI, else MONGODB_URI, else "" (the checkout's dev database)."""
    return getattr(settings, "COMMENTS_MONGODB_URI", "") or getattr(settings, "MONGODB_URI", "") or ""


def db_name() -> str:
    """MONGODB_NAME, else the database the URI names, else DEFAULT_DB_NAME."""
    name = getattr(settings, "MONGODB_NAME", "")
    if not name:
        path = urlsplit(configured_uri()).path.lstrip("/") if configured_uri() else ""
        name = path or DEFAULT_DB_NAME
    if not isinstance(name, str) or any(ch in name for ch in "/\\. \"$\x00"):
        raise ImproperlyConfigured(BAD_NAME.format(name=name))
    return name


def appname() -> str:
    return getattr(settings, "MONGODB_APPNAME", DEFAULT_APPNAME)


def problems() -> list[str]:
    """What is wrong with these settings, as sentences (the system check's, and what
    `mongo.get_client` refuses to start with)."""
    found = []
    uri = configured_uri()
    if uri and not (isinstance(uri, str) and uri.startswith(("mongodb://", "mongodb+srv://"))):
        found.append(BAD_URI.format(uri=uri))
    for name, default in DEFAULTS.items():
        value = get(name)
        if isinstance(default, int) and not isinstance(default, bool) and (
                not isinstance(value, int) or isinstance(value, bool) or value < 0):
            found.append(BAD_NUMBER.format(name=name, value=value))
    try:
        db_name()
    except ImproperlyConfigured as error:
        found.append(str(error))
    return found
