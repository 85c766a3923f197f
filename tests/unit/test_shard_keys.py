"""Shard keys and the commands that shard each store's collections (infra/sharding.py), computed without a server."""

from __future__ import annotations

import re
import sys

import pytest

from comments.stores import get_store
from infra import sharding


def commands_for(store: str, db_name: str) -> list[dict]:
    return sharding.shard_commands(db_name=db_name, keys=list(get_store(store).shard_keys))


def test_the_documents_store_shards_comments_on_discussion_and_slug():
    """enableSharding, then comments on {discussion_id: 1, slug: 1}, unique, in that order."""
    assert commands_for("documents", "slugline") == [
        {"enableSharding": "slugline"},
        {"shardCollection": "slugline.comments", "key": {"discussion_id": 1, "slug": 1}, "unique": True},
    ]


def test_command_names_come_first_and_key_fields_keep_their_order():
    """MongoDB reads a command's name from its first field, and a shard key in field order."""
    commands = commands_for("documents", "slugline")
    assert [next(iter(c)) for c in commands] == ["enableSharding", "shardCollection"]
    assert list(commands[1]["key"]) == ["discussion_id", "slug"]


def test_the_bucket_store_shards_comment_pages_on_discussion_and_page():
    """Buckets: comment_pages on {discussion_id: 1, page: 1}, unique like its index;
    the slug claims on their own hashed _id, which keeps each claim on one shard."""
    assert commands_for("buckets", "blog")[1:] == [
        {"shardCollection": "blog.comment_pages", "key": {"discussion_id": 1, "page": 1}, "unique": True},
        {"shardCollection": "blog.comment_claims", "key": {"_id": "hashed"}},
    ]


def test_the_embedded_store_shards_discussions_on_their_own_hashed_key():
    """Embedded: each discussion document by its own _id, hashed."""
    assert commands_for("embedded", "blog")[1:] == [
        {"shardCollection": "blog.discussions", "key": {"_id": "hashed"}},
    ]


@pytest.mark.parametrize("name", ["documents", "embedded", "buckets"])
def test_every_store_keeps_the_discussion_in_its_shard_key(name):
    """One discussion's reads go to one shard: discussion_id (or the discussion's own _id) leads."""
    for key in get_store(name).shard_keys:
        assert next(iter(key.key)) in ("discussion_id", "_id"), (name, key.collection)


@pytest.mark.parametrize("name,collection", [("documents", "comments"), ("buckets", "comment_pages")])
def test_each_unique_index_of_a_sharded_store_is_its_shard_key(name, collection):
    """MongoDB enforces a unique index on a sharded collection only when the shard key
    prefixes it; each store's unique index is exactly its key (sharded with unique: true)."""
    [key] = [k for k in get_store(name).shard_keys if k.collection == collection]
    module = sys.modules[type(get_store(name)).__module__]
    unique = [model.document for model in module.INDEXES if model.document.get("unique")]
    assert [list(index["key"].items()) for index in unique] == [list(key.key.items())]
    assert key.unique


def test_nothing_registered_is_refused():
    """Without shard keys there is nothing to shard: an error, not an empty run."""
    with pytest.raises(sharding.ShardingError, match=re.escape(sharding.NOTHING_TO_SHARD)):
        sharding.shard_commands(db_name="slugline", keys=[])


def test_hello_from_a_mongos_is_recognised():
    """Only msg: isdbgrid marks a mongos."""
    assert sharding.is_mongos({"isWritablePrimary": True, "msg": "isdbgrid"})
    assert not sharding.is_mongos({"isWritablePrimary": True, "setName": "rs0"})
