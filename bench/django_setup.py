"""Django set up for a benchmark's own process: the site's settings (unless
DJANGO_SETTINGS_MODULE says), and Django's database (var/db.sqlite3, or DATABASE_URL's)
migrated as `make run` migrates it, so that a benchmark runs from a fresh clone too."""

from __future__ import annotations

import os


def setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "slugline.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
