"""The process's MongoDB client and the index registry."""

import os

from infra import mongo


def test_ensure_indexes_can_run_again(mongo_db):
    """A second run creates nothing new and fails on nothing."""
    first = mongo.ensure_all_indexes(mongo_db)
    again = mongo.ensure_all_indexes(mongo_db)
    assert first == again
    assert {"discussion_slug", "slug_unique"} <= set(first)


def test_the_client_is_shared_within_a_process():
    """Every call in one process gets the same client."""
    assert mongo.get_client() is mongo.get_client()


def test_a_forked_process_gets_its_own_client(monkeypatch):
    """A gunicorn worker (another pid) never reuses its parent's client."""
    parent = mongo.get_client()
    monkeypatch.setattr(os, "getpid", lambda: -1)
    assert mongo.get_client() is not parent


def test_the_client_has_explicit_time_budgets(settings):
    """Server selection, connect and operation budgets come from settings."""
    options = mongo.get_client().options
    assert options.server_selection_timeout == settings.MONGODB_SERVER_SELECTION_TIMEOUT_MS / 1000
    assert options.pool_options.connect_timeout == settings.MONGODB_CONNECT_TIMEOUT_MS / 1000
    assert options.pool_options.socket_timeout == settings.MONGODB_SOCKET_TIMEOUT_MS / 1000
    assert options.timeout == ((settings.MONGODB_TIMEOUT_MS / 1000) or None)


def test_each_index_owner_creates_its_indexes_in_one_command(mongo_db, commands):
    """One createIndexes per collection, however many indexes it declares."""
    mongo.ensure_all_indexes(mongo_db)
    created = [sent["createIndexes"] for sent in commands.sent if "createIndexes" in sent]
    assert len(created) == len(set(created))  # no collection asked twice
    assert len(created) >= len(mongo._INDEX_OWNERS)  # every owner asked for its own


def test_replace_indexes_drops_the_retired_ones_it_finds_and_keeps_what_it_declares(mongo_db):
    """An existing database sheds an owner's retired indexes on its next ensure_indexes;
    a retired name the owner declares again, and one never made, are no matter."""
    from pymongo import ASCENDING, IndexModel

    scratch = mongo_db["test_replace_indexes"]
    scratch.drop()
    try:
        scratch.create_index([("old", ASCENDING)], name="old")
        declared = [IndexModel([("new", ASCENDING)], name="new"), IndexModel([("kept", ASCENDING)], name="kept")]
        for _ in range(2):  # again: nothing left to drop, nothing fails
            assert mongo.replace_indexes(scratch, declared, retired=("old", "kept", "never")) == ["new", "kept"]
            assert set(scratch.index_information()) == {"_id_", "new", "kept"}
    finally:
        scratch.drop()


def test_replace_indexes_makes_again_an_index_declared_otherwise_under_its_name(mongo_db, caplog):
    """An index an earlier release made under a name now declared with other keys or
    another partial filter is dropped and made as declared (the server refuses to
    create it over the old one), and the log says so; a second run finds them as
    declared and leaves them alone."""
    from pymongo import ASCENDING, DESCENDING, IndexModel

    scratch = mongo_db["test_replace_changed_indexes"]
    scratch.drop()
    try:
        scratch.create_index([("flag_count", DESCENDING)], name="queue_flagged")
        scratch.create_index([("status", ASCENDING)], name="queue_held", partialFilterExpression={"status": {"$gt": "a"}})
        declared = [IndexModel([("flag_count", DESCENDING), ("posted", DESCENDING)], name="queue_flagged",
                               partialFilterExpression={"flag_count": {"$gt": 0}}),
                    IndexModel([("status", ASCENDING)], name="queue_held",
                               partialFilterExpression={"status": {"$gte": "pending"}})]
        for remade in (["queue_flagged", "queue_held"], []):
            caplog.clear()
            mongo.replace_indexes(scratch, declared)
            assert [record.args[0] for record in caplog.records if record.name == "infra.mongo"] == remade
            info = scratch.index_information()
            assert info["queue_flagged"]["key"] == [("flag_count", -1), ("posted", -1)]
            assert info["queue_held"]["partialFilterExpression"] == {"status": {"$gte": "pending"}}
            assert all(mongo.same_index(model, info[model.document["name"]]) for model in declared)
    finally:
        scratch.drop()


def test_the_comments_indexes_are_made_as_declared(mongo_db):
    """Every index of the documents store, as the server reports it, is the one
    declared (else every release would drop and make it again)."""
    from comments.stores.documents import INDEXES

    info = mongo_db.comments.index_information()
    assert all(mongo.same_index(model, info[model.document["name"]]) for model in INDEXES)
