"""Slugline's own system checks, registered in `SluglineConfig.ready()`."""

from django.conf import settings
from django.core import checks

PER_PROCESS_CACHES = (
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
    "django.core.cache.backends.filebased.FileBasedCache",
)
CACHE_PER_PROCESS = (
    "The cache is per process: gunicorn's workers would each keep their own copies of "
    "pages and rendered comments."
)
CACHE_HINT = "Set CACHE_URL to a shared cache, e.g. redis://127.0.0.1:6379/0 (docs/deploy.md)."


@checks.register(checks.Tags.security, checks.Tags.caches, deploy=True)
def shared_cache(app_configs, **kwargs):
    """A deployment's workers share one cache (pages' last good copies, rendered comments)."""
    if settings.CACHES["default"]["BACKEND"] in PER_PROCESS_CACHES:
        return [checks.Warning(CACHE_PER_PROCESS, hint=CACHE_HINT, id="cms.W001")]
    return []
