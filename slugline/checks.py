"""Slugline's own system checks, registered in `SluglineConfig.ready()`."""

from urllib.parse import urlsplit

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


LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "0.0.0.0"}
SITE_URL_LOOPBACK = (
    "SITE_URL is {url}: every link in notification mail would lead to the reader's own "
    "machine."
)
SITE_URL_HINT = "Set SITE_URL to the address readers use, e.g. https://blog.example.com (docs/deploy.md)."


@checks.register(deploy=True)
def site_url(app_configs, **kwargs):
    """A deployment's mail links (SITE_URL) name the site, not this machine's loopback."""
    host = urlsplit(settings.SITE_URL).hostname or ""
    if host in LOOPBACK_HOSTS or host.startswith("127."):
        return [checks.Warning(SITE_URL_LOOPBACK.format(url=settings.SITE_URL), hint=SITE_URL_HINT,
                               id="cms.W002")]
    return []
