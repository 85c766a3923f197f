"""Changing many comments of one discussion at the database's pace, with the counters
moved exactly once per change, as comments/stores/counters.py does for one comment
(docs/counters.md): the same three steps, each for the whole group at once.

1. every comment gets its new status, placeholder and fields with its own intent,
   named by the comment's `_id`, only while it is as it was read and carries no
   intent: one `update_many` per group of comments that share a change in the
   documents store, one bulk write of an update per comment in the others
   (comments/stores/bulk_writes.py); a comment still to change after that (changed
   by another writer first, or not where the bulk write looked) is changed by
   `transition` from then on;
2. `finish_many`: read the state, then the comments; the intents they still carry
   that the state has not applied move the counters in one compare-and-set on `seq`
   (their deltas summed, every id pushed to `applied`: discussion_state.apply_many);
3. the intents are cleared in one bulk write, then their ids pulled from `applied`.

The argument of the single change holds for the group: the state is read before the
comments, and every apply moves `seq`, so an intent another writer applied, cleared
and forgot meanwhile is seen gone from its comment and not counted again; one applied
but not yet forgotten is in `applied` and left out. A run killed anywhere leaves
comments carrying intents (until 3) or `applied` listing them: the next `change_many`
of those comments, any writer meeting one of them, or `repair_summaries` finishes them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from bson import ObjectId

from comments.records import Comment, Intent
import comments.stores.counting as counting
import comments.stores.counters as counters
import comments.stores.discussion_state as discussion_state
from comments.stores.base import CommentStore
from comments.stores.bulk_writes import change_group, clear_intents
from comments.stores.counting import Shape
from comments.stores.queries import Query

# What a comment should become: its (status, placeholder), and the fields to set with it.
Target = tuple[Shape, dict[str, Any]]


def _read(discussion_id: ObjectId, ids: Iterable[ObjectId], store: CommentStore) -> list[Comment]:
    wanted = frozenset(ids)
    return store.find(Query(discussion_id=discussion_id, ids=wanted)) if wanted else []


def finish_many(discussion_id: ObjectId, carriers: Iterable[Comment], *, store: CommentStore) -> None:
    """Complete the intents these comments of one discussion carry, whoever wrote them
    (steps 2 and 3 of the module docstring, once for all); each step is idempotent."""
    carriers = list(carriers)
    intents = {c.id: c.intent for c in carriers if c.intent is not None}
    if not intents:
        return
    for _ in range(counters.ATTEMPTS):
        current = counters.state(discussion_id, store=store)
        open_ = {cid: intent for cid, intent in intents.items() if intent.id not in current.applied}
        still = [c for c in _read(discussion_id, open_, store)
                 if c.intent is not None and c.intent.id == open_[c.id].id]
        if not still:
            break
        moved: dict[str, int] = {}
        for comment in still:
            assert comment.intent is not None
            for key, n in counting.deltas(comment.intent.was, comment.intent.now).items():
                moved[key] = moved.get(key, 0) + n
        if discussion_state.apply_many(discussion_id, intent_ids=[c.intent.id for c in still if c.intent],
                                       deltas=moved, if_seq=current.seq, posted=min(c.posted for c in still)):
            break
    else:
        raise counters.Contended(counters.CONTENDED.format(discussion_id=discussion_id, attempts=counters.ATTEMPTS))
    counters.between_steps("applied")
    by_id = {c.id: c for c in carriers}
    clear_intents(store, [(by_id[cid], intent.id) for cid, intent in intents.items()])
    counters.between_steps("cleared")
    discussion_state.forget(discussion_id, intent_ids=[intent.id for intent in intents.values()])


def change_many(discussion_id: ObjectId, *, ids: Iterable[ObjectId], store: CommentStore,
                target: Callable[[Comment], Target], done: Callable[[Comment], bool]) -> None:
    """Give each of these comments of one discussion what `target` says, moving the
    counters once for them all; `done` tells a comment that needs nothing more (read
    again every round: one another writer changed first is decided again). Comments
    gone are left out. Each change's intent is named by its comment's `_id`, so the
    comments that share a change (their shapes before and after, their fields) are
    written together (comments/stores/bulk_writes.py: one `update_many` in the
    documents store). The caller holds these comments (one runner at a time): an id
    left in `applied` by a run killed before it forgot it is forgotten when the
    comment is read carrying no intent."""
    left = set(ids)
    for attempt in range(counters.ATTEMPTS):
        found = _read(discussion_id, left, store)
        if any(c.intent is not None for c in found):
            finish_many(discussion_id, found, store=store)
            found = _read(discussion_id, left, store)
        if not attempt:
            # An id left in `applied` by a run killed before it forgot it: no comment
            # carries it, and the comment may be written again (named by its id).
            discussion_state.forget(discussion_id, intent_ids=[c.id for c in found if c.intent is None])
        todo = [c for c in found if c.intent is None and not done(c)]
        left = {c.id for c in found if c.intent is not None or not done(c)}
        if not left:
            return
        groups: dict[tuple[Shape, Shape, str], tuple[dict[str, Any], list[Comment]]] = {}
        for comment in todo:
            shape, fields = target(comment)
            was = (comment.status, comment.placeholder)
            groups.setdefault((was, shape, repr(sorted(fields.items()))), (fields, []))[1].append(comment)
        for (was, shape, _), (fields, comments) in groups.items():
            update = {"status": shape[0], "placeholder": shape[1], **fields}
            change_group(store, comments, expect=counters.expect_shape(was), fields=update,
                         shapes=(was, shape) if was != shape else None, one_by_one=attempt > 0)
            if was == shape:
                counters.touch([discussion_id])  # Fields only: a new version all the same.
        counters.between_steps("changed")
    raise counters.Contended(counters.CONTENDED.format(discussion_id=discussion_id, attempts=counters.ATTEMPTS))
