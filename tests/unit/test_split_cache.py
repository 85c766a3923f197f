"""slugline.caches.SplitCache: allauth's keys to the shared alias, the rest to the local
one; clearing empties only the local part."""

import pytest
from django.core.cache import caches


@pytest.fixture
def split(settings):
    settings.CACHES = {
        "default": {"BACKEND": "slugline.caches.SplitCache", "OPTIONS": {"LOCAL": "local", "SHARED": "shared"}},
        "local": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "unit-local"},
        "shared": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "unit-shared"},
    }
    for alias in ("local", "shared"):
        caches[alias].clear()
    yield caches["default"]
    for alias in ("local", "shared"):
        caches[alias].clear()


def test_allauths_keys_go_to_the_shared_alias_and_the_rest_stay_local(split):
    split.set("allauth:rl:allauth.account:signup:10/60/ip:ip:10.0.0.1", [1.0], 60)
    assert split.add("allauth.mfa.totp.used?user=1&code=123456", "y", 90)
    split.set("jwt:iss=https://idp.example,jti=abc", True, 60)
    split.set("stale:home:1", "page", 60)
    shared, local = caches["shared"], caches["local"]
    assert shared.get("allauth:rl:allauth.account:signup:10/60/ip:ip:10.0.0.1") == [1.0]
    assert shared.get("jwt:iss=https://idp.example,jti=abc") is True
    assert local.get("stale:home:1") == "page" and shared.get("stale:home:1") is None
    assert not split.add("allauth.mfa.totp.used?user=1&code=123456", "y", 90)
    assert split.get_many(["stale:home:1", "jwt:iss=https://idp.example,jti=abc"]) == {
        "stale:home:1": "page", "jwt:iss=https://idp.example,jti=abc": True}


def test_clearing_the_cache_lifts_no_limit(split):
    split.set("allauth:rl:x", [1.0], 60)
    split.set("comments:list:x", "html", 60)
    split.clear()
    assert split.get("comments:list:x") is None and split.get("allauth:rl:x") == [1.0]


def test_many_at_once_are_split_by_key(split):
    assert split.set_many({"allauth:a": 1, "b": 2}, 60) == []
    assert (caches["shared"].get("allauth:a"), caches["local"].get("b")) == (1, 2)
    split.delete_many(["allauth:a", "b"])
    assert split.get_many(["allauth:a", "b"]) == {}
