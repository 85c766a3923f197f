"""Sharding Slugline's MongoDB data on a sharded cluster (storage-patterns.md,
"Scaling out"): sharding, on a `mongos` or on the development cluster, the collections
the apps register with their keys (`register_shard_keys` from AppConfig.ready(), as
indexes are registered): the comments app registers those of the comment store in
use (comments/stores/, each store's `shard_keys`), whichever a migration switched to.

Every sharded collection is on a key that both MongoDB and DocumentDB (the engine of
the development cluster, devdb/cluster.py, and of Azure Cosmos DB for MongoDB
vCore) accept: one field, hashed (DocumentDB takes hashed keys only; MongoDB allows one
hashed field per key). The comment stores key on the discussion, so a discussion's
reads go to one shard:
- `documents`: `comments` on `{discussion_id: "hashed"}`. Its unique
  `{discussion_id: 1, slug: 1}` index starts with the key's field, which MongoDB's
  rule asks of a unique index on a sharded collection (the shard key's field names a
  prefix of the index's), and DocumentDB enforces a unique index per shard-key value,
  so slugs stay unique per discussion across shards. A discussion never splits.
- `buckets`: `comment_pages` on `{discussion_id: "hashed"}` (its unique
  `{discussion_id: 1, page: 1}` likewise), and `comment_claims` (one small document per
  comment slug, whose `_id` makes a form post once: comments/stores/buckets.py) on
  `{_id: "hashed"}`: every claim of one `_id` goes to one shard, so it stays unique.
- `embedded`: `discussions` on their own key, `_id` (the post's `_id`), hashed.

`check_key` says what either engine would refuse or enforce only per shard: a key
that is not one hashed field, a unique index the key does not prefix.

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

How each engine shards (`shard_collections`): through a `mongos`, MongoDB's
`shardCollection` (6.0 and newer need no `enableSharding`); on this checkout's
development cluster, whose FerretDB has no `shardCollection`, DocumentDB's SQL function
`documentdb_api.shard_collection` on the coordinator, found from the cluster's own
records under `var/`. Any other server (the single-node dev database) is refused.
Collections already sharded on their key are left as they are, so a rerun does nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pymongo import MongoClient

NOTHING_TO_SHARD = "No app registered collections to shard."
NOT_A_MONGOS = (
    "The server at {address} is not a mongos (its hello answer lacks msg: isdbgrid) nor this "
    "checkout's development cluster (make devdb-cluster), so it cannot shard collections. Run "
    "shard_collections with MONGODB_URI naming a mongos router of a sharded cluster, or the "
    "development cluster. Nothing was sent."
)
HASHED = "hashed"


class ShardingError(Exception):
    """The collections cannot be sharded here; the message says why."""


@dataclass(frozen=True)
class ShardKey:
    """One collection's shard key, and the indexes its owner declares on that
    collection (pymongo IndexModels), which must agree with the key (`check_key`)."""

    collection: str
    key: dict[str, Any]
    indexes: tuple[Any, ...] = field(default=(), compare=False)

    def field_names(self) -> list[str]:
        return list(self.key)


def check_key(key: ShardKey) -> list[str]:
    """What MongoDB or DocumentDB would refuse in this key, or enforce only per shard:
    [] when both engines accept it as it is.

    - The key: DocumentDB takes hashed keys only, MongoDB one hashed field per key, so
      one field, hashed.
    - Each unique index: MongoDB accepts it only if the key's field names are a prefix
      of the index's (ShardKeyPattern::isUniqueIndexCompatible; `_id`-led indexes aside,
      which it then enforces per shard); DocumentDB accepts any, silently, and enforces
      it per shard-key value. An index the key prefixes is unique across shards on
      both; no other is. A hashed index cannot be unique on either.
    """
    name = key.collection
    problems = []
    if len(key.key) != 1 or any(value != HASHED for value in key.key.values()):
        problems.append(
            f"{name}: shard key {json.dumps(key.key)} is not one hashed field; DocumentDB accepts "
            f"hashed keys only and MongoDB one hashed field per key (e.g. {{\"discussion_id\": \"hashed\"}})."
        )
    for index in key.indexes:
        document = getattr(index, "document", index)
        if not document.get("unique"):
            continue
        fields = list(document["key"])
        index_name = document.get("name", "_".join(fields))
        if any(value == HASHED for value in document["key"].values()):
            problems.append(f"{name}: unique index {index_name} is hashed; "
                            "no engine enforces a unique hashed index.")
        elif fields[:len(key.key)] != key.field_names():
            problems.append(
                f"{name}: unique index {index_name} on {fields} does not start with the shard key's "
                f"fields {key.field_names()}; MongoDB refuses it on a sharded collection and DocumentDB "
                f"would enforce it only per shard-key value (not unique across shards)."
            )
    return problems


_providers: list[Callable[[], tuple[ShardKey, ...]]] = []


def register_shard_keys(provider: Callable[[], tuple[ShardKey, ...]]) -> None:
    """Register an app's shard keys: `provider()` gives them when the collections are
    sharded (so that an app can name those it uses then)."""
    if provider not in _providers:
        _providers.append(provider)


_around_moves: list[tuple[Callable[[], list[str]], Callable[[], list[str]]]] = []


def register_moves(*, before: Callable[[], list[str]], after: Callable[[], list[str]]) -> None:
    """Register what an app does around a move of shards (`rebalance_shards`): on
    DocumentDB with Citus a write that reaches a shard while it is copied may be lost
    (docs/dev-cluster.md). `before()` runs before the first shard moves (holding the
    app's writes), `after()` once they moved or the move failed (taking them again,
    putting right what it derives); each gives a line for each thing it did."""
    if (before, after) not in _around_moves:
        _around_moves.append((before, after))


def before_moves() -> list[str]:
    """Every registered `before`, in registration order; their lines."""
    return [line for before, _ in _around_moves for line in before()]


def after_moves() -> list[str]:
    """Every registered `after`, in registration order; their lines."""
    return [line for _, after in _around_moves for line in after()]


def shard_keys() -> list[ShardKey]:
    """Every registered shard key, in registration order."""
    return [key for provider in _providers for key in provider()]


def shard_commands(*, db_name: str, keys: list[ShardKey]) -> list[dict[str, Any]]:
    """The admin commands that shard these collections of `db_name` on a mongos, in order
    (MongoDB 6.0 and newer shard a collection without `enableSharding` first)."""
    if not keys:
        raise ShardingError(NOTHING_TO_SHARD)
    return [{"shardCollection": f"{db_name}.{key.collection}", "key": dict(key.key)} for key in keys]


def is_mongos(hello: dict) -> bool:
    """Whether a `hello` answer comes from a mongos router (MongoDB's own test)."""
    return hello.get("msg") == "isdbgrid"


class Engine(Protocol):
    """How one kind of server shards a collection."""

    def current_key(self, db_name: str, collection: str) -> dict[str, Any] | None: ...

    def shard(self, db_name: str, key: ShardKey) -> None: ...

    def place_unsharded(self, db_name: str) -> str | None: ...


class Mongos:
    """A MongoDB sharded cluster, through its router."""

    def __init__(self, client: MongoClient):
        self.client = client

    def current_key(self, db_name: str, collection: str) -> dict[str, Any] | None:
        found = self.client.config.collections.find_one(
            {"_id": f"{db_name}.{collection}", "dropped": {"$ne": True}})
        return dict(found["key"]) if found else None

    def shard(self, db_name: str, key: ShardKey) -> None:
        [command] = shard_commands(db_name=db_name, keys=[key])
        self.client.admin.command(command)

    def place_unsharded(self, db_name: str) -> str | None:
        """Nothing: a sharded cluster picks each database's primary shard itself, and
        an operator moves it with `movePrimary` (deploy.md, "Sharding")."""
        return None


class DevCluster:
    """The development cluster (devdb/cluster.py): DocumentDB's SQL function on
    its coordinator, since FerretDB has no `shardCollection`."""

    def __init__(self, cluster: Any):
        self.cluster = cluster

    def current_key(self, db_name: str, collection: str) -> dict[str, Any] | None:
        found = self.cluster.sql("coordinator", (
            "SELECT documentdb_core.bson_to_json_string(shard_key) FROM documentdb_api_catalog.collections "
            f"WHERE database_name = {_literal(db_name)} AND collection_name = {_literal(collection)}"
        ), fetch=True).strip()
        return json.loads(found) if found else None

    def shard(self, db_name: str, key: ShardKey) -> None:
        self.cluster.sql("coordinator", (
            f"SELECT documentdb_api.shard_collection({_literal(db_name)}, {_literal(key.collection)}, "
            f"{_literal(json.dumps(key.key))}::documentdb_core.bson, false)"
        ))

    def place_unsharded(self, db_name: str) -> str | None:
        from devdb.cluster_ops import keep_primary_on_coordinator

        moved_from = keep_primary_on_coordinator(self.cluster, db_name)
        return (f"Moved {db_name}'s unsharded collections from {moved_from} to the coordinator."
                if moved_from else None)


def _literal(text: str) -> str:
    """A PostgreSQL string literal (standard_conforming_strings is on by default)."""
    if "\x00" in text:
        raise ShardingError("a database or collection name holds a NUL character")
    return "'" + text.replace("'", "''") + "'"


def engine_for(client: MongoClient) -> Engine | None:
    """How the server behind `client` shards: a mongos, this checkout's development
    cluster, or None (a server that cannot shard, such as the single-node dev database)."""
    if is_mongos(client.admin.command("hello")):
        return Mongos(client)
    from devdb.cluster import find_cluster

    cluster = find_cluster(client.address)
    return DevCluster(cluster) if cluster else None


def node_health(client: MongoClient, *, timeout_s: float) -> dict[str, str] | None:
    """Each node of this checkout's development cluster behind `client` ("ok" or
    "unavailable", by its name: coordinator, worker1, ...), within about `timeout_s`; None
    on any other server (a MongoDB sharded cluster's shards are watched by its own
    monitoring: deploy.md, "Sharding")."""
    try:
        from devdb.cluster import find_cluster
        from devdb.cluster_ops import node_health as ask_nodes
    except ImportError:
        return None
    cluster = find_cluster(client.address)
    return ask_nodes(cluster, timeout_s) if cluster else None


def shard_collections(*, client: MongoClient, db_name: str, keys: list[ShardKey],
                      engine: Engine | None = None) -> list[str]:
    """Shard these collections of `db_name` on the server behind `client` (a mongos or
    the development cluster; ShardingError with nothing sent otherwise, or when a key
    or index is one the engines refuse). Returns what was done, a line per collection;
    a collection already sharded on its key is left as it is.

    The collections' own indexes are created first, so the shard key's index is the
    one the store declares (with its name and uniqueness) rather than one the server
    makes up, which a later `ensure_indexes` would collide with.
    """
    if not keys:
        raise ShardingError(NOTHING_TO_SHARD)
    problems = [problem for key in keys for problem in check_key(key)]
    if problems:
        raise ShardingError("Nothing was sent: " + " ".join(problems))
    engine = engine or engine_for(client)
    if engine is None:
        host, port = client.address or ("?", "?")
        raise ShardingError(NOT_A_MONGOS.format(address=f"{host}:{port}"))
    from infra.mongo import ensure_all_indexes

    ensure_all_indexes(client[db_name])
    done = []
    for key in keys:
        namespace, wanted = f"{db_name}.{key.collection}", json.dumps(key.key)
        current = engine.current_key(db_name, key.collection)
        if current == key.key:
            done.append(f"{namespace} was already sharded on {wanted}; left as it is.")
        elif current:
            raise ShardingError(f"{namespace} is sharded on {json.dumps(current)}, not {wanted}; "
                                "resharding is not done here. " + " ".join(done))
        else:
            engine.shard(db_name, key)
            done.append(f"Sharded {namespace} on {wanted}.")
    if placed := engine.place_unsharded(db_name):
        done.append(placed)
    return done


def shard_where_possible(*, client: MongoClient, db_name: str, keys: list[ShardKey]) -> list[str]:
    """`shard_collections` on a server that can shard (a mongos, the development
    cluster); nothing, and [], on one that cannot (the single-node dev database)."""
    engine = engine_for(client)
    return shard_collections(client=client, db_name=db_name, keys=keys, engine=engine) if engine else []
