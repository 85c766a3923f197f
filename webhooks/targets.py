"""Which URLs a webhook may call: http or https, a host and nothing secret in the URL,
and (unless WEBHOOKS_ALLOW_PRIVATE) a host that resolves only to public addresses. A
URL is checked when it is saved and again at each send, and the send connects to
the very addresses the check resolved: a name that answered with a public address at
save and with 127.0.0.1 later (DNS rebinding) is refused then."""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.utils.translation import gettext, gettext_noop

MAX_LENGTH = 2000
BAD_URL = gettext_noop("Enter an http:// or https:// URL with a host name.")
TOO_LONG = gettext_noop("A webhook URL has at most 2,000 characters.")
CREDENTIALS = gettext_noop(
    "Leave the user name and password out of the URL: the signature proves the sender."
)
UNRESOLVED = gettext_noop("The URL's host name does not resolve.")
PRIVATE = gettext_noop(
    "The URL's host resolves to a loopback, private or link-local address; "
    "webhooks call public addresses only."
)
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class BadTarget(ValueError):
    """A URL a webhook may not call; `message` is for the editor (untranslated)."""

    def __init__(self, message: str, *, code: str):
        super().__init__(message)
        self.message = message
        self.code = code

    def translated(self) -> str:
        return gettext(self.message)


@dataclass(frozen=True)
class Target:
    """A checked URL: where to connect (`addresses`, as resolved) and what to ask."""

    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...]

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"


def parse(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, path with query) of a URL a webhook may have; BadTarget."""
    if len(url) > MAX_LENGTH:
        raise BadTarget(TOO_LONG, code="too_long")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise BadTarget(BAD_URL, code="bad_url") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or any(c.isspace() for c in url.strip()):
        raise BadTarget(BAD_URL, code="bad_url")
    if parts.username is not None or parts.password is not None:
        raise BadTarget(CREDENTIALS, code="credentials")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80), path


def is_public(address: Address) -> bool:
    """Whether `address` is one the internet routes: not loopback, private,
    link-local, shared, reserved, multicast or unspecified (an IPv4 address written
    as IPv6 is judged as IPv4)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


def resolve(host: str, port: int) -> tuple[str, ...]:
    """Every address `host` resolves to now, in the resolver's order; BadTarget if none."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError):
        raise BadTarget(UNRESOLVED, code="unresolved") from None
    addresses = tuple(dict.fromkeys(str(info[4][0]) for info in found))
    if not addresses:
        raise BadTarget(UNRESOLVED, code="unresolved")
    return addresses


def check(url: str, *, allow_private: bool) -> Target:
    """The URL as a Target to connect to now, or BadTarget saying why not: a host with
    any address that is not public is refused unless `allow_private`."""
    scheme, host, port, path = parse(url)
    addresses = resolve(host, port)
    if not allow_private and not all(is_public(ipaddress.ip_address(a.split("%")[0])) for a in addresses):
        raise BadTarget(PRIVATE, code="private")
    return Target(scheme=scheme, host=host, port=port, path=path, addresses=addresses)
