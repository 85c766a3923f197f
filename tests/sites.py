"""Scratch gunicorn sites for the tests (bench/harness.py's Site) made without paying
for `migrate` and `collectstatic` each time: the session migrates one Django database
and collects the static files once (`site_template`), and each site starts from a copy
of that database with the collected files as its STATIC_ROOT (a plugin of
tests/conftest.py). A copy of a migrated SQLite file is the database `migrate` would
make (the migrations write only to it, never to MongoDB).

A module whose tests run once per comment store against its site starts one site for
every store (`running(..., every_store=True)`): the store it uses is the switch record
(comments/stores/store_switch.py), which that site reads on every request, and which
`site_store` writes before each test (the collection is emptied after it)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.harness import Site
from tests.database import TEST_STORES


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

    @contextmanager
    def running(self, *, workers: int, every_store: bool = False, before: tuple[tuple[str, ...], ...] = (),
                **env: str) -> Iterator[Site]:
        """A site started with `env` (after the manage.py commands `before`), stopped and
        removed at the end. With `every_store`, every store's indexes are made and the
        site reads which store is in use on every request (tests ask for `site_store`)."""
        from comments.stores import get_store
        from infra import mongo

        if every_store:
            for name in TEST_STORES:
                get_store(name).ensure_indexes(mongo.get_db())
            env = {"COMMENTS_STORE_RECHECK_SECONDS": "0", **env}
        site = self.site(workers=workers)
        try:
            for command in before:
                site.manage(*command)
            site.start(**env)
            yield site
        finally:
            site.stop()
            shutil.rmtree(site.workdir, ignore_errors=True)


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


@pytest.fixture(params=TEST_STORES)
def site_store(request, settings, mongo_database):
    """Runs the test once per comment store, which is the store in use both in this
    process and in a site `running(..., every_store=True)`: the setting here, the switch
    record for the site. Gives the store's name."""
    from comments.stores import store_switch

    settings.COMMENTS_STORE = request.param
    store_switch.switch(target=request.param)
    yield request.param
    store_switch.forget()  # the record is emptied after the test: not to be remembered here
