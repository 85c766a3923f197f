"""Scratch gunicorn sites for the tests (bench/harness.py's Site) made without paying
for `migrate` and `collectstatic` each time: the session migrates one Django database
and collects the static files once (`site_template`), and each site starts from a copy
of that database with the collected files as its STATIC_ROOT (a plugin of
tests/conftest.py). A copy of a migrated SQLite file is the database `migrate` would
make (the migrations write only to it, never to MongoDB)."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.harness import Site


@dataclass(frozen=True)
class SiteTemplate:
    """A migrated Django database and the collected static files, made once a session."""

    folder: Path

    @property
    def database(self) -> Path:
        return self.folder / "db.sqlite3"

    @property
    def static(self) -> Path:
        return self.folder / "static"

    def site(self, *, workers: int, **extra_env: str) -> Site:
        """A Site on the session's MongoDB database with a migrated Django database of
        its own (a copy) and the collected files; `extra_env` goes to every process it starts."""
        from django.conf import settings

        site = Site(mongodb_uri=settings.MONGODB_URI, name=settings.MONGODB_NAME, workers=workers,
                    extra_env={"STATIC_ROOT": str(self.static), **extra_env}, collected=True)
        shutil.copyfile(self.database, site.workdir / "db.sqlite3")
        return site


@pytest.fixture(scope="session")
def site_template(mongo_database):
    """The session's SiteTemplate, removed at the end."""
    from django.conf import settings

    folder = Path(tempfile.mkdtemp(prefix="slugline-site-template-"))
    maker = Site(mongodb_uri=settings.MONGODB_URI, name=settings.MONGODB_NAME, workdir=folder)
    try:
        maker.manage("migrate", "--noinput", "-v0")
        maker.manage("collectstatic", "--noinput", "-v0")
        yield SiteTemplate(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
