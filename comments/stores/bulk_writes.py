"""Many conditional single-comment updates sent as one bulk write: each is the update
`CommentStore.transition` makes for its store (the documents store's `update_one` on
the comment's `_id`, the buckets store's `$elemMatch` with its arrayFilter, the
embedded store's update through the comment's chain), so each still changes its
comment only while it meets its condition. Which ones matched is not told: the caller
reads the comments back (comments/stores/counters_bulk.py). A store this module does
not know gets them one `transition` at a time."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pymongo import UpdateOne

from comments.records import Comment
from comments.stores.base import CommentStore
from comments.stores.buckets import BucketsStore
from comments.stores.documents import DocumentsStore
from comments.stores.embedded import EmbeddedStore
from comments.stores.embedded_tree import chain_exists, chain_field, chain_filters, chain_of
from comments.stores.store_switch import check_writable

# (the comment, the conditions on its own fields, the fields to set)
Transition = tuple[Comment, dict[str, Any], dict[str, Any]]


def _documents_op(comment: Comment, expect: dict[str, Any], fields: dict[str, Any]) -> UpdateOne:
    return UpdateOne({"_id": comment.id, "discussion_id": comment.discussion_id, **expect}, {"$set": fields})


def _buckets_op(comment: Comment, expect: dict[str, Any], fields: dict[str, Any]) -> UpdateOne:
    condition = {"_id": comment.id, **expect}
    return UpdateOne({"discussion_id": comment.discussion_id, "comments": {"$elemMatch": condition}},
                     {"$set": {f"comments.$[c].{path}": value for path, value in fields.items()}},
                     array_filters=[{f"c.{name}": value for name, value in condition.items()}])


def _embedded_op(comment: Comment, expect: dict[str, Any], fields: dict[str, Any]) -> UpdateOne:
    """Through the chain its slug names (a comment elsewhere is not matched: the
    caller's read back finds it unchanged and it goes through `transition`)."""
    chain = chain_of(comment.slug)
    filters: list[Mapping[str, Any]] | None = list(chain_filters(chain) or []) or None
    return UpdateOne({"_id": comment.discussion_id, **chain_exists(chain, _id=comment.id, **expect)},
                     {"$set": {chain_field(chain, name): value for name, value in fields.items()}},
                     array_filters=filters)


def transition_many(store: CommentStore, changes: Sequence[Transition]) -> None:
    """Make each transition (one comment, while it meets its conditions) in one
    unordered bulk write; refused with store_switch.Moving while the store takes no
    writes, as `transition` is."""
    if not changes:
        return
    check_writable(store.name)
    if isinstance(store, DocumentsStore):
        ops = [_documents_op(*change) for change in changes]
    elif isinstance(store, BucketsStore):
        ops = [_buckets_op(*change) for change in changes]
    elif isinstance(store, EmbeddedStore):
        ops = [_embedded_op(*change) for change in changes]
    else:
        for comment, expect, fields in changes:
            store.transition(comment=comment, expect=expect, fields=fields)
        return
    store._collection().bulk_write(ops, ordered=False)
