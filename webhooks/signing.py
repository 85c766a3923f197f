"""The `Slugline-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of
"<t>.<body>" keyed with the webhook's secret>`. Pure functions; docs/webhooks.md
shows a receiver's check in a few lines."""

from __future__ import annotations

import hashlib
import hmac
import secrets

HEADER = "Slugline-Signature"
EVENT_HEADER = "Slugline-Event"
# A webhook's secret: this prefix and 256 random bits, URL-safe.
PREFIX = "whsec_"


def new_secret() -> str:
    return PREFIX + secrets.token_urlsafe(32)


def signature(*, secret: str, timestamp: int, body: bytes) -> str:
    """The hex HMAC-SHA256 of `<timestamp>.<body>` keyed with `secret`."""
    signed = str(timestamp).encode("ascii") + b"." + body
    return hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()


def header(*, secret: str, timestamp: int, body: bytes) -> str:
    """The value of the Slugline-Signature header for `body` sent at `timestamp`."""
    return f"t={timestamp},v1={signature(secret=secret, timestamp=timestamp, body=body)}"


def verify(*, secret: str, value: str, body: bytes, now: int, tolerance: int = 300) -> bool:
    """Whether `value` (a Slugline-Signature header) signs `body` with `secret`, at a
    time within `tolerance` seconds of `now` (a replayed old delivery fails)."""
    parts = dict(part.split("=", 1) for part in value.split(",") if "=" in part)
    try:
        timestamp = int(parts.get("t", ""))
    except ValueError:
        return False
    if abs(now - timestamp) > tolerance:
        return False
    return hmac.compare_digest(parts.get("v1", ""), signature(secret=secret, timestamp=timestamp, body=body))
