"""Sharding Slugline's MongoDB data on a sharded cluster (storage-patterns.md,
"Scaling out"): the admin commands that shard, through a `mongos`, the collections
the apps register with their keys (`register_shard_keys` from AppConfig.ready(), as
indexes are registered): the comments app registers those of the comment store in
use (comments/stores/, each store's `shard_keys`), whichever a migration switched to.

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
  makes a form post once: comments/stores/buckets.py) on `{_id: "hashed"}`: every claim
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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pymongo import MongoClient

NOTHING_TO_SHARD = "No app registered collections to shard."
NOT_A_MONGOS = (
    "The server at {address} is not a mongos (its hello answer lacks msg: isdbgrid), "
    "so it cannot shard collections. Run shard_collections with MONGODB_URI naming a "
    "mongos router of a sharded cluster. Nothing was sent."
)


class ShardingError(Exception):
    """The collections cannot be sharded here; the message says why."""


@dataclass(frozen=True)
class ShardKey:
    """One collection's shard key; `unique` when the key is also its unique index
    (MongoDB then keeps it unique across shards)."""

    collection: str
    key: dict[str, Any]
    unique: bool = False


_providers: list[Callable[[], tuple[ShardKey, ...]]] = []


def register_shard_keys(provider: Callable[[], tuple[ShardKey, ...]]) -> None:
    """Register an app's shard keys: `provider()` gives them when the collections are
    sharded (so that an app can name those it uses then)."""
    if provider not in _providers:
        _providers.append(provider)


def shard_keys() -> list[ShardKey]:
    """Every registered shard key, in registration order."""
    return [key for provider in _providers for key in provider()]


def shard_commands(*, db_name: str, keys: list[ShardKey]) -> list[dict[str, Any]]:
    """The admin commands that shard these collections of `db_name`, in order."""
    if not keys:
        raise ShardingError(NOTHING_TO_SHARD)
    commands: list[dict[str, Any]] = [{"enableSharding": db_name}]
    for key in keys:
        command = {"shardCollection": f"{db_name}.{key.collection}", "key": dict(key.key)}
        if key.unique:
            command["unique"] = True
        commands.append(command)
    return commands


def is_mongos(hello: dict) -> bool:
    """Whether a `hello` answer comes from a mongos router (MongoDB's own test)."""
    return hello.get("msg") == "isdbgrid"


def shard_collections(*, client: MongoClient, db_name: str, keys: list[ShardKey]) -> list[dict[str, Any]]:
    """Send `shard_commands` through `client`, which must be connected to a mongos;
    ShardingError (with nothing sent) otherwise. Returns the commands sent.

    The collections' own indexes are created first, so the shard key's index is the
    one the store declares (with its name and uniqueness) rather than one the server
    makes up, which a later `ensure_indexes` would collide with.
    """
    commands = shard_commands(db_name=db_name, keys=keys)
    if not is_mongos(client.admin.command("hello")):
        host, port = client.address or ("?", "?")
        raise ShardingError(NOT_A_MONGOS.format(address=f"{host}:{port}"))
    from infra.mongo import ensure_all_indexes

    ensure_all_indexes(client[db_name])
    for command in commands:
        client.admin.command(command)
    return commands
