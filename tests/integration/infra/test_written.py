"""tests/written.py: the collections a test wrote are the ones emptied after it, and
whatever it cannot see makes the emptying take every collection."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest
from pymongo import MongoClient

from tests.written import SERVES, _a_child_may_write, registered


# A Written of this module's own (no child counted: another module's running child
# must not decide its answers), registered once, before the clients it watches.
WATCHER = registered(children=lambda db_name, test: False)


@pytest.fixture
def watched(mongo_db):
    """The module's Written, its record taken clean, and a database seen through a
    client made after it."""
    client = MongoClient(mongo_db.client.address[0], mongo_db.client.address[1])
    db = client[mongo_db.name]
    WATCHER.take(db.name)
    yield WATCHER, db
    for name in ("written_a", "written_b", "written_c", "written_copy"):
        db.drop_collection(name)
    client.close()


def test_the_collections_written_are_named_and_only_they(watched):
    written, db = watched
    db["written_a"].insert_one({"n": 1})
    db["written_b"].update_one({"n": 1}, {"$set": {"n": 2}}, upsert=True)
    db["written_c"].find_one_and_delete({"n": 1})
    db["written_d"].find_one({})
    list(db["written_d"].aggregate([{"$match": {}}]))
    assert written.take(db.name) == {"written_a", "written_b", "written_c"}
    assert written.take(db.name) == set()


def test_emptying_removes_what_was_written_and_does_not_count_its_own_deletes(watched):
    written, db = watched
    db["written_a"].insert_many([{"n": 1}, {"n": 2}])
    written.empty(db)
    assert db["written_a"].count_documents({}) == 0
    assert written.take(db.name) == set()


def test_an_aggregation_that_writes_out_makes_every_collection_suspect(watched):
    written, db = watched
    db["written_a"].insert_one({"n": 1})
    list(db["written_a"].aggregate([{"$match": {}}, {"$out": "written_copy"}]))
    assert written.take(db.name) is None


def test_a_process_started_during_the_test_makes_every_collection_suspect(watched):
    written, db = watched
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    assert written.take(db.name) is None
    assert written.take(db.name) == set()


def test_a_running_child_that_names_the_database_is_found():
    name = f"written_probe_{uuid.uuid4().hex}"
    assert not _a_child_may_write(name)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", name])
    try:
        assert _a_child_may_write(name)
    finally:
        child.kill()
        child.wait()
    assert not _a_child_may_write(name)


def test_a_child_that_serves_one_folder_of_tests_counts_only_for_those_tests(tmp_path):
    """The browser tier's site: a child naming the database that only the tests under a
    folder talk to may have written for those tests, not for a test elsewhere."""
    name = f"written_probe_{uuid.uuid4().hex}"
    browser = tmp_path / "browser"
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"],
                             env={**os.environ, "MONGODB_NAME": name, SERVES: str(browser)})
    try:
        assert _a_child_may_write(name, str(browser / "test_reading.py"))
        assert not _a_child_may_write(name, str(tmp_path / "integration" / "test_reading.py"))
        assert not _a_child_may_write(name, str(tmp_path / "browser_extra" / "test_reading.py"))
        assert _a_child_may_write(name)  # with no test named, any child that names it might
    finally:
        child.kill()
        child.wait()
