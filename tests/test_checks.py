"""Slugline's own system checks (cms/checks.py)."""

from cms import checks


def test_a_per_process_cache_is_a_deploy_warning(settings):
    """With the default locmem cache, `check --deploy` warns that workers do not share it."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    [warning] = checks.shared_cache(None)
    assert (warning.id, warning.msg) == ("cms.W001", checks.CACHE_PER_PROCESS)


def test_a_shared_cache_passes(settings):
    """Redis, shared by every worker, raises nothing."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": "redis://127.0.0.1:6379/0"}}
    assert checks.shared_cache(None) == []
