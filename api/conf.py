"""The API's settings, read on each call (never at import time), with their defaults:
the one place these are written (slugline/settings.py sets only what the environment
gives). docs/reference.md lists them."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class ApiSettings:
    # Requests per API_RATE_WINDOW seconds from one IP address (0: no limit).
    rate_per_ip: int
    # Requests per API_RATE_WINDOW seconds with one API token (0: no limit).
    rate_per_token: int
    rate_window: int
    # Post slugs one /api/v1/counts request may ask about.
    counts_max: int
    # Origins (scheme://host[:port]) whose pages may read the API from a browser; empty: none.
    cors_origins: tuple[str, ...]
    # The largest request body the API reads, in bytes.
    max_body_bytes: int


def get() -> ApiSettings:
    """The API's settings now, each at least its floor."""
    return ApiSettings(
        rate_per_ip=max(0, int(getattr(settings, "API_RATE_PER_IP", 600))),
        rate_per_token=max(0, int(getattr(settings, "API_RATE_PER_TOKEN", 1200))),
        rate_window=max(1, int(getattr(settings, "API_RATE_WINDOW", 60))),
        counts_max=max(1, int(getattr(settings, "API_COUNTS_MAX", 50))),
        cors_origins=tuple(getattr(settings, "API_CORS_ORIGINS", ())),
        max_body_bytes=max(1024, int(getattr(settings, "API_MAX_BODY_BYTES", 64 * 1024))),
    )
