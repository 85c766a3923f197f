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
when a node is unpacked into a Comment, plus its own `replies`. A reply is pushed to
the dotted path of its parent's position: the path `[0, 2]` is
`{'$push': {'replies.0.replies.2.replies': node}}`. Comments are never removed
(deleting one is a status), so a position found once stays valid, and updates of a
comment `$set` dotted positional fields such as `replies.0.replies.2.status`.

Where the work happens. Every read is one `_id` lookup of the whole document; the
tree is unpacked in Python and comments/listing.py orders, filters, pages and counts
it. On MongoDB a `$slice` projection could cut a chronological page out of the array
and the positional `$` operator or arrayFilters could update a comment without
knowing its position; FerretDB v1, the dev and test database, has none of these (nor
`$replaceRoot`), so this module reads the document and computes positions itself.
FerretDB v1 also applies an update by rewriting the document without a lock, so
every write runs under comments/locks.py's lease on "discussions:<id>" (a no-op on
MongoDB, where each update of one document is atomic).

Costs, which the benchmarks show:
- a discussion can never exceed the server's document limit (16 MB on MongoDB):
  before a push this module checks the size against COMMENTS_EMBEDDED_MAX_BYTES
  (default: the server's limit minus SAFETY_MARGIN) and refuses with DiscussionFull,
  whose message tells an operator to move the discussion to another store;
- every post reads the whole document (for the parent's position and the size
  check), and the server rewrites the growing document on every write;
- there is no index on embedded comments. Operations across discussions (by
  comment id, by commenter, the moderation queue, renames) match nested fields with
  dotted paths, and MongoDB matches an array field at one depth per path, so the
  query names every depth up to slugs.DEPTH_CEILING (`replies._id`,
  `replies.replies._id`, ...): a collection scan that sends back only the
  discussions that hold a match, whose comments are then picked out in Python. The
  moderation queue's "recent" tab reads every discussion.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any

import bson
from bson import ObjectId
from bson.errors import InvalidId
from django.conf import settings
from pymongo import ASCENDING
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError
from pymongo.write_concern import WriteConcern

from cms.mongo import get_db, max_document_bytes
from comments import listing, locks, slugs
from comments.records import (
    APPROVED, ORDERS, READERS, Comment, CommentAuthor, Commenter, DiscussionFull, QueueFilter, SlugTaken,
    Tally, Viewer, commenter_conditions, in_queue, new_document, queue_order,
)

REPLIES = "replies"
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
# How often a write starts over after another writer created the discussion first.
UPSERT_RETRIES = 5
Path = tuple[int, ...]


# --- Pure helpers: positions, dotted names, the tree ----------------------------------


def replies_field(path: Path) -> str:
    """The dotted name of the `replies` array of the comment at `path` (of the
    discussion's own top-level array for the empty path): (0, 2) gives
    'replies.0.replies.2.replies'."""
    return ".".join([REPLIES] + [f"{position}.{REPLIES}" for position in path])


def node_field(path: Path, name: str) -> str:
    """The dotted name of the field `name` of the comment at `path` (not empty):
    (0, 2) and 'status' give 'replies.0.replies.2.status'."""
    if not path:
        raise ValueError("the discussion itself is not a comment")
    return f"{replies_field(path[:-1])}.{path[-1]}.{name}"


def path_of(field: str) -> Path:
    """The position path a `replies_field` names (its inverse)."""
    parts = field.split(".")
    if parts[0::2] != [REPLIES] * ((len(parts) + 1) // 2) or len(parts) % 2 == 0:
        raise ValueError(f"{field!r} is not a replies field")
    return tuple(int(position) for position in parts[1::2])


def flatten(replies: list[dict], path: Path = ()) -> Iterator[tuple[Path, dict]]:
    """Every comment node of a tree with its position path, depth first (a node
    before its replies, each level in array order)."""
    for position, node in enumerate(replies):
        here = path + (position,)
        yield here, node
        yield from flatten(node.get(REPLIES) or [], here)


def any_depth(field: str, condition: Any, *, depth: int = slugs.DEPTH_CEILING) -> dict:
    """A query matching discussions with a comment, at any depth up to `depth`
    levels, whose `field` meets `condition`: one dotted path per depth, since a path
    through nested arrays names exactly one depth."""
    return {"$or": [{".".join([REPLIES] * level + [field]): condition} for level in range(1, depth + 1)]}


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


def graft(replies: list[dict], documents: Iterable[dict]) -> tuple[dict[Path, list[dict]], int]:
    """Plan adding flat comment documents to a tree: which new subtrees go under which
    existing position (the empty path: top level), and how many comments they hold.

    Parents go before children (by depth, then posting order) and a new reply is
    nested in its new parent, so each subtree is one `$push`. A document whose slug
    or `_id` the tree (or an earlier document) has is skipped. One whose parent is
    nowhere goes to the top level: it keeps its slugs, so it still sorts in place,
    and is not lost.
    """
    existing = {node["slug"]: path for path, node in flatten(replies)}
    ids = {node["_id"] for _, node in flatten(replies)}
    new: dict[str, dict] = {}
    grafts: dict[Path, list[dict]] = {}
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


def _load(discussion_id: ObjectId) -> dict | None:
    return _collection().find_one({"_id": discussion_id})


def _comments(discussion_id: ObjectId) -> list[Comment]:
    return unpack(_load(discussion_id))


def _lock(discussion_id: ObjectId) -> str:
    return f"discussions:{discussion_id}"


def max_bytes() -> int:
    """The largest discussion document this store writes (COMMENTS_EMBEDDED_MAX_BYTES,
    or the server's limit minus SAFETY_MARGIN)."""
    return settings.COMMENTS_EMBEDDED_MAX_BYTES or max_document_bytes() - SAFETY_MARGIN


def _check_size(discussion_id: ObjectId, discussion: dict | None, nodes: list[dict]) -> None:
    """DiscussionFull if the discussion with these new nodes would pass max_bytes()."""
    size = len(bson.encode(discussion or {"_id": discussion_id, "discussion_id": discussion_id, REPLIES: []}))
    size += sum(len(bson.encode(node)) for node in nodes)
    limit = max_bytes()
    if size > limit:
        raise DiscussionFull(DISCUSSION_FULL.format(discussion_id=discussion_id, size=size, limit=limit))


def _position(discussion: dict | None, slug: str) -> Path:
    for path, node in flatten((discussion or {}).get(REPLIES) or []):
        if node["slug"] == slug:
            return path
    raise LookupError(PARENT_MISSING.format(slug=slug, discussion_id=(discussion or {}).get("_id")))


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
    document on its first comment); SlugTaken if its slug is already used in the
    discussion, DiscussionFull if the document would grow past max_bytes().

    A new slug can only clash with a sibling's (a slug starts with its parent's), so
    the push is conditional on no sibling having it: atomic on MongoDB, and under the
    discussion's lease on FerretDB.
    """
    node = to_node(new_document(
        discussion_id=discussion_id, parent=parent, slug=slug, full_slug=full_slug, posted=posted,
        author=author, text=text, html=html, form_key=form_key, status=status, ip=ip,
    ))
    with locks.holding(_lock(discussion_id)):
        for _ in range(UPSERT_RETRIES):
            discussion = _load(discussion_id)
            _check_size(discussion_id, discussion, [node])
            field = replies_field(_position(discussion, parent.slug) if parent else ())
            try:
                result = _collection().update_one(
                    {"_id": discussion_id, f"{field}.slug": {"$ne": slug}},
                    {"$push": {field: node}, "$setOnInsert": {"discussion_id": discussion_id}},
                    upsert=parent is None,
                )
            except DuplicateKeyError:
                # The filter missed an existing document: the slug is taken, or another
                # writer created the discussion after our read. Look again.
                continue
            if result.matched_count == 0 and result.upserted_id is None:
                raise SlugTaken(slug)
            return to_comment(node, discussion_id)
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
    """How many approved comments a discussion has (a post's comment count)."""
    return len(listing.approved(_comments(discussion_id)))


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


def find_member_authors() -> list[CommentAuthor]:
    """Every distinct author copy of logged-in commenters (one per user when in sync)."""
    seen: dict[tuple, CommentAuthor] = {}
    for comment in _matching(any_depth("author.id", {"$ne": None}), lambda c: c.author.id is not None):
        seen.setdefault((comment.author.id, comment.author.name, comment.author.email), comment.author)
    return list(seen.values())


def find_discussion_ids_by_author(*, author_id: int) -> list[ObjectId]:
    """The discussions this user has commented on (the server's match is exact, so
    only their ids come back)."""
    return [d["_id"] for d in _discussions(any_depth("author.id", int(author_id)), {"_id": 1})]


# --- Changing comments in place: $set on positional paths, one update per discussion ---


def _rewrite(
    *, query: dict, wanted: Callable[[Comment], bool], changes: Callable[[dict], dict], write_concern=None,
) -> int:
    """Apply `changes(node)` to every comment meeting `wanted` in the discussions
    matching `query`: per discussion, under its lease, one update of the dotted
    fields that differ. Returns how many comments changed (as update_many's
    modified_count counts documents)."""
    collection = _collection()
    if write_concern is not None:
        collection = collection.with_options(write_concern=write_concern)
    changed = 0
    for found in _discussions(query, {"_id": 1}):
        discussion_id = found["_id"]
        with locks.holding(_lock(discussion_id)):
            discussion = _load(discussion_id)
            fields: dict[str, Any] = {}
            for path, node in flatten((discussion or {}).get(REPLIES) or []):
                if not wanted(to_comment(node, discussion_id)):
                    continue
                differ = {k: v for k, v in changes(node).items() if k not in node or node[k] != v}
                fields.update({node_field(path, k): v for k, v in differ.items()})
                changed += bool(differ)
            if fields:
                collection.update_one({"_id": discussion_id}, {"$set": fields})
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
    return _rewrite(query=query, wanted=lambda c: c.id in ids, changes=lambda node: changes)


def set_subthread_status(*, comment: Comment, status: str) -> int:
    """Give a comment and every reply below it `status` (no placeholders: the whole
    sub-thread goes), in one update of its discussion."""
    prefix = comment.full_slug + slugs.SEPARATOR
    return _rewrite(
        query={"_id": comment.discussion_id},
        wanted=lambda c: c.full_slug == comment.full_slug or c.full_slug.startswith(prefix),
        changes=lambda node: {"status": status, "placeholder": False},
    )


def set_placeholder(*, ids: Iterable[ObjectId], placeholder: bool) -> int:
    ids, query = _with_ids(ids)
    if not ids:
        return 0
    return _rewrite(
        query=query, wanted=lambda c: c.id in ids, changes=lambda node: {"placeholder": placeholder}
    )


def update_text(
    *, comment_id: ObjectId, text: str, html: str, status: str, edited: datetime
) -> Comment | None:
    """Store an author's edit (and the status its checks gave it); the comment after."""
    changes = {"text": text, "html": html, "status": status, "edited": edited}
    ids, query = _with_ids([comment_id])
    _rewrite(query=query, wanted=lambda c: c.id in ids, changes=lambda node: changes)
    return find_by_id(comment_id)


def set_flag_count(*, ids: Iterable[ObjectId], flag_count: int) -> None:
    """Store how many readers flagged these comments (counted by comments.flags)."""
    ids, query = _with_ids(ids)
    if ids:
        _rewrite(query=query, wanted=lambda c: c.id in ids, changes=lambda node: {"flag_count": flag_count})


def set_status_by_commenter(*, commenter: Commenter, status: str) -> int:
    """Give every comment of `commenter` `status`."""
    return _rewrite(query=_commenter_query(commenter), wanted=commenter.matches,
                    changes=lambda node: {"status": status})


def set_author_name(*, author_id: int, name: str) -> int:
    """Give every comment by this user `name`; return how many changed. Only copies
    that disagree are written, so a rerun writes nothing; majority write concern."""
    author_id, name = int(author_id), str(name)
    return _rewrite(
        query=any_depth("author.id", author_id),
        wanted=lambda c: c.author.id == author_id and c.author.name != name,
        changes=lambda node: {"author.name": name},
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
    with locks.holding(_lock(discussion_id)):
        for _ in range(UPSERT_RETRIES):
            discussion = _load(discussion_id)
            grafts, added = graft((discussion or {}).get(REPLIES) or [], documents)
            if not added:
                return 0
            _check_size(discussion_id, discussion, [node for nodes in grafts.values() for node in nodes])
            if discussion is None:
                try:
                    _collection().insert_one({"_id": discussion_id, "discussion_id": discussion_id,
                                              REPLIES: grafts.get((), [])})
                    return added
                except DuplicateKeyError:
                    continue
            if _push_grafts(discussion_id, grafts):
                return added
    raise RuntimeError(f"discussion {discussion_id} kept changing during an import")


def _push_grafts(discussion_id: ObjectId, grafts: dict[Path, list[dict]]) -> bool:
    """Push each new subtree under its position; False if a concurrent writer took
    one of their slugs first (the caller plans again; what went in is then skipped)."""
    for path, nodes in grafts.items():
        field = replies_field(path)
        result = _collection().update_one(
            {"_id": discussion_id, f"{field}.slug": {"$nin": [node["slug"] for node in nodes]}},
            {"$push": {field: {"$each": nodes}}},
        )
        if result.matched_count == 0:
            return False
    return True


def discussion_ids() -> list[ObjectId]:
    """Every discussion that has comments here (what a migration copies)."""
    return [d["_id"] for d in _discussions({f"{REPLIES}.0": {"$exists": True}}, {"_id": 1})]


def drop_discussion(*, discussion_id: ObjectId) -> int:
    """Delete a discussion's document (a migration clearing a partial copy before it
    copies the discussion again); returns how many comments went."""
    with locks.holding(_lock(discussion_id)):
        gone = len(_comments(discussion_id))
        _collection().delete_one({"_id": discussion_id})
    return gone

