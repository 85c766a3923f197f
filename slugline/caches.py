"""One cache alias, two places: the keys of django-allauth go to a cache every worker
shares, every other key to the process's own.

django-allauth keeps its rate limits (sign-up, codes by mail, password reset), its
replay guards (a used authenticator code, a used ID token) and their locks in Django's
default cache, and has no setting to name another. The site's default cache is per
process unless CACHE_URL names a shared one (locmem: quick, and what the pages cached
by the comments app and infra/stale.py want). So when CACHE_URL leaves it per process,
settings.py makes "default" this router: keys beginning with one of SHARED_PREFIXES
go to the "shared" alias (Django's DatabaseCache in Django's own database, made by
`manage.py createcachetable`), the rest to the "local" alias. A limit then holds
across gunicorn workers, machines and restarts (tests/integration/accounts/).
"""

from __future__ import annotations

from typing import Any

from django.core.cache import caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache

from infra.cache_prefix import delete_prefix

# allauth.core.internal.ratelimit ("allauth:rl:…"), allauth.mfa.totp ("allauth.mfa…"),
# allauth.socialaccount.internal.jwtkit ("jwt:iss=…").
SHARED_PREFIXES = ("allauth", "jwt:")


class SplitCache(BaseCache):
    """Routes each key by its prefix: OPTIONS' LOCAL and SHARED name the two aliases,
    PREFIXES the keys that go to the shared one. Keys are passed on as given: each
    alias applies its own KEY_PREFIX and VERSION."""

    def __init__(self, location: str, params: dict[str, Any]):
        options = dict(params.get("OPTIONS") or {})
        self._local_alias = options.pop("LOCAL")
        self._shared_alias = options.pop("SHARED")
        self._prefixes = tuple(options.pop("PREFIXES", SHARED_PREFIXES))
        super().__init__({**params, "OPTIONS": options})

    def _for(self, key: str) -> BaseCache:
        return caches[self._shared_alias if str(key).startswith(self._prefixes) else self._local_alias]

    def _split(self, keys) -> dict[BaseCache, list]:
        groups: dict[BaseCache, list] = {}
        for key in keys:
            groups.setdefault(self._for(key), []).append(key)
        return groups

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._for(key).add(key, value, timeout, version)

    def get(self, key, default=None, version=None):
        return self._for(key).get(key, default, version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        self._for(key).set(key, value, timeout, version)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._for(key).touch(key, timeout, version)

    def delete(self, key, version=None):
        return self._for(key).delete(key, version)

    def delete_prefix(self, prefix: str) -> int | None:
        """Every key beginning with `prefix` goes, from the alias such keys go to
        (infra/cache_prefix.py)."""
        return delete_prefix(self._for(prefix), prefix)

    def has_key(self, key, version=None):
        return self._for(key).has_key(key, version)

    def incr(self, key, delta=1, version=None):
        return self._for(key).incr(key, delta, version)

    def get_many(self, keys, version=None):
        found: dict = {}
        for cache, group in self._split(keys).items():
            found.update(cache.get_many(group, version))
        return found

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        failed: list = []
        for cache, group in self._split(data).items():
            failed += cache.set_many({key: data[key] for key in group}, timeout, version)
        return failed

    def delete_many(self, keys, version=None):
        for cache, group in self._split(keys).items():
            cache.delete_many(group, version)

    def clear(self):
        """Empties the process's cache only: the shared keys are limits and replay
        guards, which clearing cached pages must not lift (they expire on their own)."""
        caches[self._local_alias].clear()
