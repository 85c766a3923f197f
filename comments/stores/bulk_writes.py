"""Many conditional single-comment updates sent as one bulk write: each is the update
`CommentStore.transition` makes for its store (the documents store's `update_one` on
the comment's `_id`, the embedded store's through the comment's chain; the buckets
store's, one arrayFilter identifier per comment, are gathered into one update of the
buckets holding them), so each still changes its comment only while it meets its
condition. Which ones matched is not told: the caller
reads the comments back (comments/stores/counters_bulk.py). A store this module does
not know gets them one `transition` at a time.

Where the documents store can do better it does: `change_group` is one `update_many`
whose pipeline gives each comment an intent named by its own `_id`, and
`clear_intents` one `update_many` (the buckets store's too, through its arrayFilter)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bson import ObjectId
from pymongo import UpdateMany, UpdateOne

from comments.records import Comment, Intent
from comments.stores.base import CommentStore
from comments.stores.buckets import BucketsStore
from comments.stores.documents import DocumentsStore
from comments.stores.embedded import EmbeddedStore
from comments.stores.queries import Query
from comments.stores.embedded_tree import chain_exists, chain_field, chain_filters, chain_of
from comments.stores.store_switch import check_writable

# Comments changed by one update of the buckets store at most (its arrayFilters).
BUCKET_CHUNK = 100
# (the comment, the conditions on its own fields, the fields to set)
Transition = tuple[Comment, dict[str, Any], dict[str, Any]]


def _documents_op(comment: Comment, expect: dict[str, Any], fields: dict[str, Any], operator: str) -> UpdateOne:
    return UpdateOne({"_id": comment.id, "discussion_id": comment.discussion_id, **expect}, {operator: fields})


def _buckets_ops(changes: Sequence[Transition], operator: str) -> list[UpdateMany]:
    """One update per BUCKET_CHUNK comments of a discussion: each comment is its own
    arrayFilter identifier (`c0`, `c1`, ...) on its `_id` and its conditions, so each is
    changed only while it meets them, and each bucket holding some is written once."""
    ops: list[UpdateMany] = []
    chunk: list[Transition] = []

    def flush() -> None:
        if chunk:
            update: dict[str, Any] = {}
            filters: list[Mapping[str, Any]] = []
            for n, (comment, expect, fields) in enumerate(chunk):
                update.update({f"comments.$[c{n}].{path}": value for path, value in fields.items()})
                filters.append({f"c{n}.{name}": value for name, value in {"_id": comment.id, **expect}.items()})
            ops.append(UpdateMany({"discussion_id": chunk[0][0].discussion_id,
                                   "comments._id": {"$in": [c.id for c, _, _ in chunk]}},
                                  {operator: update}, array_filters=filters))
            chunk.clear()

    for change in sorted(changes, key=lambda change: change[0].discussion_id):
        if chunk and (len(chunk) >= BUCKET_CHUNK or chunk[0][0].discussion_id != change[0].discussion_id
                      or any(c.id == change[0].id for c, _, _ in chunk)):
            flush()
        chunk.append(change)
    flush()
    return ops


def _embedded_op(comment: Comment, expect: dict[str, Any], fields: dict[str, Any], operator: str) -> UpdateOne:
    """Through the chain its slug names (a comment elsewhere is not matched: the
    caller's read back finds it unchanged and it goes through `transition`). One
    update per comment: FerretDB applies only part of an update that reaches several
    comments at different depths through chains of arrayFilter identifiers."""
    chain = chain_of(comment.slug)
    filters: list[Mapping[str, Any]] | None = list(chain_filters(chain) or []) or None
    return UpdateOne({"_id": comment.discussion_id, **chain_exists(chain, _id=comment.id, **expect)},
                     {operator: {chain_field(chain, name): value for name, value in fields.items()}},
                     array_filters=filters)


def transition_many(store: CommentStore, changes: Sequence[Transition]) -> None:
    """Make each transition (one comment, while it meets its conditions) in one
    unordered bulk write; refused with store_switch.Moving while the store takes no
    writes, as `transition` is."""
    if not _bulk(store, changes, "$set"):
        for comment, expect, fields in changes:
            store.transition(comment=comment, expect=expect, fields=fields)


def increment_many(store: CommentStore, changes: Sequence[tuple[Comment, dict[str, int]]]) -> None:
    """`$inc` these fields of each comment, in one unordered bulk write. The embedded
    store's, and a store this module does not know, go one `increment_votes` at a time
    (the fields are then the tallies): an `$inc` that missed a comment not where its
    slug says could not be told from one that landed."""
    incremented: list[Transition] = [(comment, {}, fields) for comment, fields in changes]
    if isinstance(store, EmbeddedStore) or not _bulk(store, incremented, "$inc"):
        for comment, fields in changes:
            store.increment_votes(comment=comment, up=fields.get("votes.up", 0), down=fields.get("votes.down", 0))


def _bulk(store: CommentStore, changes: Sequence[Transition], operator: str) -> bool:
    """Send the changes as one bulk write; False for a store this module does not know
    (nothing sent)."""
    if not changes:
        return True
    check_writable(store.name)
    ops: list[UpdateOne] | list[UpdateMany]
    if isinstance(store, DocumentsStore):
        ops = [_documents_op(*change, operator) for change in changes]
    elif isinstance(store, BucketsStore):
        ops = _buckets_ops(changes, operator)
    elif isinstance(store, EmbeddedStore):
        ops = [_embedded_op(*change, operator) for change in changes]
    else:
        return False
    store._collection().bulk_write(ops, ordered=False)
    return True


def _literal(fields: Mapping[str, Any]) -> dict[str, Any]:
    return {name: {"$literal": value} for name, value in fields.items()}


def change_group(store: CommentStore, comments: Sequence[Comment], *, expect: dict[str, Any],
                 fields: dict[str, Any], shapes: tuple[tuple[str, bool], tuple[str, bool]] | None,
                 one_by_one: bool = False) -> None:
    """Set `fields` on each of these comments of one discussion while it meets `expect`,
    and with `shapes` ((was, now) of them all) an intent whose id is the comment's own
    `_id` (comments/stores/counters_bulk.py); one `update_many` in the documents store,
    a bulk write in the others; `one_by_one`: one `transition` each (which finds a
    comment not where its slug says)."""
    if not comments:
        return
    if isinstance(store, DocumentsStore) and not one_by_one:
        check_writable(store.name)
        update = _literal(fields)
        if shapes is not None:
            update["intent"] = {"id": "$_id", "was": {"$literal": list(shapes[0])},
                                "now": {"$literal": list(shapes[1])}}
        store._collection().update_many(
            {"_id": {"$in": [c.id for c in comments]}, "discussion_id": comments[0].discussion_id, **expect},
            [{"$set": update}])
        return
    changes = [(c, expect, {**fields, **({"intent": Intent(id=c.id, was=shapes[0], now=shapes[1]).as_doc()}
                                          if shapes else {})}) for c in comments]
    if one_by_one:
        for comment, condition, update in changes:
            store.transition(comment=comment, expect=condition, fields=update)
    else:
        transition_many(store, changes)


def clear_intents(store: CommentStore, carriers: Sequence[tuple[Comment, ObjectId]]) -> None:
    """Clear the intent each of these comments of one discussion carries while it is
    still that one (comment, intent id)."""
    if not carriers:
        return
    discussion_id, ids = carriers[0][0].discussion_id, [intent_id for _, intent_id in carriers]
    if isinstance(store, DocumentsStore):
        check_writable(store.name)
        store._collection().update_many({"discussion_id": discussion_id, "intent.id": {"$in": ids}},
                                        {"$set": {"intent": None}})
    elif isinstance(store, BucketsStore):
        check_writable(store.name)
        store._collection().update_many({"discussion_id": discussion_id, "comments.intent.id": {"$in": ids}},
                                        {"$set": {"comments.$[c].intent": None}},
                                        array_filters=[{"c.intent.id": {"$in": ids}}])
    else:
        transition_many(store, [(comment, {"intent.id": intent_id}, {"intent": None})
                                for comment, intent_id in carriers])
        # One the bulk write missed (not where its slug says) is cleared by `transition`:
        # its intent must be gone before its id leaves `applied`.
        wanted = {comment.id: intent_id for comment, intent_id in carriers}
        for comment in store.find(Query(discussion_id=discussion_id, ids=frozenset(wanted))):
            if comment.intent is not None and comment.intent.id == wanted[comment.id]:
                store.transition(comment=comment, expect={"intent.id": comment.intent.id}, fields={"intent": None})
