"""Writes the request's budget cuts short on the real server are outages (the site's
503), never bugs (a 500): FerretDB answers an update whose maxTimeMS runs out with a
write error coded PostgreSQL's query_canceled, not MaxTimeMSExpired (a CI run of
tests/integration/comments/test_counters_http.py answered one 500 so)."""

import pymongo
import pytest
from pymongo.errors import PyMongoError, WriteError

from infra import mongo

SLOW = {"s": {"$regex": "^z"}}  # matches nothing: the update scans every document


@pytest.fixture
def things(mongo_db):
    mongo_db.budget_cuts.insert_many([{"n": n, "s": "x" * 200} for n in range(20_000)])
    yield mongo_db.budget_cuts
    mongo_db.budget_cuts.drop()


@pytest.mark.parametrize("write", ["update_one", "update_many", "upsert"])
def test_an_update_cut_short_by_the_budget_is_an_outage(things, write):
    run = {
        "update_one": lambda: things.update_one(SLOW, {"$set": {"a": 1}}),
        "update_many": lambda: things.update_many(SLOW, {"$set": {"a": 1}}),
        "upsert": lambda: things.update_one({**SLOW, "n": -1}, {"$set": {"a": 1}}, upsert=True),
    }[write]
    errors = []
    for budget_ms in [2, 4, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50] * 2:
        try:
            with pymongo.timeout(budget_ms / 1000):
                run()
        except PyMongoError as exc:
            errors.append(exc)
    cut_by_the_server = [e for e in errors if isinstance(e, WriteError)]
    assert cut_by_the_server, f"no budget let the server start the update: {errors}"
    assert [e for e in errors if not mongo.is_outage(e)] == []
