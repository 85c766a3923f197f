"""Sharding Slugline's MongoDB data on a sharded cluster (storage-patterns.md,
"Scaling out"): which collection is sharded on which key, and the admin commands
that do it through a `mongos`.

Every comment store keeps `discussion_id` in its shard key, so the reads of one
discussion go to one shard:
- `documents`: `comments` on `{discussion_id: 1, slug: 1}`. MongoDB enforces a
  unique index on a sharded collection only if the index starts with the shard
  key, and `{discussion_id, slug}` is unique (slugs are unique per discussion), so
  the key is exactly that index: it keeps slugs unique across shards, permalinks
  and replies find their comment on one shard, and a large discussion can still
  split between shards by slug. (`full_slug` would serve the threaded view too, but
  could not carry the unique index.)
- `buckets`: `comment_pages` on `{discussion_id: 1, page: 1}`, which is also its
  unique index (one bucket per page of a discussion); its other indexes are not
  unique. Its `comment_claims` (one small document per comment slug, whose `_id`
  makes a form post once: comments/buckets.py) on `{_id: "hashed"}`: every claim
  of one `_id` goes to one shard, so the `_id` stays unique across shards.
- `embedded`: `discussions` on their own key, `_id` (the post's `_id`), hashed:
  each discussion is one document reached by `_id`, and hashing spreads the
  ever-growing ObjectIds over the shards.

`posts` and `post_versions` stay unsharded on the database's primary shard, on
purpose: the unique index on `posts.slug` rules out `{_id: "hashed"}` (see above),
no single key serves the post pages' queries (by slug, by author, by tag, newest
published), and posts are few and small next to their comments, which are what
grows. A post page is then one targeted query to the primary shard plus the
comment queries, each targeted by `discussion_id`.

The small working collections stay unsharded on the primary shard too: the rate
limit slots and the duplicate check's text claims (`comment_rate_slots`,
`comment_recent_texts`) expire within minutes through their TTL indexes, and the
moderation log (`comment_changes`), flags and blocklist grow with editors' and
readers' actions, not with comments.

FerretDB, the development database (v2 on PostgreSQL with DocumentDB), cannot shard (it is not a `mongos`), so the
commands are built by a pure function, `shard_commands`, that the tests check, and
`shard_collections` refuses any server whose `hello` does not say it is a `mongos`.
"""

from __future__ import annotations

from typing import Any

from pymongo import MongoClient

SHARD_KEYS: dict[str, dict[str, dict[str, Any]]] = {
    "documents": {"comments": {"discussion_id": 1, "slug": 1}},
    "buckets": {"comment_pages": {"discussion_id": 1, "page": 1}, "comment_claims": {"_id": "hashed"}},
    "embedded": {"discussions": {"_id": "hashed"}},
}
# Collections whose shard key index is also their unique index.
UNIQUE_KEYS = {"comments", "comment_pages"}

UNKNOWN_STORE = "COMMENTS_STORE is {store!r}; shard keys are known for: {known}."
NOT_A_MONGOS = (
    "The server at {address} is not a mongos (its hello answer lacks msg: isdbgrid), "
    "so it cannot shard collections. Run shard_collections with MONGODB_URI naming a "
    "mongos router of a sharded cluster. Nothing was sent."
)


class ShardingError(Exception):
    """The collections cannot be sharded here; the message says why."""


def shard_commands(*, db_name: str, store: str) -> list[dict[str, Any]]:
    """The admin commands that shard `store`'s collections in `db_name`, in order."""
    if store not in SHARD_KEYS:
        raise ShardingError(UNKNOWN_STORE.format(store=store, known=", ".join(sorted(SHARD_KEYS))))
    commands: list[dict[str, Any]] = [{"enableSharding": db_name}]
    for collection, key in SHARD_KEYS[store].items():
        command = {"shardCollection": f"{db_name}.{collection}", "key": dict(key)}
        if collection in UNIQUE_KEYS:
            command["unique"] = True
        commands.append(command)
    return commands


def is_mongos(hello: dict) -> bool:
    """Whether a `hello` answer comes from a mongos router (MongoDB's own test)."""
    return hello.get("msg") == "isdbgrid"


def shard_collections(*, client: MongoClient, db_name: str, store: str) -> list[dict[str, Any]]:
    """Send `shard_commands` through `client`, which must be connected to a mongos;
    ShardingError (with nothing sent) otherwise. Returns the commands sent.

    The collections' own indexes are created first, so the shard key's index is the
    one the store declares (with its name and uniqueness) rather than one the server
    makes up, which a later `ensure_indexes` would collide with.
    """
    commands = shard_commands(db_name=db_name, store=store)
    if not is_mongos(client.admin.command("hello")):
        host, port = client.address or ("?", "?")
        raise ShardingError(NOT_A_MONGOS.format(address=f"{host}:{port}"))
    from infra.mongo import ensure_all_indexes

    ensure_all_indexes(client[db_name])
    for command in commands:
        client.admin.command(command)
    return commands
