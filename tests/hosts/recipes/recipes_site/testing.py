"""The host project's test fixtures (a plugin, -p in pytest.ini): a MongoDB database of
its own for the session (MONGODB_URI from the environment, as `make test` gives it),
dropped at the end, and its collections emptied after each check."""

import uuid

import pytest


@pytest.fixture(scope="session")
def mongo_database():
    from django.conf import settings

    from infra import mongo

    settings.MONGODB_NAME = f"recipes_test_{uuid.uuid4().hex[:12]}"
    mongo.reset_client()
    db = mongo.get_db()
    mongo.ensure_all_indexes(db)
    yield db
    mongo.get_client().drop_database(settings.MONGODB_NAME)
    mongo.reset_client()


@pytest.fixture(autouse=True)
def _on_the_database(mongo_database, db):
    from django.core.cache import cache

    cache.clear()
    yield
    for name in mongo_database.list_collection_names():
        mongo_database[name].delete_many({})
