"""Integration tests run against the development database (tests/database.py)."""

import pytest


@pytest.fixture(autouse=True)
def _on_the_database(on_the_database):
    yield
