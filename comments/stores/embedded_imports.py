"""Adding a batch of flat documents (an import's, a restore's, a migration's) to the
embedded store's discussion documents (comments/stores/embedded.py, whose docstring
describes the document and its guarded pushes) in a few round trips for the whole
batch, whatever the number of discussions:

1. the plan, made without reading the trees: the batch's comments of a discussion
   nested under their new parents, and each subtree whose parent is not in the batch
   pushed under that parent where its slug says it sits (embedded_tree.graft with
   `assumed`);
2. one query: the discussions that already hold one of the batch's ids (a rerun after
   a stopped import, a restore into a discussion that has some of its comments), at
   every depth: a comment stored before under another slug (a rerun after
   COMMENTS_MAX_DEPTH changed) may sit deeper than its new slug says;
3. one bulk write for the other discussions: the pushes, each update under at most one
   comment of each top-level subtree (embedded_tree.in_rounds), each refused, as a
   reader's push is, unless every chain exists, no node has one of their slugs or ids
   at the depths where they can sit (embedded_tree.deepest: the cost of the check
   grows with the depths it names) and the document stays under its limit;
4. only when some update was refused (a discussion not created yet, a parent that
   sits elsewhere, a slug taken, a full discussion): one read of those discussions'
   ids at every depth says which updates went in.

A discussion of step 2, or with a refused update, is then planned again from a fresh
read of its document (`replan`: the store's one-discussion path, which skips what is
there, creates the document, and raises DiscussionFull past the limit).
"""

from __future__ import annotations

from collections.abc import Callable

from bson import ObjectId
from pymongo import UpdateOne
from pymongo.collection import Collection

from comments.stores.embedded_tree import (
    REPLIES, any_depth, at_every_depth, flatten, graft, in_rounds, push_update,
)


def add(collection: Collection, groups: dict[ObjectId, list[dict]], *, limit: int,
        replan: Callable[[ObjectId, list[dict]], int]) -> int:
    """Add each discussion's flat documents (module docstring); how many went in.
    `limit`: the largest discussion document in bytes."""
    planned = {d: graft([], documents, assumed=True)[0] for d, documents in groups.items()}
    ids = {d: {node["_id"] for nodes in grafts.values() for _, node in flatten(nodes)}
           for d, grafts in planned.items()}
    every = sorted(i for found in ids.values() for i in found)
    holding = any_depth("_id", {"$in": every})  # every depth: stored under another slug, it may sit deeper
    # discussion -> how many of its comments the bulk write put in, for those planned again
    again = {d["_id"]: 0 for d in collection.find({"_id": {"$in": list(groups)}, **holding}, {"_id": 1})}
    ops = []
    for d, grafts in planned.items():
        for pushes in in_rounds(grafts) if d not in again else ():
            query, change, filters = push_update(d, pushes, limit=limit)
            ops.append(UpdateOne(query, change, array_filters=filters))
    if ops and collection.bulk_write(ops, ordered=False).modified_count < len(ops):
        found = {d["_id"]: {n["_id"] for _, n in flatten(d.get(REPLIES) or [])}
                 for d in collection.find({"_id": {"$in": list(groups)}}, at_every_depth("_id"))}
        for d in [d for d in planned if d not in again]:
            if not ids[d] <= found.get(d, set()):
                again[d] = len(ids[d] & found.get(d, set()))
    went_in = sum(len(ids[d]) for d in planned if d not in again)
    return went_in + sum(n + replan(d, groups[d]) for d, n in again.items())
