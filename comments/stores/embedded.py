"""The `discussions` collection: every comment of a discussion embedded in one
document (pattern 2 of `storage-patterns.md`, threaded form). The only module that
touches it.

One document per discussion, `_id` the post's `_id`:

    {_id: <post _id>, discussion_id: <the same>,
     replies: [{_id, parent_id, slug, full_slug, thread, posted,
                author: {id, name, email}, text, html, form_key, status, ip,
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
  #507) and drops one of two identifier paths that share a prefix, so each update
  names one chain and the filter guarantees it is there;
- `$expr` with `$bsonSize` keeps the document under COMMENTS_EMBEDDED_MAX_BYTES.
When the filter refuses, one read says why: SlugTaken, DiscussionFull or a parent
that is not there end the write; the discussion's first comment creates the document
with an insert, which the `_id` index lets one writer win (an upsert cannot carry
`$expr`); a parent that sits elsewhere than its slug says (an orphan an import kept
at the top level) is pushed to where it sits. Changing a comment (status, text, flags, a rename) is one `$set`
through its chain, guarded the same way, per comment: modified_count then counts
comments, and a value already there is not written again.

Reading. A permalink is a slug path, not a position. Every listing reads the whole
document by `_id` and walks the tree in Python (comments/listing.py orders, filters,
pages and counts it): threaded paging walks the tree depth first in the application,
as the pattern says, and a chronological page or a reader's count mixes depths, so a
`$slice` of one array cannot cut it. A post's approved count reads only the
statuses (a projection at every depth), not the texts.

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

import heapq
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any

import bson
from bson import ObjectId
from bson.errors import InvalidId
from django.conf import settings
from pymongo import ASCENDING, ReturnDocument
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError
from pymongo.write_concern import WriteConcern

from comments import listing, slugs
from comments.records import (
    APPROVED,
    HIDDEN,
    ORDERS,
    READERS,
    Comment,
    CommentAuthor,
    Commenter,
    DiscussionFull,
    QueueFilter,
    SlugTaken,
    Tally,
    Viewer,
    commenter_conditions,
    in_queue,
    new_document,
    queue_order,
)
from infra.mongo import get_db, max_document_bytes

REPLIES = "replies"
# Room left under the server's document limit when COMMENTS_EMBEDDED_MAX_BYTES is 0:
# the limit counts the stored document, and an update needs some headroom.
SAFETY_MARGIN = 512 * 1024
# What one pushed node adds besides its own BSON: the element's type byte and its
# array index as a key (up to 7 digits and a NUL), rounded up.
ELEMENT_BYTES = 16
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
# The slugs from the root down to a comment ((): the discussion's own array).
Chain = tuple[str, ...]
MISSING = object()


# --- Pure helpers: chains, update paths, filters, the tree -------------------------------


def chain_of(slug: str) -> Chain:
    """Where a comment sits when it sits where its slug says: its ancestors' slugs
    and its own, root first ('a/b' gives ('a', 'a/b'))."""
    return (*slugs.ancestor_slugs(slug), slug)


def chain_field(chain: Chain, name: str) -> str:
    """The update path of the field `name` of the comment at the end of `chain`,
    one arrayFilters identifier per depth: ('a', 'a/b') and 'status' give
    'replies.$[c0].replies.$[c1].status'; the empty chain names the discussion's own
    field."""
    return "".join(f"{REPLIES}.$[c{depth}]." for depth in range(len(chain))) + name


def chain_filters(chain: Chain) -> list[dict] | None:
    """The arrayFilters of chain_field: each identifier picks its slug."""
    return [{f"c{depth}.slug": slug} for depth, slug in enumerate(chain)] or None


def chain_exists(chain: Chain, **condition: Any) -> dict:
    """A query matching a discussion where `chain` exists, each node in its parent's
    `replies`, and its last node also meets `condition` (fields of that node)."""
    if not chain:
        return {}
    wanted: dict[str, Any] = {"slug": chain[-1], **condition}
    for slug in reversed(chain[:-1]):
        wanted = {"slug": slug, REPLIES: {"$elemMatch": wanted}}
    return {REPLIES: {"$elemMatch": wanted}}


def flatten(replies: list[dict], chain: Chain = ()) -> Iterator[tuple[Chain, dict]]:
    """Every comment node of a tree with its chain, depth first (a node before its
    replies, each level in array order)."""
    for node in replies:
        here = (*chain, node.get("slug"))
        yield here, node
        yield from flatten(node.get(REPLIES) or [], here)


def any_depth(field: str, condition: Any, *, depth: int = slugs.DEPTH_CEILING) -> dict:
    """A query matching discussions with a comment, at any depth up to `depth`
    levels, whose `field` meets `condition`: one dotted path per depth, since a path
    through nested arrays names exactly one depth."""
    return {"$or": [{".".join([REPLIES] * level + [field]): condition} for level in range(1, depth + 1)]}


def at_every_depth(*fields: str) -> dict:
    """A projection of these node fields at every depth (and the `replies` arrays
    that hold them)."""
    return {".".join([REPLIES] * level + [field]): 1 for level in range(1, slugs.DEPTH_CEILING + 1)
            for field in fields}


def unpack(discussion: dict | None) -> list[Comment]:
    """The comments of a discussion document, depth first."""
    if not discussion:
        return []
    return [to_comment(node, discussion["_id"]) for _, node in flatten(discussion.get(REPLIES) or [])]


def to_comment(node: dict, discussion_id: ObjectId) -> Comment:
    return Comment.from_doc({**node, "discussion_id": discussion_id})


def to_node(document: dict) -> dict:
    """A flat comment document (the documents store's) as a node with no replies yet."""
    node = {key: value for key, value in document.items() if key not in ("discussion_id", REPLIES)}
    node[REPLIES] = []
    return node


def to_document(node: dict, discussion_id: ObjectId) -> dict:
    """A node as the documents store's flat document: `discussion_id` after `_id`,
    no `replies`."""
    rest = {key: value for key, value in node.items() if key not in ("_id", REPLIES)}
    return {"_id": node["_id"], "discussion_id": discussion_id, **rest}


def added_bytes(nodes: Iterable[dict]) -> int:
    """How much pushing these nodes (with their replies) adds to a document, at most."""
    return sum(len(bson.encode(node)) + ELEMENT_BYTES for node in nodes)


def graft(replies: list[dict], documents: Iterable[dict]) -> tuple[dict[Chain, list[dict]], int]:
    """Plan adding flat comment documents to a tree: which new subtrees go under which
    existing comment (by its chain; the empty chain: top level), and how many
    comments they hold.

    Parents go before children (by depth, then posting order) and a new reply is
    nested in its new parent, so each subtree is one `$push`. A document whose slug
    or `_id` the tree (or an earlier document) has is skipped. One whose parent is
    nowhere goes to the top level: it keeps its slugs, so it still sorts in place,
    and is not lost.
    """
    existing = {node["slug"]: chain for chain, node in flatten(replies)}
    ids = {node["_id"] for _, node in flatten(replies)}
    new: dict[str, dict] = {}
    grafts: dict[Chain, list[dict]] = {}
    ordered = sorted(documents, key=lambda d: (slugs.depth(d["slug"]), d["posted"], str(d["_id"])))
    for document in ordered:
        slug = document["slug"]
        if slug in existing or slug in new or document["_id"] in ids:
            continue
        node = to_node(document)
        parent = slugs.parent_slug(slug)
        if parent in new:
            new[parent][REPLIES].append(node)
        else:
            grafts.setdefault(existing.get(parent, ()) if parent else (), []).append(node)
        new[slug] = node
        ids.add(node["_id"])
    return grafts, len(new)


# --- Reading and writing discussion documents ------------------------------------------


def ensure_indexes(db: Database) -> list[str]:
    """None: everything goes through the discussion document's `_id` (the pattern's
    "no extra index"); the cross-discussion operations scan (module docstring)."""
    return []


def _collection():
    return get_db().discussions


def _load(discussion_id: ObjectId, projection: dict | None = None) -> dict | None:
    return _collection().find_one({"_id": discussion_id}, projection)


def _comments(discussion_id: ObjectId) -> list[Comment]:
    return unpack(_load(discussion_id))


def max_bytes() -> int:
    """The largest discussion document this store writes (COMMENTS_EMBEDDED_MAX_BYTES,
    or the server's limit minus SAFETY_MARGIN)."""
    return settings.COMMENTS_EMBEDDED_MAX_BYTES or max_document_bytes() - SAFETY_MARGIN


def _check_size(discussion_id: ObjectId, discussion: dict | None, nodes: list[dict]) -> None:
    """DiscussionFull if the discussion with these new nodes would pass max_bytes()."""
    size = len(bson.encode(discussion or _new_discussion(discussion_id, [])))
    size += added_bytes(nodes)
    limit = max_bytes()
    if size > limit:
        raise DiscussionFull(DISCUSSION_FULL.format(discussion_id=discussion_id, size=size, limit=limit))


def _new_discussion(discussion_id: ObjectId, nodes: list[dict]) -> dict:
    return {"_id": discussion_id, "discussion_id": discussion_id, REPLIES: nodes}


def _push(discussion_id: ObjectId, chain: Chain, nodes: list[dict], *, form_key: str | None = None) -> bool:
    """Push `nodes` (new subtrees) under the comment at the end of `chain`, in one
    update whose filter refuses it unless the chain exists, no node at any depth has
    one of their slugs or ids (or `form_key`), and the document stays under
    max_bytes(). Whether it went in."""
    new = [node for _, node in flatten(nodes)]
    taken = any_depth("slug", {"$in": [n["slug"] for n in new]})["$or"]
    taken += any_depth("_id", {"$in": [n["_id"] for n in new]})["$or"]
    if form_key:
        taken += any_depth("form_key", form_key)["$or"]
    room = max_bytes() - added_bytes(nodes)
    result = _collection().update_one(
        {"_id": discussion_id, **chain_exists(chain), "$nor": taken,
         "$expr": {"$lte": [{"$bsonSize": "$$ROOT"}, room]}},
        {"$push": {chain_field(chain, REPLIES): {"$each": nodes}}},
        array_filters=chain_filters(chain),
    )
    return result.modified_count == 1


def _create(discussion_id: ObjectId, nodes: list[dict]) -> bool:
    """Create the discussion document holding `nodes`; False if another writer
    created it first (the `_id` index lets one insert in)."""
    _check_size(discussion_id, None, nodes)
    try:
        _collection().insert_one(_new_discussion(discussion_id, nodes))
    except DuplicateKeyError:
        return False
    return True


def _chain_in(discussion: dict, slug: str) -> Chain | None:
    """Where the comment with `slug` actually sits in the document, or None."""
    found = (chain for chain, node in flatten(discussion.get(REPLIES) or []) if node["slug"] == slug)
    return next(found, None)


def insert_comment(
    *,
    discussion_id: ObjectId,
    parent: Comment | None,
    slug: str,
    full_slug: str,
    posted: datetime,
    author: CommentAuthor,
    text: str,
    html: str,
    form_key: str | None = None,
    status: str = APPROVED,
    ip: str | None = None,
) -> Comment:
    """Push one comment under its parent (or to the top level, creating the discussion
    document on its first comment) in one conditional update (module docstring).
    SlugTaken if a comment of the discussion already has its slug or `form_key`,
    DiscussionFull if the document would grow past max_bytes(), LookupError if the
    parent is not in the discussion."""
    node = to_node(new_document(
        discussion_id=discussion_id, parent=parent, slug=slug, full_slug=full_slug, posted=posted,
        author=author, text=text, html=html, form_key=form_key, status=status, ip=ip,
    ))
    chain = chain_of(parent.slug) if parent else ()
    for _ in range(RETRIES):
        if _push(discussion_id, chain, [node], form_key=form_key):
            return to_comment(node, discussion_id)
        discussion = _load(discussion_id)
        if discussion is None and parent is None:
            if _create(discussion_id, [node]):
                return to_comment(node, discussion_id)
            continue
        nodes = [n for _, n in flatten((discussion or {}).get(REPLIES) or [])]
        if any(n["slug"] == slug or (form_key and n.get("form_key") == form_key) for n in nodes):
            raise SlugTaken(slug)
        if parent is not None:
            chain = _chain_in(discussion or {}, parent.slug)
            if chain is None:
                raise LookupError(PARENT_MISSING.format(slug=parent.slug, discussion_id=discussion_id))
        _check_size(discussion_id, discussion, [node])
    # Refused RETRIES times with no reason a read could see: let the caller draw
    # another slug, as for a taken one.
    raise SlugTaken(slug)


def find_by_slug(*, discussion_id: ObjectId, slug: str) -> Comment | None:
    """The permalink query: one comment of one discussion, by its slug path."""
    slug = str(slug)
    return next((c for c in _comments(discussion_id) if c.slug == slug), None)


def find_ancestors(*, comment: Comment) -> list[Comment]:
    """The comments above this one, root first, whatever their status."""
    return find_by_slugs(discussion_id=comment.discussion_id, slugs=slugs.ancestor_slugs(comment.slug))


def find_by_slugs(*, discussion_id: ObjectId, slugs: list[str]) -> list[Comment]:
    """The comments of one discussion with these slug paths, threaded."""
    wanted = {str(s) for s in slugs}
    if not wanted:
        return []
    found = [c for c in _comments(discussion_id) if c.slug in wanted]
    return listing.sort(found, ORDERS["threaded"])


def find_subthread(*, comment: Comment) -> list[Comment]:
    """The comment and all its descendants, threaded."""
    return listing.subthread(_comments(comment.discussion_id), comment)


def find_page(
    *,
    discussion_id: ObjectId,
    order: str,
    limit: int,
    skip: int = 0,
    after: tuple | None = None,
    before: tuple | None = None,
    below: Comment | None = None,
    viewer: Viewer = READERS,
) -> list[Comment]:
    """A page of a discussion (or of the replies below one comment) in `order`, as
    `viewer` sees it, by position (`skip`) or after / before a cursor key."""
    return listing.page(
        _comments(discussion_id), order=order, limit=limit, skip=skip, after=after, before=before,
        parent=below, viewer=viewer,
    )


def count(*, discussion_id: ObjectId, below: Comment | None = None, viewer: Viewer = READERS) -> int:
    """How many comments a discussion (or the replies below one comment) lists for `viewer`."""
    return len(listing.listed(_comments(discussion_id), parent=below, viewer=viewer))


def tally(*, discussion_id: ObjectId, below: Comment | None = None, viewer: Viewer = READERS) -> Tally:
    """`count` and how many of those are placeholders, from one read."""
    return listing.tally(_comments(discussion_id), parent=below, viewer=viewer)


def count_before(
    *, discussion_id: ObjectId, order: str, key: tuple, below: Comment | None = None, viewer: Viewer = READERS
) -> int:
    """How many comments sort before `key`: where a comment sits in a view."""
    return listing.count_before(_comments(discussion_id), order=order, key=key, parent=below, viewer=viewer)


def count_approved(*, discussion_id: ObjectId) -> int:
    """How many approved comments a discussion has (a post's comment count): only the
    statuses come back, not the comments' texts."""
    discussion = _load(discussion_id, at_every_depth("status"))
    nodes = flatten((discussion or {}).get(REPLIES) or [])
    return sum((node.get("status") or APPROVED) not in HIDDEN for _, node in nodes)


def find_latest(*, discussion_id: ObjectId, limit: int) -> list[Comment]:
    """The newest approved comments of a discussion, newest first."""
    return listing.latest(_comments(discussion_id), limit=limit)


def find_duplicate(
    *, discussion_id: ObjectId, parent_id: ObjectId | None, author: CommentAuthor, ip: str | None, text: str,
    since: datetime,
) -> Comment | None:
    """A comment with this text by this author in the same place since `since` (not
    spam or deleted): the one to give back instead of storing a copy."""
    return listing.duplicate(
        _comments(discussion_id), parent_id=parent_id, author=author, ip=ip, text=str(text), since=since
    )


def has_approved_reply(*, comment: Comment) -> bool:
    """Whether any reply below this comment, at any depth, is approved."""
    return bool(listing.approved(listing.below(_comments(comment.discussion_id), comment)))


# --- Any comment, by id or by who wrote it: scans (module docstring) ---------------------


def _discussions(query: dict, projection: dict | None = None) -> Iterator[dict]:
    """The discussion documents matching `query`, one cursor, in `_id` order."""
    return iter(_collection().find(query, projection).sort("_id", ASCENDING))


def _matching(query: dict, wanted: Callable[[Comment], bool]) -> Iterator[Comment]:
    """The comments meeting `wanted` in the discussions matching `query` (a superset
    the server finds; the comments themselves are picked here)."""
    for discussion in _discussions(query):
        yield from (c for c in unpack(discussion) if wanted(c))


def _with_ids(ids: Iterable[ObjectId]) -> tuple[set[ObjectId], dict]:
    ids = set(ids)
    return ids, any_depth("_id", {"$in": sorted(ids)})


def find_by_id(comment_id: ObjectId | str) -> Comment | None:
    try:
        oid = ObjectId(comment_id)
    except (InvalidId, TypeError):
        return None
    return next(_matching(any_depth("_id", oid), lambda c: c.id == oid), None)


def find_by_ids(*, ids: Iterable[ObjectId]) -> list[Comment]:
    """The comments with these ids (any discussion, any status), newest first."""
    ids, query = _with_ids(ids)
    if not ids:
        return []
    return listing.newest_first(_matching(query, lambda c: c.id in ids))


def find_by_keys(*, keys: list[tuple[ObjectId, str]]) -> list[Comment]:
    """The comments named by (discussion_id, slug) pairs, one read of their discussions."""
    wanted = set(keys)
    if not wanted:
        return []
    query = {"_id": {"$in": sorted({d for d, _ in wanted})}}
    return list(_matching(query, lambda c: (c.discussion_id, c.slug) in wanted))


def has_approved_by(*, author_id: int | None = None, email: str = "") -> bool:
    """Whether this commenter (a member by id, or anyone by e-mail address) has an
    approved comment: who is *not* a first-time commenter."""
    if author_id is not None:
        query, mine = any_depth("author.id", int(author_id)), lambda c: c.author.id == int(author_id)
    elif email:
        query, mine = any_depth("author.email", str(email)), lambda c: c.author.email == str(email)
    else:
        return False
    return next(_matching(query, lambda c: mine(c) and c.approved), None) is not None


def _commenter_query(commenter: Commenter) -> dict:
    """The discussions that may hold `commenter`'s comments (e-mail addresses matched
    whole, without regard to case, literally; Commenter.matches decides)."""
    either: list[dict] = []
    for field, condition in commenter_conditions(commenter):
        either += any_depth(field, condition)["$or"]
    return {"$or": either}


def find_by_commenter(*, commenter: Commenter, exclude_status: str | None = None) -> list[Comment]:
    """The comments of `commenter` (all of them: bans are rare)."""
    return list(_matching(
        _commenter_query(commenter),
        lambda c: commenter.matches(c) and (not exclude_status or c.status != exclude_status),
    ))


def _queue_query(tab: str, filters: QueueFilter) -> dict:
    """The discussions that may hold comments of a queue tab (a superset)."""
    query: dict[str, Any] = {}
    if filters.discussion_id is not None:
        query["_id"] = filters.discussion_id
    if tab in ("pending", "spam"):
        query.update(any_depth("status", tab))
    elif tab == "flagged":
        query.update(any_depth("flag_count", {"$gt": 0}))
    elif tab != "recent":
        raise ValueError(f"no queue tab {tab!r}")
    return query


def _queued(tab: str, filters: QueueFilter) -> Iterator[Comment]:
    return _matching(_queue_query(tab, filters), lambda c: in_queue(tab, filters, c))


def find_queue(*, tab: str, filters: QueueFilter, skip: int, limit: int) -> list[Comment]:
    """A page of a moderation queue tab, keeping no more than skip + limit comments
    in memory while it reads the discussions."""
    return listing.first(_queued(tab, filters), order=queue_order(tab), limit=skip + limit)[skip:]


def count_queue(*, tab: str, filters: QueueFilter) -> int:
    return sum(1 for _ in _queued(tab, filters))


def find_latest_by_author(*, author_id: int, limit: int) -> list[Comment]:
    """A member's newest approved comments, on any post, newest first. The pattern
    has no index on a comment's author below the top level, so this reads every
    discussion the member commented in (one at a time, keeping only `limit`)."""
    author_id = int(author_id)
    theirs = _matching(any_depth("author.id", author_id), lambda c: c.author.id == author_id and c.approved)
    return heapq.nlargest(max(0, limit), theirs, key=lambda c: (c.posted, c.id))


def find_member_authors() -> list[CommentAuthor]:
    """Every distinct author copy of logged-in commenters (one per user when in sync)."""
    seen: dict[tuple, CommentAuthor] = {}
    for discussion in _discussions(any_depth("author.id", {"$ne": None}), at_every_depth("author")):
        for _, node in flatten(discussion.get(REPLIES) or []):
            author = node.get("author") or {}
            if author.get("id") is not None:
                key = (author["id"], author.get("name", ""), author.get("email", ""))
                seen.setdefault(key, CommentAuthor(*key))
    return list(seen.values())


def find_discussion_ids_by_author(*, author_id: int) -> list[ObjectId]:
    """The discussions this user has commented on (the server's match is exact, so
    only their ids come back)."""
    return sorted(_collection().distinct("_id", any_depth("author.id", int(author_id))))


# --- Changing comments in place: one `$set` through each comment's chain ---------------


def _located(query: dict, wanted: Callable[[Comment], bool]) -> Iterator[tuple[ObjectId, Chain, dict]]:
    """(discussion id, chain, node) of each comment meeting `wanted` in the
    discussions matching `query`."""
    for discussion in _discussions(query):
        for chain, node in flatten(discussion.get(REPLIES) or []):
            if wanted(to_comment(node, discussion["_id"])):
                yield discussion["_id"], chain, node


def _stored(node: dict, field: str) -> Any:
    """A node's value of a (possibly dotted) field; MISSING if it has none."""
    value: Any = node
    for part in field.split("."):
        if not isinstance(value, dict) or part not in value:
            return MISSING
        value = value[part]
    return value


def _set(discussion_id: ObjectId, chain: Chain, node_id: ObjectId, changes: dict, *,
         write_concern: WriteConcern | None = None, after: bool = False) -> Any:
    """`$set` these fields of one comment, reached by its chain and checked by its
    `_id`, in one update. The update's result, or with `after` the discussion
    document after it (None if the comment was not there)."""
    collection = _collection()
    if write_concern is not None:
        collection = collection.with_options(write_concern=write_concern)
    query = {"_id": discussion_id, **chain_exists(chain, _id=node_id)}
    update = {"$set": {chain_field(chain, field): value for field, value in changes.items()}}
    if after:
        return collection.find_one_and_update(
            query, update, array_filters=chain_filters(chain), return_document=ReturnDocument.AFTER
        )
    return collection.update_one(query, update, array_filters=chain_filters(chain))


def _change(
    *, query: dict, wanted: Callable[[Comment], bool], changes: dict,
    write_concern: WriteConcern | None = None,
) -> int:
    """Apply `changes` (values by field) to every comment meeting `wanted` in the
    discussions matching `query`: one update per comment whose stored values differ.
    Returns how many comments changed (the updates' modified_count, so a value another
    writer set meanwhile is not counted)."""
    changed = 0
    for discussion_id, chain, node in _located(query, wanted):
        if all(_stored(node, field) == value for field, value in changes.items()):
            continue
        result = _set(discussion_id, chain, node["_id"], changes, write_concern=write_concern)
        changed += result.modified_count
    return changed


def set_status(*, ids: Iterable[ObjectId], status: str, blank: bool = False) -> int:
    """Give these comments `status`; with `blank`, also empty their text (an author
    taking their words back). Returns how many changed."""
    ids, query = _with_ids(ids)
    if not ids:
        return 0
    changes: dict[str, Any] = {"status": status}
    if blank:
        changes.update(text="", html="")
    return _change(query=query, wanted=lambda c: c.id in ids, changes=changes)


def set_subthread_status(*, comment: Comment, status: str) -> int:
    """Give a comment and every reply below it `status` (no placeholders: the whole
    sub-thread goes), one update per comment of its discussion."""
    prefix = comment.full_slug + slugs.SEPARATOR
    return _change(
        query={"_id": comment.discussion_id},
        wanted=lambda c: c.full_slug == comment.full_slug or c.full_slug.startswith(prefix),
        changes={"status": status, "placeholder": False},
    )


def set_placeholder(*, ids: Iterable[ObjectId], placeholder: bool) -> int:
    ids, query = _with_ids(ids)
    if not ids:
        return 0
    return _change(query=query, wanted=lambda c: c.id in ids, changes={"placeholder": placeholder})


def update_text(
    *, comment_id: ObjectId, text: str, html: str, status: str, edited: datetime
) -> Comment | None:
    """Store an author's edit (and the status its checks gave it); the comment after,
    from the document the update returns."""
    ids, query = _with_ids([comment_id])
    found = next(_located(query, lambda c: c.id in ids), None)
    if found is None:
        return None
    discussion_id, chain, _ = found
    changes = {"text": text, "html": html, "status": status, "edited": edited}
    after = _set(discussion_id, chain, comment_id, changes, after=True)
    return next((c for c in unpack(after) if c.id == comment_id), None)


def set_flag_count(*, ids: Iterable[ObjectId], flag_count: int) -> None:
    """Store how many readers flagged these comments (counted by comments.flags)."""
    ids, query = _with_ids(ids)
    if ids:
        _change(query=query, wanted=lambda c: c.id in ids, changes={"flag_count": flag_count})


def set_author_name(*, author_id: int, name: str) -> int:
    """Give every comment by this user `name`; return how many changed. Only copies
    that disagree are written, so a rerun writes nothing; majority write concern."""
    author_id, name = int(author_id), str(name)
    return _change(
        query=any_depth("author.id", author_id),
        wanted=lambda c: c.author.id == author_id,
        changes={"author.name": name},
        write_concern=WriteConcern(w="majority"),
    )


# --- Export, import and migration: flat documents, as the documents store's -------------


def iter_documents(*, discussion_id: ObjectId | None = None, batch_size: int = 500) -> Iterator[dict]:
    """Every comment as the documents store's flat document, of one discussion or of
    all, in discussion and posting order; one discussion in memory at a time."""
    query = {} if discussion_id is None else {"_id": discussion_id}
    for discussion in _collection().find(query).sort("_id", ASCENDING).batch_size(batch_size):
        nodes = flatten(discussion.get(REPLIES) or [])
        documents = [to_document(node, discussion["_id"]) for _, node in nodes]
        yield from sorted(documents, key=lambda d: (d["posted"], d["_id"]))


def insert_documents(*, documents: list[dict]) -> int:
    """Put flat comment documents into their discussions' trees (their `_id`, slugs
    and times kept); return how many went in. One whose slug (or `_id`) the
    discussion already has is skipped. A discussion new here is one insert of the
    whole tree; into an existing one, each new subtree is one conditional `$push`.
    DiscussionFull if a discussion would pass max_bytes()."""
    by_discussion: dict[ObjectId, list[dict]] = {}
    for document in documents:
        by_discussion.setdefault(document["discussion_id"], []).append(document)
    return sum(_insert_into(discussion_id, group) for discussion_id, group in by_discussion.items())


def _insert_into(discussion_id: ObjectId, documents: list[dict]) -> int:
    """Plan from a fresh read, then insert the new document or push each new subtree;
    a push another writer got in ahead of is planned again (what went in is then
    skipped)."""
    went_in = 0
    for _ in range(RETRIES):
        discussion = _load(discussion_id)
        grafts, added = graft((discussion or {}).get(REPLIES) or [], documents)
        if not added:
            return went_in
        _check_size(discussion_id, discussion, [node for nodes in grafts.values() for node in nodes])
        if discussion is None:
            if _create(discussion_id, grafts.get((), [])):
                return went_in + added
            continue
        for chain, nodes in grafts.items():
            if not _push(discussion_id, chain, nodes):
                break
            went_in += sum(1 for _ in flatten(nodes))
        else:
            return went_in
    raise RuntimeError(f"discussion {discussion_id} kept changing during an import")


def discussion_ids() -> list[ObjectId]:
    """Every discussion that has comments here (what a migration copies)."""
    return sorted(_collection().distinct("_id", {f"{REPLIES}.0": {"$exists": True}}))


def drop_discussion(*, discussion_id: ObjectId) -> int:
    """Delete a discussion's document (a migration clearing a partial copy before it
    copies the discussion again); returns how many comments went with it."""
    return len(unpack(_collection().find_one_and_delete({"_id": discussion_id})))
