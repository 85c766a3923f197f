"""Slugline's own system checks (slugline/checks.py)."""

from comments import checks as comment_checks
from slugline import checks


def test_a_per_process_cache_is_a_deploy_warning(settings):
    """With the default locmem cache, `check --deploy` warns that workers do not share it."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    [warning] = checks.shared_cache(None)
    assert (warning.id, warning.msg) == ("cms.W001", checks.CACHE_PER_PROCESS)


def test_a_per_process_cache_that_shares_only_allauths_keys_is_a_deploy_warning_too(settings):
    """The default settings' split cache (slugline/caches.py) keeps pages per process."""
    settings.CACHES = {
        "default": {"BACKEND": "slugline.caches.SplitCache", "OPTIONS": {"LOCAL": "local", "SHARED": "shared"}},
        "local": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "shared": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "slugline_shared_cache"},
    }
    [warning] = checks.shared_cache(None)
    assert warning.id == "cms.W001"


def test_a_shared_cache_passes(settings):
    """Redis, shared by every worker, raises nothing."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": "redis://127.0.0.1:6379/0"}}
    assert checks.shared_cache(None) == []


def test_an_unknown_comment_store_is_an_error_naming_the_stores(settings):
    """A typo in COMMENTS_STORE stops `check` (and so the site's start) with the known names."""
    settings.COMMENTS_STORE = "bucket"
    [error] = comment_checks.known_comment_store(None)
    assert error.id == "comments.E001"
    assert error.msg == "COMMENTS_STORE is 'bucket'; the comment stores are: documents, embedded, buckets."


def test_each_comment_store_passes(settings):
    for name in ("documents", "embedded", "buckets"):
        settings.COMMENTS_STORE = name
        assert comment_checks.known_comment_store(None) == []
