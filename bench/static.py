"""Static files for benchmarks that render pages through Django's test client."""

import tempfile

from django.conf import settings
from django.core.management import call_command


def collect_static() -> None:
    """Collect static files into a temporary STATIC_ROOT, as the release step does:
    the manifest storage names every file a page links, and refuses a page without it."""
    settings.STATIC_ROOT = tempfile.mkdtemp(prefix="slugline-bench-static-")
    call_command("collectstatic", interactive=False, verbosity=0)
