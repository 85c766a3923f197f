"""A last good copy of what readers were shown, for when MongoDB is unreachable.

`remembered(key, fetch)` returns `fetch()` and keeps its result in Django's cache;
during a database outage it returns the copy kept last time instead, so a post
that was read recently can still be read. Without a copy, the outage propagates
(and becomes the site's 503 page).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.core.cache import cache
from pymongo.errors import PyMongoError

from infra import mongo

T = TypeVar("T")
PREFIX = "stale:"
KEEP_SECONDS = 24 * 3600
_MISSING = object()


def remembered(key: str, fetch: Callable[[], T]) -> T:
    try:
        value = fetch()
    except PyMongoError as exc:
        if not mongo.is_outage(exc):
            raise
        kept = cache.get(PREFIX + key, _MISSING)
        if kept is _MISSING:
            raise
        return kept
    if value is not None:
        # Nothing is kept of what was not found: there is nothing to show from it in an
        # outage, and a stranger asking for made-up addresses would fill the cache.
        cache.set(PREFIX + key, value, KEEP_SECONDS)
    return value
