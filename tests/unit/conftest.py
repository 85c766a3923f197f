"""Unit tests are pure: they start no server and reach no database. Any attempt to
reach MongoDB or Django's database fails the test at once."""

import pytest


@pytest.fixture(autouse=True)
def _no_mongodb(request, monkeypatch):
    if request.node.get_closest_marker("django_db"):
        pytest.fail("a unit test is marked django_db: it belongs in tests/integration/")
    from infra import mongo

    def refuse(*args, **kwargs):
        raise AssertionError("a unit test reached for MongoDB: it belongs in tests/integration/")

    monkeypatch.setattr(mongo, "get_client", refuse)
    monkeypatch.setattr(mongo, "get_db", refuse)


@pytest.fixture
def db():
    pytest.fail("a unit test asked for Django's database: it belongs in tests/integration/")


@pytest.fixture
def mongo_database():
    """tests/database.py's session database (behind mongo_db, each_store and the
    builders): set up before any autouse fixture could refuse it, so refused here."""
    pytest.fail("a unit test asked for the MongoDB test database: it belongs in tests/integration/")
