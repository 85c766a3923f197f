"""What a costly builder wrote to the session's MongoDB database, kept to be written
again: a module that gives many tests the same discussion posts it through the real
services once per store and starts each later test from a copy of what that wrote
(the documents themselves, `_id`s and all), instead of posting it again. The copy is
written with inserts, so it is emptied after the test like anything else the test
wrote (tests/written.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


def _everything(db) -> dict[str, dict[Any, dict]]:
    return {name: {doc["_id"]: doc for doc in db[name].find()}
            for name in db.list_collection_names() if not name.startswith("system.")}


@dataclass(frozen=True)
class Snapshot:
    """The documents a build added, per collection, in the order the server returned them."""

    documents: dict[str, list[dict]]

    def restore(self, db) -> None:
        """Writes the documents again (their collections are empty of them: the test
        before was emptied after it)."""
        for name, docs in self.documents.items():
            db[name].insert_many(docs)


def built(db, build: Callable[[], Any]) -> tuple[Any, Snapshot]:
    """Runs `build` and gives what it returned with the documents it added. A build that
    changed or removed a document that was there before cannot be copied by inserts:
    AssertionError."""
    before = _everything(db)
    result = build()
    after = _everything(db)
    changed = [(name, key) for name, docs in before.items() for key, doc in docs.items()
               if after.get(name, {}).get(key) != doc]
    assert not changed, f"the build changed documents it did not add: {changed[:5]}"
    added = {name: [doc for key, doc in docs.items() if key not in before.get(name, {})]
             for name, docs in after.items()}
    return result, Snapshot({name: docs for name, docs in added.items() if docs})


def once(cache: dict, key: str, db, build: Callable[[], Any]) -> Any:
    """What `build` returns: the first time for `key`, built (its documents kept in
    `cache`); later, the same result with those documents written again."""
    if key in cache:
        result, snapshot = cache[key]
        snapshot.restore(db)
        return result
    cache[key] = built(db, build)
    return cache[key][0]
