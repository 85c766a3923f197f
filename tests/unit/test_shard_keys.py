"""Shard keys and the commands that shard each store's collections (infra/sharding.py),
checked without a server: each key is one MongoDB and DocumentDB both accept, each
unique index keeps the rule both engines enforce, and no write path on a sharded
collection lacks what the engines need to route it (infra/shard_writes.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pymongo import ASCENDING, IndexModel

from comments.stores import STORES, get_store
from infra import sharding
from infra.shard_writes import project_problems, write_problems

REPO = Path(__file__).resolve().parents[2]
# Every package whose code writes to MongoDB, the tests and benchmarks included (the
# suite runs on the development cluster too: make test-cluster).
PACKAGES = ["comments", "cms", "dashboard", "infra", "slugline", "tests", "bench"]


def store_keys() -> list[sharding.ShardKey]:
    return [key for name in STORES for key in get_store(name).shard_keys]


def every_key() -> list[sharding.ShardKey]:
    """Every store's keys and the other keys the apps register (discussion state, branch
    rules, pictures' chunks)."""
    from comments.moderation import branches
    from comments.stores import discussion_state
    from media import library

    return store_keys() + [*discussion_state.SHARD_KEYS, *branches.SHARD_KEYS, *library.SHARD_KEYS]


def sharded_fields() -> dict[str, list[str]]:
    return {key.collection: key.field_names() for key in every_key()}


def commands_for(store: str, db_name: str) -> list[dict]:
    return sharding.shard_commands(db_name=db_name, keys=list(get_store(store).shard_keys))


def test_the_documents_store_shards_comments_on_the_hashed_discussion():
    """One shardCollection (MongoDB 6.0+ needs no enableSharding): comments on {discussion_id: "hashed"}."""
    assert commands_for("documents", "slugline") == [
        {"shardCollection": "slugline.comments", "key": {"discussion_id": "hashed"}},
    ]


def test_command_names_come_first():
    """MongoDB reads a command's name from its first field."""
    assert [next(iter(c)) for c in commands_for("buckets", "slugline")] == ["shardCollection"] * 2


def test_the_bucket_store_shards_pages_on_the_discussion_and_claims_on_their_id():
    assert commands_for("buckets", "blog") == [
        {"shardCollection": "blog.comment_pages", "key": {"discussion_id": "hashed"}},
        {"shardCollection": "blog.comment_claims", "key": {"_id": "hashed"}},
    ]


def test_the_embedded_store_shards_discussions_on_their_own_hashed_key():
    assert commands_for("embedded", "blog") == [
        {"shardCollection": "blog.discussions", "key": {"_id": "hashed"}},
    ]


@pytest.mark.parametrize("name", sorted(STORES))
def test_every_store_keeps_a_discussion_on_one_shard(name):
    """The key is the discussion (discussion_id) or the discussion's own document (_id),
    or a claim's _id (which names its discussion)."""
    for key in get_store(name).shard_keys:
        assert key.field_names() in (["discussion_id"], ["_id"]), (name, key.collection)


@pytest.mark.parametrize("key", every_key(), ids=lambda key: key.collection)
def test_every_key_and_unique_index_is_one_both_engines_accept(key):
    """One hashed field (DocumentDB takes hashed keys only), and every unique index the
    store declares starts with the key's field (MongoDB's rule; DocumentDB then
    enforces it across shards, since it enforces it per shard-key value)."""
    assert sharding.check_key(key) == []


def test_the_stores_declare_their_unique_indexes_with_their_keys():
    """The check sees the indexes the stores create: the slug and page indexes."""
    unique = {key.collection: [i.document["name"] for i in key.indexes if i.document.get("unique")]
              for key in store_keys()}
    assert unique == {"comments": ["discussion_slug"], "comment_pages": ["discussion_page"],
                      "comment_claims": [], "discussions": []}


def test_a_ranged_or_compound_key_is_refused():
    assert "not one hashed field" in sharding.check_key(sharding.ShardKey("c", {"discussion_id": 1, "slug": 1}))[0]
    assert sharding.check_key(sharding.ShardKey("c", {"a": "hashed", "b": "hashed"}))


def test_a_unique_index_the_key_does_not_prefix_is_refused():
    """MongoDB refuses it; DocumentDB would accept it silently and enforce it per shard."""
    indexes = (
        IndexModel([("discussion_id", ASCENDING), ("slug", ASCENDING)], unique=True, name="fine"),
        IndexModel([("slug", ASCENDING)], unique=True, name="slug_alone"),
        IndexModel([("_id", ASCENDING), ("x", ASCENDING)], unique=True, name="id_led"),
        IndexModel([("author.email", ASCENDING)], name="not_unique"),
    )
    problems = sharding.check_key(sharding.ShardKey("comments", {"discussion_id": "hashed"}, indexes=indexes))
    assert [re.search(r"unique index (\S+)", p).group(1) for p in problems] == ["slug_alone", "id_led"]


def test_no_write_path_on_a_sharded_collection_lacks_its_key():
    """Single updates, deletes and replaces name _id or the shard key; find-and-modify
    and upserts the shard key (what a mongos and DocumentDB need to route them)."""
    assert [str(p) for p in project_problems(REPO, PACKAGES, sharded_fields())] == []


def test_the_write_check_finds_what_the_engines_refuse():
    """The check is not blind: each refused form is reported, the accepted ones are not."""
    source = '''
from infra.mongo import get_db

def _pages():
    return get_db().comment_pages

class Store:
    def _collection(self):
        return _pages()

    def writes(self, discussion_id, claim_id, query):
        self._collection().update_one({"page": 1}, {"$set": {"x": 1}})
        pages = self._collection().with_options(write_concern=None)
        pages.find_one_and_update({"_id": claim_id}, {"$set": {"x": 1}})
        get_db().comments.update_many({"status": "spam"}, {"$set": {"x": 1}}, upsert=True)
        get_db()["discussions"].delete_one({"slug": "a"})
        get_db().comments.update_one(query, {"$set": {"x": 1}})
        get_db().comments.bulk_write([UpdateOne({"slug": "a"}, {"$set": {"x": 1}})])
        fine = {"discussion_id": discussion_id, "page": 2}
        pages.find_one_and_delete(fine)
        pages.update_one({"_id": claim_id}, {"$set": {"x": 1}})
        get_db().comments.update_many({"status": "spam"}, {"$set": {"x": 1}})
        get_db().posts.update_one({}, {"$set": {"x": 1}})
'''
    problems = write_problems(source, "example.py", sharded_fields())
    assert [(p.line, p.method) for p in problems] == [
        (12, "update_one"), (14, "find_one_and_update"), (15, "update_many"), (16, "delete_one"),
        (17, "update_one"), (18, "update_one"),
    ]
    assert "not a dict literal" in problems[4].reason


def test_nothing_registered_is_refused():
    """Without shard keys there is nothing to shard: an error, not an empty run."""
    with pytest.raises(sharding.ShardingError, match=re.escape(sharding.NOTHING_TO_SHARD)):
        sharding.shard_commands(db_name="slugline", keys=[])


def test_hello_from_a_mongos_is_recognised():
    """Only msg: isdbgrid marks a mongos."""
    assert sharding.is_mongos({"isWritablePrimary": True, "msg": "isdbgrid"})
    assert not sharding.is_mongos({"isWritablePrimary": True, "setName": "rs0"})
