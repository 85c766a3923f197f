"""Erasing one recorded batch of a member's comments, a discussion at a time, at the
database's pace (comments/erasure/work.py records the batch and calls `erase`).

For each discussion the batch touches:

1. which of its comments have an approved reply at any depth once the batch is erased
   (`approved_below`: one read of the replies per level of the threads below them);
2. the comments are deleted, blanked and made nameless, each standing as a
   placeholder exactly when it has such a reply, with the counters moved once for
   them all (comments/stores/counters_bulk.py);
3. their ancestors outside the batch that stood as placeholders and have no approved
   reply left stop standing (few: read once, checked one by one);
4. the post's count and latest comments go to the host again, the discussion's cached
   pages and the host's copies are dropped.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bson import ObjectId

from comments import slugs
from comments.host import get_host
from comments.reading import fragments
from comments.records import DELETED, HIDDEN, Comment
from comments.stores import CommentStore, Query, counters, counters_bulk, summaries
from comments.stores.counting import Shape

# What an erased comment keeps of its author and words: nothing.
ERASED_FIELDS: dict[str, Any] = {"text": "", "html": "", "ip": None, "form_key": None,
                                 "author": {"id": None, "name": "", "email": "", "staff": False}}


def erased(comment: Comment) -> bool:
    """Whether a comment is as erasure leaves it (placeholder aside)."""
    author = comment.author
    return (comment.status == DELETED and not comment.text and not comment.html and comment.ip is None
            and comment.form_key is None and author.id is None and not author.name and not author.email
            and comment.intent is None)


def approved_below(discussion_id: ObjectId, comments: Iterable[Comment], *, leaving: set[ObjectId],
                   store: CommentStore) -> set[ObjectId]:
    """The ids of these comments with an approved reply at any depth, counting the
    comments in `leaving` as hidden: the replies are read a level at a time, only
    below hidden ones until each comment is decided."""
    result: set[ObjectId] = set()
    # A comment being read below -> the comments of `comments` it is (or is below).
    level: dict[ObjectId, set[ObjectId]] = {c.id: {c.id} for c in comments}
    for _ in range(slugs.DEPTH_CEILING + 1):
        if not level:
            break
        below: dict[ObjectId, set[ObjectId]] = {}
        for reply in store.find(Query(discussion_id=discussion_id, parents=frozenset(level))):
            owners = level.get(reply.parent_id) if reply.parent_id is not None else None
            if not owners:
                continue
            if reply.status not in HIDDEN and reply.id not in leaving:
                result |= owners
            else:
                below.setdefault(reply.id, set()).update(owners)
        level = {cid: owners - result for cid, owners in below.items() if owners - result}
    return result


def _unstand_ancestors(discussion_id: ObjectId, comments: list[Comment], *, leaving: set[ObjectId],
                       store: CommentStore) -> None:
    """Step 3 of the module docstring."""
    above = {a for c in comments for a in slugs.ancestor_slugs(c.slug)} - {c.slug for c in comments}
    if not above:
        return
    found = [c for c in store.find_by_slugs(discussion_id=discussion_id, slugs=sorted(above))
             if c.id not in leaving and c.status in HIDDEN and (c.placeholder or c.intent is not None)]
    for comment in found:
        counters.finish(comment, store=store)
    off = [c for c in found if not store.has_approved_reply(comment=c)]
    counters.set_placeholder(off, store=store, placeholder=False)


def erase_discussion(discussion_id: ObjectId, items: list[dict[str, Any]], *, store: CommentStore) -> None:
    """Steps 1-4 of the module docstring for the batch's comments of one discussion
    (`items`: {id, slug} as recorded)."""
    ids = {item["id"] for item in items}
    comments = store.find(Query(discussion_id=discussion_id, ids=frozenset(ids)))
    standing = approved_below(discussion_id, comments, leaving=ids, store=store)

    def shape(comment: Comment) -> Shape:
        return (DELETED, comment.id in standing)

    counters_bulk.change_many(
        discussion_id, ids=ids, store=store, target=lambda c: (shape(c), ERASED_FIELDS),
        done=lambda c: erased(c) and (c.status, c.placeholder) == shape(c))
    _unstand_ancestors(discussion_id, comments, leaving=ids, store=store)
    summaries.refresh_summary(post_id=discussion_id)
    fragments.forget(discussion_id)
    get_host().forget_copies(discussion_id)


def erase(batch: list[dict[str, Any]], *, store: CommentStore) -> None:
    """Erase a recorded batch ({id, discussion_id, slug} each), one discussion
    at a time."""
    by_discussion: dict[ObjectId, list[dict[str, Any]]] = {}
    for item in batch:
        by_discussion.setdefault(item["discussion_id"], []).append(item)
    for discussion_id, items in by_discussion.items():
        erase_discussion(discussion_id, items, store=store)
