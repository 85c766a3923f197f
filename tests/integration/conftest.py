"""Integration tests run against the development database (tests/database.py), with
Django's database open to each (a stranger's comment checks its name against the
members' display names, accounts.Profile, so posting reads it)."""

import pytest
from django.utils import translation


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/integration/" in str(item.path).replace("\\", "/") and item.get_closest_marker("django_db") is None:
            item.add_marker(pytest.mark.django_db)


@pytest.fixture(autouse=True)
def _on_the_database(on_the_database):
    yield


@pytest.fixture(autouse=True)
def _in_the_sites_language():
    """Each test ends in the site's language: a request through the test client
    leaves the language it was served in active in the test's thread (LocaleMiddleware
    activates it and nothing deactivates it), and a later test's gettext spoke it
    ("[dihapus]" for "[deleted]" after a page in Indonesian)."""
    yield
    translation.deactivate()
