"""The `discussions` collection: every comment of a discussion embedded in one
document (pattern 2 of `storage-patterns.md`, threaded form). The only module that
touches it; the pure tree helpers it walks and writes with (chains, update paths,
any-depth queries, packing nodes) are comments/stores/embedded_tree.py's.

One document per discussion, `_id` the discussion id:

    {_id: <post _id>, discussion_id: <the same>,
     replies: [{_id, parent_id, slug, full_slug, thread, posted,
                author: {id, name, email, staff}, text, html, form_key, status, ip,
                placeholder, edited, flag_count,
                replies: [<its replies, the same shape>, ...]}, ...]}

A comment node holds the same stored fields as one document of the `documents`
store (comments/records.new_document), without `discussion_id`, which is added back
when a node is unpacked into a Comment, plus its own `replies`.

Writing. Every write is one update of one discussion document, which MongoDB (and
FerretDB v2) applies atomically, filter and change together; nothing else
coordinates writers. A comment is reached by its *chain*: the slugs from the root
down to it. A reply is pushed to its parent's `replies` with one arrayFilters
identifier per depth (`replies.$[c0].replies.$[c1].replies`, `c0.slug` the root's
slug, `c1.slug` the parent's), which is the pattern's dotted position path without
needing the positions. The update's filter holds the rules, so they hold however
many writers race:
- no node at any depth has the new comment's slug, `_id` or form key (a form sent
  twice, or eight times at once, stores one comment: the others get SlugTaken);
- the chain exists, as nested `$elemMatch` conditions: every array an identifier
  walks then holds the element it picks. DocumentDB 0.106 (FerretDB v2's engine)
  inserts a null into an empty array an identifier walks (documentdb/documentdb
  #507) and drops one of two identifier paths that meet in one top-level comment, so
  a reader's update names one chain (an import's, one per top-level subtree:
  comments/stores/embedded_imports.py) and the filter guarantees each is there;
- `$expr` with `$bsonSize` keeps the document under COMMENTS_EMBEDDED_MAX_BYTES.
When the filter refuses, one read says why: SlugTaken, DiscussionFull or a parent
that is not there end the write; the discussion's first comment creates the document
with an insert, which the `_id` index lets one writer win (an upsert cannot carry
`$expr`); a parent that sits elsewhere than its slug says (an orphan an import kept
at the top level) is pushed to where it sits. Changing a comment (status, text, flags, a rename) is one `$set`
through its chain, guarded the same way, per comment: modified_count then counts
comments, and a value already there is not written again.

Reading. A permalink is a slug path, not a position. Every listing reads the whole
document by `_id` and walks the tree in Python (comments/stores/queries.py's `Query`
selects, orders, pages and counts it): threaded paging walks the tree depth first in the application,
as the pattern says, and a chronological page or a reader's count mixes depths, so a
`$slice` of one array cannot cut it. A count (a discussion's approved count, a listing's
tally) reads only the fields it tests (a projection at every depth), not the texts.

Costs, which the benchmarks show:
- a discussion can never exceed the server's document limit (16 MB on MongoDB):
  the push is refused past COMMENTS_EMBEDDED_MAX_BYTES (default: the server's limit
  minus SAFETY_MARGIN) with DiscussionFull, whose message tells an operator to move
  the discussion to another store;
- every listing reads the whole document, and the server rewrites the growing
  document on every write;
- there is no index on embedded comments. Operations across discussions (by
  comment id, by commenter, the moderation queue, renames) match nested fields with
  dotted paths, and MongoDB matches an array field at one depth per path, so the
  query names every depth up to slugs.DEPTH_CEILING (`replies._id`,
  `replies.replies._id`, ...): a collection scan that sends back only the
  discussions that hold a match, whose comments are then picked out in Python, and
  a change is then one update per comment. The moderation queue's "recent" tab
  reads every discussion.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import bson
from bson import ObjectId
from pymongo import ASCENDING
from pymongo.collection import Collection
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError
from pymongo.results import UpdateResult
from pymongo.write_concern import WriteConcern

from comments import conf, slugs
from comments.records import Comment, CommentAuthor, DiscussionFull, SlugTaken, Tally, commenter_conditions
from comments.stores import embedded_imports
from comments.stores.containers import ContainerStore, counted_fields, in_python, tally_of
from comments.stores.queries import MEMBERS, TAB_CONDITIONS, Query, differing
from comments.stores.embedded_tree import (
    REPLIES,
    Chain,
    added_bytes,
    any_depth,
    at_every_depth,
    chain_exists,
    chain_field,
    chain_filters,
    chain_of,
    flatten,
    graft,
    push_update,
    to_comment,
    to_document,
    to_node,
    unpack,
)
from infra import matching
from infra.mongo import get_db, max_document_bytes
from infra.sharding import ShardKey

# Room left under the server's document limit when COMMENTS_EMBEDDED_MAX_BYTES is 0:
# the limit counts the stored document, and an update needs some headroom.
SAFETY_MARGIN = 512 * 1024
DISCUSSION_FULL = (
    "Discussion {discussion_id} is full in the embedded comment store: with this comment it would "
    "take {size} bytes, over its limit of {limit} (COMMENTS_EMBEDDED_MAX_BYTES). An operator can "
    "move it to a store without that limit: python manage.py comments_migrate --to buckets "
    "(or --to documents)."
)
PARENT_MISSING = "Comment {slug} is not in discussion {discussion_id} of the embedded store."
# How often a write starts over after a refusal that a fresh read does not explain
# (the document created by another writer, a parent found elsewhere).
RETRIES = 5


# --- The store ----------------------------------------------------------------------------


def max_bytes() -> int:
    """The largest discussion document this store writes (COMMENTS_EMBEDDED_MAX_BYTES,
    or the server's limit minus SAFETY_MARGIN)."""
    return conf.get().embedded_max_bytes or max_document_bytes() - SAFETY_MARGIN


def superset(query: Query) -> dict[str, Any]:
    """The discussion documents that may hold the comments `query` selects: by `_id`
    when it names discussions, else by one dotted path per depth (module docstring)."""
    scope = EmbeddedStore.superset_scope(query)
    if scope is not None:
        return {"_id": scope}
    if query.ids is not None:
        return any_depth("_id", {"$in": sorted(query.ids)})
    if query.commenter is not None:
        either: list[dict] = []
        for field, condition in commenter_conditions(query.commenter):
            either += any_depth(field, condition)["$or"]
        return {"$or": either}
    if query.tab is not None:
        # Each of the tab's conditions met at some depth (queries.TAB_CONDITIONS).
        each = [any_depth(field, condition) for field, condition in TAB_CONDITIONS[query.tab].items()]
        return {"$and": each} if each else {}
    return {}


def _new_discussion(discussion_id: ObjectId, nodes: list[dict]) -> dict:
    return {"_id": discussion_id, "discussion_id": discussion_id, REPLIES: nodes}


def _check_size(discussion_id: ObjectId, discussion: dict | None, nodes: list[dict]) -> None:
    """DiscussionFull if the discussion with these new nodes would pass max_bytes()."""
    size = len(bson.encode(discussion or _new_discussion(discussion_id, [])))
    size += added_bytes(nodes)
    limit = max_bytes()
    if size > limit:
        raise DiscussionFull(DISCUSSION_FULL.format(discussion_id=discussion_id, size=size, limit=limit))


def _chain_in(discussion: dict, slug: str) -> Chain | None:
    """Where the comment with `slug` actually sits in the document, or None."""
    found = (chain for chain, node in flatten(discussion.get(REPLIES) or []) if node["slug"] == slug)
    return next(found, None)


class EmbeddedStore(ContainerStore):
    """One document per discussion, the comment tree inside (module docstring)."""

    name = "embedded"
    # Each discussion by its own `_id` (the discussion id), hashed over the shards.
    shard_keys = (ShardKey("discussions", {"_id": "hashed"}),)
    comments_field = REPLIES

    def _collection(self) -> Collection:
        return get_db().discussions

    def ensure_indexes(self, db: Database) -> list[str]:
        """None: everything goes through the discussion document's `_id` (the pattern's
        "no extra index"); the cross-discussion operations scan (module docstring)."""
        return []

    def _load(self, discussion_id: ObjectId, projection: dict | None = None) -> dict | None:
        return self._collection().find_one({"_id": discussion_id}, projection)

    def _discussions(self, query: dict, projection: dict | None = None) -> Iterator[dict]:
        """The discussion documents matching `query`, one cursor, in `_id` order."""
        return iter(self._collection().find(query, projection).sort("_id", ASCENDING))

    def _unpacked(self, query: Query, fields: Iterable[str] | None = None) -> Iterator[Comment]:
        """The comments of every discussion that may hold what `query` selects (only
        their `fields`, and the slugs that place them, when given)."""
        projection = at_every_depth("slug", *fields) if fields is not None else None
        for discussion in self._discussions(superset(query), projection):
            yield from unpack(discussion)

    # --- Reading: in Python, from the discussions read ---------------------------------------

    def find(self, query: Query) -> list[Comment]:
        if query.is_empty():
            return []
        return in_python(self._unpacked(query), query)

    def tally(self, query: Query) -> Tally:
        if query.is_empty():
            return Tally(total=0, placeholders=0)
        return tally_of(self._unpacked(query, counted_fields(query)), query)

    def find_member_authors(self) -> list[CommentAuthor]:
        seen: dict[tuple, CommentAuthor] = {}
        member = matching.compile_filter(MEMBERS)
        (path, condition), = MEMBERS.items()
        for discussion in self._discussions(any_depth(path, condition), at_every_depth("author")):
            for _, node in flatten(discussion.get(REPLIES) or []):
                if member(node):
                    author = node["author"]
                    key = (author["id"], author.get("name", ""), author.get("email", ""))
                    seen.setdefault(key, CommentAuthor(*key))
        return list(seen.values())

    # --- Posting ---------------------------------------------------------------------------

    def _push(self, discussion_id: ObjectId, chain: Chain, nodes: list[dict], *, form_key: str | None = None) -> bool:
        """Push `nodes` (new subtrees) under the comment at the end of `chain`, in one
        update whose filter refuses it unless the chain exists, no node at any depth has
        one of their slugs or ids (or `form_key`), and the document stays under
        max_bytes(). Whether it went in."""
        query, change, filters = push_update(discussion_id, {chain: nodes}, limit=max_bytes(),
                                             depth=slugs.DEPTH_CEILING, form_key=form_key)
        pushed = self._collection().update_one({"_id": discussion_id, **query}, change, array_filters=filters)
        return pushed.modified_count == 1

    def _create(self, discussion_id: ObjectId, nodes: list[dict]) -> bool:
        """Create the discussion document holding `nodes`; False if another writer
        created it first (the `_id` index lets one insert in)."""
        _check_size(discussion_id, None, nodes)
        try:
            self._collection().insert_one(_new_discussion(discussion_id, nodes))
        except DuplicateKeyError:
            return False
        return True

    def _insert(self, *, document: dict[str, Any], parent: Comment | None) -> Comment:
        """Push one comment under its parent (or to the top level, creating the discussion
        document on its first comment) in one conditional update (module docstring).
        SlugTaken if a comment of the discussion already has its slug or form key,
        DiscussionFull if the document would grow past max_bytes(), LookupError if the
        parent is not in the discussion."""
        discussion_id, slug, form_key = document["discussion_id"], document["slug"], document["form_key"]
        node = to_node(document)
        chain = chain_of(parent.slug) if parent else ()
        for _ in range(RETRIES):
            if self._push(discussion_id, chain, [node], form_key=form_key):
                return to_comment(node, discussion_id)
            discussion = self._load(discussion_id)
            if discussion is None and parent is None:
                if self._create(discussion_id, [node]):
                    return to_comment(node, discussion_id)
                continue
            nodes = [n for _, n in flatten((discussion or {}).get(REPLIES) or [])]
            if any(n["slug"] == slug or (form_key and n.get("form_key") == form_key) for n in nodes):
                raise SlugTaken(slug)
            if parent is not None:
                found = _chain_in(discussion or {}, parent.slug)
                if found is None:
                    raise LookupError(PARENT_MISSING.format(slug=parent.slug, discussion_id=discussion_id))
                chain = found
            _check_size(discussion_id, discussion, [node])
        # Refused RETRIES times with no reason a read could see: let the caller draw
        # another slug, as for a taken one.
        raise SlugTaken(slug)

    # --- Changing comments in place: one `$set` through each comment's chain ----------------

    def _set(self, discussion_id: ObjectId, chain: Chain, node_id: ObjectId, changes: dict, *,
             write_concern: WriteConcern | None = None, guard: dict | None = None) -> UpdateResult:
        """`$set` these fields of one comment, reached by its chain and checked by its
        `_id` (and `guard`, fields it must still hold), in one update."""
        collection = self._collection()
        if write_concern is not None:
            collection = collection.with_options(write_concern=write_concern)
        query = {"_id": discussion_id, **chain_exists(chain, _id=node_id, **(guard or {}))}
        update = {"$set": {chain_field(chain, field): value for field, value in changes.items()}}
        return collection.update_one(query, update, array_filters=chain_filters(chain))

    def _increment(self, *, comment: Comment, up: int, down: int) -> bool:
        """One `$inc` through the comment's chain (arrayFilters, one identifier per depth),
        checked by its `_id`; the chain read from the document if it is not where its
        slug says."""
        changes = {"votes.up": up, "votes.down": down, "score": up - down}
        for chain in (chain_of(comment.slug), None):
            if chain is None:
                discussion = self._load(comment.discussion_id, at_every_depth("slug"))
                chain = _chain_in(discussion, comment.slug) if discussion else None
                if chain is None:
                    return False
            query = {"_id": comment.discussion_id, **chain_exists(chain, _id=comment.id)}
            update = {"$inc": {chain_field(chain, field): value for field, value in changes.items()}}
            if self._collection().update_one(query, update, array_filters=chain_filters(chain)).matched_count:
                return True
        return False

    def _transition(self, *, comment: Comment, expect: dict[str, Any], fields: dict[str, Any]) -> bool:
        """One update through the comment's chain (read from the document if it is not
        where its slug says), checked by its `_id` and `expect`."""
        for chain in (chain_of(comment.slug), None):
            if chain is None:
                discussion = self._load(comment.discussion_id, at_every_depth("slug"))
                chain = _chain_in(discussion, comment.slug) if discussion else None
                if chain is None:
                    return False
            if self._set(comment.discussion_id, chain, comment.id, fields, guard=expect).matched_count:
                return True
        return False

    def _change(self, query: Query, *, fields: dict[str, Any], majority: bool = False) -> int:
        """One update per selected comment whose stored values differ; the updates'
        modified_count (a value another writer set meanwhile is not counted)."""
        concern = WriteConcern(w="majority") if majority else None
        changed = 0
        selected, differs = query.matcher(), matching.compile_filter(differing(fields))
        for discussion in self._discussions(superset(query)):
            for chain, node in flatten(discussion.get(REPLIES) or []):
                if not selected(to_comment(node, discussion["_id"])):
                    continue
                if not differs(node):
                    continue
                guard = None
                if query.tallies is not None:
                    guard = {"votes.up": int(query.tallies[0]), "votes.down": int(query.tallies[1])}
                result = self._set(discussion["_id"], chain, node["_id"], fields, write_concern=concern, guard=guard)
                changed += result.modified_count
        return changed

    # --- Export, import and migration: flat documents, as the documents store's -------------

    def _containers_in_order(self, query: dict[str, Any], batch_size: int) -> Iterable[dict]:
        return self._collection().find(query).sort("_id", ASCENDING).batch_size(batch_size)

    def _discussion_of(self, container: dict) -> ObjectId:
        return container["_id"]

    def _flat_documents(self, container: dict) -> list[dict]:
        return [to_document(node, container["_id"]) for _, node in flatten(container.get(REPLIES) or [])]

    def _discussion_query(self, discussion_id: ObjectId) -> dict[str, Any]:
        return {"_id": discussion_id}

    def _add_to_discussions(self, groups: dict[ObjectId, list[dict]]) -> int:
        """A batch's pushes at once, planned without reading the trees; what is refused
        planned again by `_add_to_discussion` (comments/stores/embedded_imports.py)."""
        return embedded_imports.add(self._collection(), groups, limit=max_bytes(),
                                    replan=self._add_to_discussion)

    def _add_to_discussion(self, discussion_id: ObjectId, documents: list[dict]) -> int:
        """Plan from a fresh read, then insert the new document (the whole tree) or push
        each new subtree in one conditional `$push`; a push another writer got in ahead
        of is planned again (what went in is then skipped). DiscussionFull if the
        discussion would pass max_bytes()."""
        went_in = 0
        for _ in range(RETRIES):
            discussion = self._load(discussion_id)
            grafts, added = graft((discussion or {}).get(REPLIES) or [], documents)
            if not added:
                return went_in
            _check_size(discussion_id, discussion, [node for nodes in grafts.values() for node in nodes])
            if discussion is None:
                if self._create(discussion_id, grafts.get((), [])):
                    return went_in + added
                continue
            for chain, nodes in grafts.items():
                if not self._push(discussion_id, chain, nodes):
                    break
                went_in += sum(1 for _ in flatten(nodes))
            else:
                return went_in
        raise RuntimeError(f"discussion {discussion_id} kept changing during an import")

    def discussion_ids(self) -> list[ObjectId]:
        return sorted(self._collection().distinct("_id", {f"{REPLIES}.0": {"$exists": True}}))

    def _drop_discussion(self, *, discussion_id: ObjectId) -> int:
        return len(unpack(self._collection().find_one_and_delete({"_id": discussion_id})))
