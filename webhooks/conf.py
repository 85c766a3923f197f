"""The webhooks' settings, read on each call (never at import time), with their
defaults: the one place these are written (slugline/settings.py sets only what the
environment gives). docs/reference.md lists them."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class WebhookSettings:
    # Whether a webhook may call a loopback, private or link-local address (tests, a
    # receiver on the same network); off: such a URL is refused at save and at send.
    allow_private: bool
    # What one attempt may take, connecting, sending and reading the answer's head.
    timeout_seconds: float
    # The most of an answer read (status line and headers); past it the answer is cut off.
    max_answer_bytes: int
    # How long a delivery is retried after its event before it is given up.
    retry_hours: float
    # Deliveries sent at once by one sender; one webhook has at most half of them in
    # flight, so one slow receiver does not hold up the rest (webhooks/sender.py).
    concurrency: int


def get() -> WebhookSettings:
    """The settings now, each within its bounds."""
    return WebhookSettings(
        allow_private=bool(getattr(settings, "WEBHOOKS_ALLOW_PRIVATE", False)),
        timeout_seconds=min(60.0, max(0.1, float(getattr(settings, "WEBHOOKS_TIMEOUT_SECONDS", 10)))),
        max_answer_bytes=max(1024, int(getattr(settings, "WEBHOOKS_MAX_ANSWER_BYTES", 64 * 1024))),
        retry_hours=max(0.0, float(getattr(settings, "WEBHOOKS_RETRY_HOURS", 24))),
        concurrency=max(1, int(getattr(settings, "WEBHOOKS_CONCURRENCY", 16))),
    )
