"""The comment stores, one per storage pattern of `storage-patterns.md`, each a
`CommentStore` (comments/stores/base.py):

- `documents` (default): one document per comment, collection `comments`;
- `embedded`: one document per discussion with the comment tree inside,
  collection `discussions`;
- `buckets`: comments in pages of about 100, collection `comment_pages`.

`get_store()` is the store in use, like `django.core.cache.caches`: one instance
per name, made on first use, and the one place a store is made: each is made with the
counters (comments/stores/counters.py, the `Counting` of comments/stores/counting.py)
that move with its changes. Which one is in use is comments.store_switch.in_use()'s to
say (COMMENTS_STORE until `comments_migrate` records a switch).

Also here: the counters and the discussion state the stores move (counters,
counting, discussion_state), page windows, the switch between stores and the
discussions' summaries for their host (summaries). This package imports only the
app's core modules (records, slugs, keyset, scores, conf, host) and infra; every room
above may import it.
"""

from __future__ import annotations

import threading
from importlib import import_module

from pymongo.database import Database

from comments.stores import counters, store_switch
from comments.stores.base import CommentStore
from comments.stores.queries import Duplicate, Query
from infra.sharding import ShardKey

__all__ = ["STORES", "UNKNOWN_STORE", "CommentStore", "Duplicate", "Query", "get_store"]

STORES = {
    "documents": "comments.stores.documents.DocumentsStore",
    "embedded": "comments.stores.embedded.EmbeddedStore",
    "buckets": "comments.stores.buckets.BucketsStore",
}
UNKNOWN_STORE = "COMMENTS_STORE is {name!r}; the comment stores are: {known}."

_instances: dict[str, CommentStore] = {}
_lock = threading.Lock()


def get_store(name: str | None = None) -> CommentStore:
    """The store called `name` (one of STORES), or the one in use."""
    name = store_switch.in_use() if name is None else name
    if name not in STORES:
        raise ValueError(UNKNOWN_STORE.format(name=name, known=", ".join(STORES)))
    with _lock:
        if name not in _instances:
            module, _, cls = STORES[name].rpartition(".")
            made: type[CommentStore] = getattr(import_module(module), cls)
            _instances[name] = made(counting=counters)
        return _instances[name]


def shard_keys() -> tuple[ShardKey, ...]:
    """The shard keys of the store in use (registered from the comments app's ready())."""
    return get_store().shard_keys


def ensure_indexes(db: Database) -> list[str]:
    """The indexes of the store in use (registered from the comments app's ready())."""
    return get_store().ensure_indexes(db)


def ensure_states(db: Database) -> list[str]:
    """A counters' state for each discussion of the store in use that lacks one
    (counters.ensure_states; registered from the comments app's ready() after every
    owner's indexes)."""
    return counters.ensure_states(db, store=get_store())
