"""Deleting every key of Django's cache that begins with a prefix, which Django's cache
API cannot: the erasure of a member's comments (comments/erasure/) drops the cached
pages of their discussions with it. Done for the backends that can list their keys:
local memory (this process's), Redis (every process's), and any backend that offers
`delete_prefix(prefix)` itself (the site's split cache hands the prefix to the alias
its keys go to). Other backends delete nothing here: what they hold under an old
version is never read again and expires in its time."""

from __future__ import annotations

from typing import Any

from django.core.cache import BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache


def delete_prefix(cache: BaseCache, prefix: str) -> int | None:
    """Delete the keys of `cache` that begin with `prefix` (as given to the cache, before
    its KEY_PREFIX and VERSION); how many, or None when the backend cannot list keys."""
    own: Any = getattr(cache, "delete_prefix", None)
    if own is not None:
        return own(prefix)
    made = cache.make_key(prefix)
    if isinstance(cache, LocMemCache):
        with cache._lock:
            keys = [key for key in cache._cache if key.startswith(made)]
            for key in keys:
                cache._delete(key)
        return len(keys)
    if isinstance(cache, RedisCache):
        client = cache._cache.get_client(made, write=True)
        keys = list(client.scan_iter(match=_glob_escape(made) + "*", count=1000))
        return int(client.delete(*keys)) if keys else 0
    return None


def _glob_escape(text: str) -> str:
    """`text` as a literal in a Redis MATCH pattern."""
    return "".join("\\" + char if char in "*?[]\\" else char for char in text)
