"""WhiteNoise's scan of the static files, made once per test session instead of once
per test client.

WhiteNoise's middleware stats every static file (the collected ones and, with
WHITENOISE_USE_FINDERS, the apps' own) when it is made: 0.1-0.3 s on these machines.
The site makes it once per process; Django's test client makes the whole middleware
chain again for every `Client()`, thousands of times in a session, and the scan was
the biggest cost of many tests. Within a session the files do not change once
collected (tests/database.py), so while `scans_shared()` is active each new
middleware gets the files a first scan found under the same settings: the same
dictionary a scan of its own would build. A test that changes a setting the scan
reads (STATIC_ROOT, STATIC_URL, DEBUG, a WHITENOISE_ setting...) gets a scan of its
own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings as django_settings
from whitenoise.middleware import WhiteNoiseMiddleware

# The settings WhiteNoiseMiddleware reads when it scans.
SHAPING = (
    "DEBUG", "STATIC_ROOT", "STATIC_URL", "FORCE_SCRIPT_NAME", "STATICFILES_DIRS", "STATICFILES_FINDERS",
    "INSTALLED_APPS", "STORAGES", "WHITENOISE_AUTOREFRESH", "WHITENOISE_MAX_AGE", "WHITENOISE_ALLOW_ALL_ORIGINS",
    "WHITENOISE_CHARSET", "WHITENOISE_MIMETYPES", "WHITENOISE_ADD_HEADERS_FUNCTION", "WHITENOISE_INDEX_FILE",
    "WHITENOISE_IMMUTABLE_FILE_TEST", "WHITENOISE_USE_FINDERS", "WHITENOISE_STATIC_PREFIX", "WHITENOISE_ROOT",
)


def shaping_settings() -> str:
    """What the scan depends on, as one comparable value."""
    return repr(tuple(getattr(django_settings, name, None) for name in SHAPING))


def _skip(*args: Any, **kwargs: Any) -> None:
    return None


@contextmanager
def scans_shared() -> Iterator[dict[str, tuple[dict, list]]]:
    """While active, a WhiteNoiseMiddleware made under settings already scanned takes
    that scan's files (and, with autorefresh, its directories) instead of its own.
    Gives the scans kept, by `shaping_settings()`."""
    scans: dict[str, tuple[dict, list]] = {}
    original = WhiteNoiseMiddleware.__init__

    def init(self: WhiteNoiseMiddleware, get_response: Any = None, settings: Any = django_settings) -> None:
        key = shaping_settings()
        if settings is not django_settings or key not in scans:
            original(self, get_response, settings)
            if settings is django_settings:
                scans[key] = (self.files, self.directories)
            return
        self.add_files = _skip  # type: ignore[method-assign]
        self.add_files_from_finders = _skip  # type: ignore[method-assign]
        try:
            original(self, get_response, settings)
        finally:  # (a context within another has skipped them already)
            self.__dict__.pop("add_files", None)
            self.__dict__.pop("add_files_from_finders", None)
        files, directories = scans[key]
        self.files, self.directories = dict(files), list(directories)

    WhiteNoiseMiddleware.__init__ = init  # type: ignore[method-assign]
    try:
        yield scans
    finally:
        WhiteNoiseMiddleware.__init__ = original  # type: ignore[method-assign]
