"""tests/written.py: the collections a test wrote are the ones emptied after it, and
whatever it cannot see makes the emptying take every collection."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.written import WRITTEN


@pytest.fixture
def fresh(mongo_db):
    WRITTEN.empty(mongo_db)  # what earlier fixtures wrote
    yield mongo_db
    for name in ("written_a", "written_b", "written_c", "written_copy"):  # what take() forgot
        mongo_db.drop_collection(name)


def test_the_collections_written_are_named_and_only_they(fresh):
    fresh["written_a"].insert_one({"n": 1})
    fresh["written_b"].update_one({"n": 1}, {"$set": {"n": 2}}, upsert=True)
    fresh["written_c"].find_one_and_delete({"n": 1})
    fresh["written_d"].find_one({})
    list(fresh["written_d"].aggregate([{"$match": {}}]))
    assert WRITTEN.take(fresh.name) == {"written_a", "written_b", "written_c"}
    assert WRITTEN.take(fresh.name) == set()


def test_emptying_removes_what_was_written_and_does_not_count_its_own_deletes(fresh):
    fresh["written_a"].insert_many([{"n": 1}, {"n": 2}])
    WRITTEN.empty(fresh)
    assert fresh["written_a"].count_documents({}) == 0
    assert WRITTEN.take(fresh.name) == set()


def test_an_aggregation_that_writes_out_makes_every_collection_suspect(fresh):
    fresh["written_a"].insert_one({"n": 1})
    list(fresh["written_a"].aggregate([{"$match": {}}, {"$out": "written_copy"}]))
    assert WRITTEN.take(fresh.name) is None


def test_a_process_started_during_the_test_makes_every_collection_suspect(fresh):
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    assert WRITTEN.take(fresh.name) is None
    assert WRITTEN.take(fresh.name) == set()


def test_a_running_child_that_names_the_database_makes_every_collection_suspect(fresh):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", fresh.name])
    try:
        WRITTEN.take(fresh.name)  # the start itself
        assert WRITTEN.take(fresh.name) is None
    finally:
        child.kill()
        child.wait()
    WRITTEN.take(fresh.name)
    assert WRITTEN.take(fresh.name) == set()
