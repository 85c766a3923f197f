"""Integration tests run against the development database (tests/database.py), with
Django's database open to each (a stranger's comment checks its name against the
members' display names, accounts.Profile, so posting reads it)."""

import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/integration/" in str(item.path).replace("\\", "/") and item.get_closest_marker("django_db") is None:
            item.add_marker(pytest.mark.django_db)


@pytest.fixture(autouse=True)
def _on_the_database(on_the_database):
    yield
