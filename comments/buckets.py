"""The `comment_pages` collection: comments in buckets ("pages") of about PAGE_SIZE
(pattern 3 of `storage-patterns.md`, extended to threaded views). The only module
that touches it; the same operations as comments/documents.py (store.OPERATIONS).

A bucket is the pattern's document:

    {_id, discussion_id, page, count, comments: [comment, ...]}

and each embedded comment holds the stored fields of records.new_document (its own
`_id`, parent_id, slug, full_slug, thread, posted, author{id, name, email}, text,
html, form_key, status, ip; later placeholder, edited, flag_count) without
`discussion_id`, which unpacking adds back. Since every comment keeps its `slug` and
`full_slug`, the threaded views work as in the one-document store. The discussion
document keeps `num_pages`, the page new comments go to: in Slugline the discussion
is the post, so that counter lives on the post (cms/posts.py, `comment_pages`).

The pattern's operations:
- **Post** (`insert_comment`): `find_one_and_update({discussion_id, page: num_pages},
  {$inc: {count: 1}, $push: {comments: c}}, upsert=True)`, then, when the count it
  returns passes PAGE_SIZE, the conditional `num_pages` advance on the post (exactly
  one of two writers advances; no page number is skipped). Two first writers of a
  page race on the upsert: the unique `{discussion_id, page}` index refuses the
  second, which pushes again into the page the first created.
- **Page by position** (`walk`): the pattern's skip/limit across buckets, used by
  the chronological view whenever the buckets hold the comments in posting order.
- **Permalink** (`find_by_slug`): `find_one({discussion_id, 'comments.slug': slug})`,
  then the comment inside the bucket.

Where FerretDB v1 (the dev and test database) makes this module work in Python:
- it lacks the `$slice` projection and `$replaceRoot`, so a listing reads in two
  steps: (1) the few listing fields of all the discussion's comments (dotted
  projections into the array), which comments/listing.py orders, filters and pages
  exactly like the one-document store's indexed queries; (2) only the buckets that
  hold the chosen comments, whole. On MongoDB a `$slice: [start, n]` projection
  would cut the walked slice of each bucket on the server instead of reading it
  whole;
- it lacks the positional `$` operator and arrayFilters, so an edit, a status or a
  rename finds the bucket, computes the comment's index and `$set`s
  `comments.<i>.<field>`, per bucket;
- it applies an update by reading the document and writing it back without a lock
  (of 200 concurrent `$push`es to one document it kept 125), so every write to a
  bucket runs as the only writer of its discussion (comments/locks.py: a no-op on
  MongoDB, a lease on FerretDB);
- `$ne` and `$nin` on a path into an array match even when an element has the
  value, so such conditions are checked in Python, never in a query that decides.

Costs: a post and any listing read the listing fields of the whole discussion (a
few dozen bytes per comment) plus the one or two buckets a page needs; counts
(`count`, `tally`, `count_before`, `count_approved`) read only the first step. The
moderation queue and a commenter's comments reach buckets through multikey indexes
(`comments.status`, `comments.author.id`, ...), then read the queue fields of every
comment in the buckets found: a busy discussion's whole bucket set for one pending
comment. Exports and migrations hold one discussion in memory at a time.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo import ASCENDING, IndexModel, ReturnDocument
from pymongo.collection import Collection
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError
from pymongo.write_concern import WriteConcern

from cms import posts
from cms.distinct import distinct
from cms.mongo import create_indexes, get_db
from comments import listing, locks, slugs
from comments.records import (
    APPROVED, ORDERS, PENDING, QUEUE_TABS, READERS, SPAM, Comment, CommentAuthor, Commenter, QueueFilter,
    SlugTaken, Tally, Viewer, commenter_conditions, filter_conditions, is_listed_for, new_document,
)

# A page takes new comments until its count passes this (it may end a few over).
PAGE_SIZE = 100
# How often a push goes again after losing the race to create a page.
PUSH_ATTEMPTS = 3
NO_PAGE = "Could not add a comment to page {page} of discussion {discussion_id}."

INDEXES = [
    # One bucket per page; it starts with the shard key (cms/sharding.py).
    IndexModel([("discussion_id", ASCENDING), ("page", ASCENDING)], unique=True, name="discussion_page"),
    # Permalinks, replies' parents, slug checks.
    IndexModel([("discussion_id", ASCENDING), ("comments.slug", ASCENDING)], name="discussion_comment_slug"),
    # Any comment by id (moderation, edits, flags), and the queue and commenters (multikey).
    IndexModel([("comments._id", ASCENDING)], name="comment_id"),
    IndexModel([("comments.status", ASCENDING)], name="comment_status"),
    IndexModel([("comments.flag_count", ASCENDING)], name="comment_flag_count"),
    IndexModel([("comments.author.id", ASCENDING)], name="comment_author_id"),
    IndexModel([("comments.author.email", ASCENDING)], name="comment_author_email"),
    IndexModel([("comments.ip", ASCENDING)], name="comment_ip"),
]

# Step one of a listing: what ordering, visibility and keyset paging look at.
LISTING_FIELDS = {
    "discussion_id": 1, "page": 1, "count": 1, "comments._id": 1, "comments.slug": 1,
    "comments.full_slug": 1, "comments.thread": 1, "comments.posted": 1, "comments.status": 1,
    "comments.placeholder": 1, "comments.author.id": 1,
}
# What the moderation queue filters and sorts by.
# (`comments.author` whole, not beside `comments.author.id`: MongoDB refuses a path collision.)
QUEUE_FIELDS = {
    **{k: v for k, v in LISTING_FIELDS.items() if k != "comments.author.id"},
    "comments.author": 1, "comments.ip": 1, "comments.flag_count": 1,
}


def _pages() -> Collection:
    return get_db().comment_pages


def ensure_indexes(db: Database) -> list[str]:
    return create_indexes(db.comment_pages, INDEXES)


def lease_name(discussion_id: ObjectId) -> str:
    """The lease every write to this discussion's buckets holds (comments/locks.py)."""
    return f"comment_pages:{discussion_id}"


# --- Unpacking ----------------------------------------------------------------------------


def unpack(bucket: dict) -> list[Comment]:
    """The comments of a bucket, each with its discussion's id added back. On a
    projected bucket the fields left out get their defaults (`text` empty)."""
    discussion_id = bucket["discussion_id"]
    return [Comment.from_doc({"text": "", **c, "discussion_id": discussion_id}) for c in bucket.get("comments", ())]


def flat_document(comment: dict, discussion_id: ObjectId) -> dict:
    """An embedded comment as the one-document store keeps it (exports, migrations)."""
    return {"_id": comment["_id"], "discussion_id": discussion_id, **comment}


def _pick(buckets: Iterable[dict], wanted: Callable[[Comment], bool]) -> list[Comment]:
    return [c for bucket in buckets for c in unpack(bucket) if wanted(c)]


# --- Walking buckets by position (pure) ------------------------------------------------


def walk(*, counts: Sequence[int], skip: int, limit: int) -> list[tuple[int, int, int]]:
    """The pattern's skip/limit across buckets: walking the buckets in page order,
    each slice to take as (bucket index, start, stop). A bucket's count comes off
    `skip` (not below 0) and what is taken off `limit`, until `limit` is spent."""
    slices = []
    for index, count in enumerate(counts):
        if limit <= 0:
            break
        if skip >= count:
            skip -= count
            continue
        take = min(count - skip, limit)
        slices.append((index, skip, skip + take))
        skip, limit = 0, limit - take
    return slices


def in_posting_order(comments: Sequence[Comment]) -> bool:
    """Whether `comments` are in the chronological view's (posted, _id) order."""
    keys = [c.key("chronological") for c in comments]
    return all(a < b for a, b in itertools.pairwise(keys))


# --- Step one: the listing fields of a discussion ---------------------------------------


@dataclass(frozen=True)
class Outline:
    """The listing fields of every comment of a discussion, in bucket order (page,
    then position), with each bucket's page and count and the page of each comment."""

    comments: list[Comment] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    page_of: dict[ObjectId, int] = field(default_factory=dict)


def outline(*, discussion_id: ObjectId, fields: dict = LISTING_FIELDS) -> Outline:
    """Step one of a listing: one query, a small projection of every bucket."""
    found = Outline()
    for bucket in _pages().find({"discussion_id": discussion_id}, fields).sort("page", ASCENDING):
        comments = unpack(bucket)
        found.comments.extend(comments)
        found.pages.append(bucket["page"])
        found.counts.append(bucket.get("count", len(comments)))
        found.sizes.append(len(comments))
        found.page_of.update((c.id, bucket["page"]) for c in comments)
    return found


def _complete(chosen: list[Comment], where: dict[ObjectId, tuple[ObjectId, int]]) -> list[Comment]:
    """Step two: the full comments of `chosen` (outline stubs), in their order, from
    only the buckets that hold them (`where`: id -> (discussion_id, page))."""
    if not chosen:
        return []
    pages: dict[ObjectId, set[int]] = defaultdict(set)
    for comment in chosen:
        discussion_id, page = where[comment.id]
        pages[discussion_id].add(page)
    query = {"$or": [{"discussion_id": d, "page": {"$in": sorted(p)}} for d, p in pages.items()]}
    full = {c.id: c for bucket in _pages().find(query) for c in unpack(bucket)}
    return [full[c.id] for c in chosen if c.id in full]


def _complete_one(discussion_id: ObjectId, found: Outline, chosen: list[Comment]) -> list[Comment]:
    return _complete(chosen, {c.id: (discussion_id, found.page_of[c.id]) for c in chosen})


def walks(found: Outline, *, order: str, viewer: Viewer) -> bool:
    """Whether a chronological page can be read by position (`walk`): every comment
    is listed for `viewer`, each bucket's count is its length, and the buckets hold
    the comments in (posted, _id) order. Writers that drew `posted` in one order and
    pushed in the other (two concurrent posts, an import into a discussion that had
    comments, a post stamped with an earlier time) break the last; listings then
    take the exact two-step path."""
    return (
        order == "chronological"
        and found.counts == found.sizes
        and all(is_listed_for(viewer, c) for c in found.comments)
        and in_posting_order(found.comments)
    )


def _cut(discussion_id: ObjectId, found: Outline, slices: list[tuple[int, int, int]]) -> list[Comment]:
    """The walked slices, from only the buckets they fall in."""
    wanted = [found.pages[index] for index, _, _ in slices]
    if not wanted:
        return []
    buckets = {b["page"]: b for b in _pages().find({"discussion_id": discussion_id, "page": {"$in": wanted}})}
    return [c for index, start, stop in slices for c in unpack(buckets[found.pages[index]])[start:stop]]


# --- Posting ----------------------------------------------------------------------------


def slug_in_use(*, discussion_id: ObjectId, slug: str) -> bool:
    """The pattern's permalink query, asked before a push."""
    query = {"discussion_id": discussion_id, "comments.slug": str(slug)}
    return _pages().find_one(query, {"_id": 1}) is not None


def push_comment(*, discussion_id: ObjectId, page: int, document: dict) -> dict:
    """Push one comment (a records.new_document) onto `page`, creating the page if
    need be; the bucket after. SlugTaken if that page has the slug.

    The push is conditional on the page not holding the slug (`$ne`, atomic on
    MongoDB; FerretDB v1 ignores it on array paths, where the lease and the check
    before the push keep slugs unique). When that condition or a concurrent creator
    of the page makes the upsert collide with the unique `{discussion_id, page}`
    index, the page exists by then: the push goes again, or the slug is taken.
    """
    comment = {k: v for k, v in document.items() if k != "discussion_id"}
    for _ in range(PUSH_ATTEMPTS):
        try:
            return _pages().find_one_and_update(
                {"discussion_id": discussion_id, "page": page, "comments.slug": {"$ne": comment["slug"]}},
                {"$inc": {"count": 1}, "$push": {"comments": comment}},
                upsert=True, return_document=ReturnDocument.AFTER,
            )
        except DuplicateKeyError:
            query = {"discussion_id": discussion_id, "page": page, "comments.slug": comment["slug"]}
            if _pages().find_one(query, {"_id": 1}) is not None:
                raise SlugTaken(comment["slug"]) from None
    raise RuntimeError(NO_PAGE.format(page=page, discussion_id=discussion_id))


def advance_page(*, discussion_id: ObjectId, page: int, count: int) -> bool:
    """After a push that left `page` holding `count` comments: when that passes
    PAGE_SIZE, move the discussion's `num_pages` from `page` to the next. Whether
    this call advanced it (of two writers past the limit, exactly one does)."""
    if count <= PAGE_SIZE:
        return False
    return posts.advance_comment_pages(post_id=discussion_id, from_page=page)


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
    """Insert one comment into the discussion's last page; SlugTaken if its slug is
    already used in the discussion.

    The slug is checked across all pages (the permalink query), then the push is
    conditional on the last page. On MongoDB, where the lease is a no-op, one window
    remains: two writers of the same slug (a form submitted twice at once) that pass
    the check together and push to different pages because a page filled up between
    their pushes both go in. On FerretDB the lease serialises them.
    """
    doc = new_document(
        discussion_id=discussion_id, parent=parent, slug=slug, full_slug=full_slug, posted=posted, author=author,
        text=text, html=html, form_key=form_key, status=status, ip=ip,
    )
    with locks.holding(lease_name(discussion_id)):
        if slug_in_use(discussion_id=discussion_id, slug=slug):
            raise SlugTaken(slug)
        page = posts.comment_pages(post_id=discussion_id)
        bucket = push_comment(discussion_id=discussion_id, page=page, document=doc)
        advance_page(discussion_id=discussion_id, page=page, count=bucket["count"])
    return Comment.from_doc(doc)


# --- Reading one discussion -------------------------------------------------------------


def find_by_slug(*, discussion_id: ObjectId, slug: str) -> Comment | None:
    """The permalink: the bucket holding the slug, then the comment inside it."""
    bucket = _pages().find_one({"discussion_id": discussion_id, "comments.slug": str(slug)})
    found = _pick([bucket] if bucket else [], lambda c: c.slug == str(slug))
    return found[0] if found else None


def find_by_slugs(*, discussion_id: ObjectId, slugs: list[str]) -> list[Comment]:
    """The comments of one discussion with these slug paths, threaded, in one query."""
    if not slugs:
        return []
    wanted = {str(s) for s in slugs}
    buckets = _pages().find({"discussion_id": discussion_id, "comments.slug": {"$in": sorted(wanted)}})
    return listing.sort(_pick(buckets, lambda c: c.slug in wanted), ORDERS["threaded"])


def find_ancestors(*, comment: Comment) -> list[Comment]:
    """The comments above this one, root first, in one query."""
    return find_by_slugs(discussion_id=comment.discussion_id, slugs=slugs.ancestor_slugs(comment.slug))


def find_subthread(*, comment: Comment) -> list[Comment]:
    """The comment and all its descendants, threaded (the buckets holding any of
    them, by the anchored `full_slug` prefix)."""
    buckets = _pages().find({
        "discussion_id": comment.discussion_id,
        "comments.full_slug": {"$regex": slugs.subtree_regex(comment.full_slug)},
    })
    return listing.subthread([c for b in buckets for c in unpack(b)], comment)


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
    `viewer` sees it: by position (`skip`), or after / before a key.

    The chronological view by position walks the buckets when their order is the
    posting order (`walks`); everything else pages the outline (comments/listing.py)
    and fetches the buckets of the chosen comments. Both give the documents store's
    result.
    """
    found = outline(discussion_id=discussion_id)
    if after is None and before is None and below is None and walks(found, order=order, viewer=viewer):
        return _cut(discussion_id, found, walk(counts=found.counts, skip=skip, limit=limit))
    chosen = listing.page(
        found.comments, order=order, limit=limit, skip=skip, after=after, before=before, parent=below,
        viewer=viewer,
    )
    return _complete_one(discussion_id, found, chosen)


def count(*, discussion_id: ObjectId, below: Comment | None = None, viewer: Viewer = READERS) -> int:
    """How many comments a discussion (or the replies below one comment) lists for `viewer`."""
    return tally(discussion_id=discussion_id, below=below, viewer=viewer).total


def tally(*, discussion_id: ObjectId, below: Comment | None = None, viewer: Viewer = READERS) -> Tally:
    """`count` and how many of those are placeholders, from the outline."""
    return listing.tally(outline(discussion_id=discussion_id).comments, parent=below, viewer=viewer)


def count_before(
    *, discussion_id: ObjectId, order: str, key: tuple, below: Comment | None = None, viewer: Viewer = READERS
) -> int:
    """How many comments sort before `key`: where a comment sits in a view."""
    comments = outline(discussion_id=discussion_id).comments
    return listing.count_before(comments, order=order, key=key, parent=below, viewer=viewer)


STATUS_FIELDS = {"discussion_id": 1, "page": 1, "count": 1, "comments._id": 1, "comments.slug": 1,
                 "comments.full_slug": 1, "comments.posted": 1, "comments.status": 1}


def count_approved(*, discussion_id: ObjectId) -> int:
    """How many approved comments a discussion has (a post's comment count)."""
    return len(listing.approved(outline(discussion_id=discussion_id, fields=STATUS_FIELDS).comments))


def find_latest(*, discussion_id: ObjectId, limit: int) -> list[Comment]:
    """The newest approved comments of a discussion, newest first."""
    found = outline(discussion_id=discussion_id)
    return _complete_one(discussion_id, found, listing.latest(found.comments, limit=limit))


def find_duplicate(
    *, discussion_id: ObjectId, parent_id: ObjectId | None, author: CommentAuthor, ip: str | None, text: str,
    since: datetime,
) -> Comment | None:
    """A comment with this text by this author in the same place since `since` (not
    spam or deleted): the buckets holding that text, then listing.duplicate."""
    buckets = _pages().find({"discussion_id": discussion_id, "comments.text": str(text)})
    comments = [c for b in buckets for c in unpack(b)]
    return listing.duplicate(comments, parent_id=parent_id, author=author, ip=ip, text=str(text), since=since)


def has_approved_reply(*, comment: Comment) -> bool:
    """Whether any reply below this comment, at any depth, is approved."""
    found = outline(discussion_id=comment.discussion_id, fields=STATUS_FIELDS)
    return bool(listing.approved(listing.below(found.comments, comment)))


# --- Any comment, by id or by who wrote it ---------------------------------------------


def find_by_id(comment_id: ObjectId | str) -> Comment | None:
    try:
        oid = ObjectId(comment_id)
    except (InvalidId, TypeError):
        return None
    bucket = _pages().find_one({"comments._id": oid})
    found = _pick([bucket] if bucket else [], lambda c: c.id == oid)
    return found[0] if found else None


def find_by_ids(*, ids: Iterable[ObjectId]) -> list[Comment]:
    """The comments with these ids (any discussion, any status), newest first."""
    wanted = set(ids)
    if not wanted:
        return []
    buckets = _pages().find({"comments._id": {"$in": list(wanted)}})
    return listing.newest_first(_pick(buckets, lambda c: c.id in wanted))


def find_by_keys(*, keys: list[tuple[ObjectId, str]]) -> list[Comment]:
    """The comments named by (discussion_id, slug) pairs, in one `$in` query."""
    if not keys:
        return []
    wanted = set(keys)
    buckets = _pages().find({
        "discussion_id": {"$in": list({d for d, _ in wanted})},
        "comments.slug": {"$in": list({s for _, s in wanted})},
    })
    return _pick(buckets, lambda c: (c.discussion_id, c.slug) in wanted)


def has_approved_by(*, author_id: int | None = None, email: str = "") -> bool:
    """Whether this commenter (a member by id, or anyone by e-mail address) has an
    approved comment: who is *not* a first-time commenter."""
    if author_id is not None:
        query: dict[str, Any] = {"comments.author.id": int(author_id)}
        mine = lambda c: c.author.id == int(author_id)
    elif email:
        query = {"comments.author.email": str(email)}
        mine = lambda c: c.author.email == str(email)
    else:
        return False
    fields = {"discussion_id": 1, **{f"comments.{f}": 1 for f in ("_id", "slug", "full_slug", "posted",
                                                                   "status", "author")}}
    return any(c.approved for b in _pages().find(query, fields) for c in unpack(b) if mine(c))


def _commenter_query(commenter: Commenter) -> dict:
    """The buckets holding any comment of `commenter` (records.Commenter decides which)."""
    return {"$or": [{f"comments.{field}": condition} for field, condition in commenter_conditions(commenter)]}


def find_by_commenter(*, commenter: Commenter, exclude_status: str | None = None) -> list[Comment]:
    """The comments of `commenter` (all of them: bans are rare)."""
    buckets = _pages().find(_commenter_query(commenter))
    return _pick(buckets, lambda c: commenter.matches(c) and c.status != exclude_status)


# --- Writes to comments already stored ------------------------------------------------


def _stored(comment: dict, path: str) -> Any:
    """The value at a dotted path of an embedded comment (missing: a marker)."""
    for part in path.split("."):
        if not isinstance(comment, dict) or part not in comment:
            return _MISSING
        comment = comment[part]
    return comment


_MISSING = object()


def _set_path(comment: dict, path: str, value: Any) -> None:
    head, _, rest = path.partition(".")
    if rest:
        _set_path(comment.setdefault(head, {}), rest, value)
    else:
        comment[head] = value


def rewrite(
    *, query: dict, changes: Callable[[Comment], dict | None], majority: bool = False
) -> list[Comment]:
    """Change comments in place: for every bucket matching `query`, discussion by
    discussion as its only writer, `changes(comment)` says which fields (dotted
    paths) a comment should have; those that differ are `$set` at
    `comments.<i>.<path>`, one update per bucket. Returns the comments that changed,
    as they are after (what MongoDB's modified count counts)."""
    discussions = sorted({b["discussion_id"] for b in _pages().find(query, {"discussion_id": 1})})
    pages = get_db().comment_pages
    if majority:
        pages = pages.with_options(write_concern=WriteConcern(w="majority"))
    changed: list[Comment] = []
    for discussion_id in discussions:
        with locks.holding(lease_name(discussion_id)):
            for bucket in list(_pages().find({**query, "discussion_id": discussion_id})):
                updates = _bucket_updates(bucket, changes, changed)
                if updates:
                    pages.update_one({"_id": bucket["_id"]}, {"$set": updates})
    return changed


def _bucket_updates(bucket: dict, changes: Callable[[Comment], dict | None], changed: list[Comment]) -> dict:
    """The `$set` of one bucket, by position; appends the changed comments."""
    updates: dict[str, Any] = {}
    for index, stored in enumerate(bucket.get("comments", ())):
        comment = {**stored, "discussion_id": bucket["discussion_id"]}
        wanted = changes(Comment.from_doc(comment)) or {}
        differ = {path: value for path, value in wanted.items() if _stored(stored, path) != value}
        if not differ:
            continue
        for path, value in differ.items():
            updates[f"comments.{index}.{path}"] = value
            _set_path(comment, path, value)
        changed.append(Comment.from_doc(comment))
    return updates


def _by_ids(ids: Iterable[ObjectId]) -> tuple[dict, set[ObjectId]]:
    wanted = set(ids)
    return {"comments._id": {"$in": list(wanted)}}, wanted


def set_status(*, ids: Iterable[ObjectId], status: str, blank: bool = False) -> int:
    """Give these comments `status`; with `blank`, also empty their text (an author
    taking their words back). Returns how many changed."""
    query, wanted = _by_ids(ids)
    if not wanted:
        return 0
    fields: dict[str, Any] = {"status": status, **({"text": "", "html": ""} if blank else {})}
    return len(rewrite(query=query, changes=lambda c: fields if c.id in wanted else None))


def set_subthread_status(*, comment: Comment, status: str) -> int:
    """Give a comment and every reply below it `status` (no placeholders: the whole
    sub-thread goes)."""
    prefix = comment.full_slug + slugs.SEPARATOR

    def under(c: Comment) -> dict | None:
        inside = c.full_slug == comment.full_slug or c.full_slug.startswith(prefix)
        return {"status": status, "placeholder": False} if inside else None

    query = {"discussion_id": comment.discussion_id,
             "comments.full_slug": {"$regex": slugs.subtree_regex(comment.full_slug)}}
    return len(rewrite(query=query, changes=under))


def set_placeholder(*, ids: Iterable[ObjectId], placeholder: bool) -> int:
    query, wanted = _by_ids(ids)
    if not wanted:
        return 0
    return len(rewrite(query=query, changes=lambda c: {"placeholder": placeholder} if c.id in wanted else None))


def update_text(
    *, comment_id: ObjectId, text: str, html: str, status: str, edited: datetime
) -> Comment | None:
    """Store an author's edit (and the status its checks gave it); the comment after."""
    fields = {"text": text, "html": html, "status": status, "edited": edited}
    changed = rewrite(query={"comments._id": comment_id}, changes=lambda c: fields if c.id == comment_id else None)
    return changed[0] if changed else find_by_id(comment_id)


def set_flag_count(*, ids: Iterable[ObjectId], flag_count: int) -> None:
    """Store how many readers flagged these comments (counted by comments.flags)."""
    query, wanted = _by_ids(ids)
    if wanted:
        rewrite(query=query, changes=lambda c: {"flag_count": flag_count} if c.id in wanted else None)


def set_status_by_commenter(*, commenter: Commenter, status: str) -> int:
    """Give every comment of `commenter` `status`."""
    changes = lambda c: {"status": status} if commenter.matches(c) else None
    return len(rewrite(query=_commenter_query(commenter), changes=changes))


def set_author_name(*, author_id: int, name: str) -> int:
    """Give every comment by this user `name`; return how many changed. Only copies
    that disagree are written, so a rerun writes nothing; majority write concern."""
    changes = lambda c: {"author.name": str(name)} if c.author.id == int(author_id) else None
    return len(rewrite(query={"comments.author.id": int(author_id)}, changes=changes, majority=True))


# --- The moderation queue -----------------------------------------------------------------


def _queue_query(tab: str, filters: QueueFilter) -> dict:
    """The buckets that may hold comments of a queue tab (records.in_queue decides)."""
    if tab not in QUEUE_TABS:
        raise ValueError(f"no queue tab {tab!r}")
    query: dict[str, Any] = {
        "pending": {"comments.status": PENDING},
        "spam": {"comments.status": SPAM},
        "flagged": {"comments.flag_count": {"$gt": 0}},
        "recent": {},
    }[tab]
    if filters.discussion_id is not None:
        query["discussion_id"] = filters.discussion_id
    query.update((f"comments.{field}", condition) for field, condition in filter_conditions(filters))
    return query


def _queue(tab: str, filters: QueueFilter) -> tuple[list[Comment], dict[ObjectId, tuple[ObjectId, int]]]:
    """A queue tab's comments in order (queue fields only), and where each one is."""
    comments, where = [], {}
    for bucket in _pages().find(_queue_query(tab, filters), QUEUE_FIELDS):
        for c in unpack(bucket):
            comments.append(c)
            where[c.id] = (bucket["discussion_id"], bucket["page"])
    return listing.queue(comments, tab=tab, filters=filters), where


def find_queue(*, tab: str, filters: QueueFilter, skip: int, limit: int) -> list[Comment]:
    """A page of a moderation queue tab."""
    comments, where = _queue(tab, filters)
    return _complete(comments[skip:skip + limit], where)


def count_queue(*, tab: str, filters: QueueFilter) -> int:
    return len(_queue(tab, filters)[0])


# --- Author copies ----------------------------------------------------------------------


def find_member_authors() -> list[CommentAuthor]:
    """Every distinct author copy of logged-in commenters (one per user when in sync)."""
    groups = _pages().aggregate([
        {"$match": {"comments.author.id": {"$exists": True}}},
        {"$unwind": "$comments"},
        {"$group": {"_id": "$comments.author"}},
    ])
    docs = [g["_id"] for g in groups if isinstance(g["_id"], dict) and g["_id"].get("id") is not None]
    return [CommentAuthor(id=d["id"], name=d.get("name", ""), email=d.get("email", "")) for d in docs]


def find_discussion_ids_by_author(*, author_id: int) -> list[ObjectId]:
    """The discussions this user has commented on."""
    return distinct(_pages(), "discussion_id", {"comments.author.id": int(author_id)})


# --- Export, import and migration: comments as flat documents --------------------------


def iter_documents(*, discussion_id: ObjectId | None = None, batch_size: int = 500) -> Iterator[dict]:
    """Every comment, of one discussion or of all, as the one-document store's flat
    documents, in discussion and posting order: the buckets stream in discussion and
    page order, and each discussion's comments are sorted in memory."""
    query = {} if discussion_id is None else {"discussion_id": discussion_id}
    cursor = _pages().find(query).sort([("discussion_id", ASCENDING), ("page", ASCENDING)]).batch_size(batch_size)
    current, held = None, []
    for bucket in cursor:
        if bucket["discussion_id"] != current:
            yield from _in_posting_order(held)
            current, held = bucket["discussion_id"], []
        held += [flat_document(c, current) for c in bucket.get("comments", ())]
    yield from _in_posting_order(held)


def _in_posting_order(documents: list[dict]) -> list[dict]:
    return sorted(documents, key=lambda d: (d["posted"], d["_id"]))


def insert_documents(*, documents: list[dict]) -> int:
    """Add flat comment documents as given (`_id`, slugs and times kept); return how
    many went in. One whose slug its discussion already has, or whose `_id` is
    already stored, is skipped. Each discussion's new comments are appended in
    posting order as the only writer: the last page is filled up to PAGE_SIZE, the
    rest become whole new pages in one insert_many (the whole discussion, when it
    had none: a fast migration), and `num_pages` names the last page."""
    by_discussion: dict[ObjectId, list[dict]] = defaultdict(list)
    for document in documents:
        by_discussion[document["discussion_id"]].append(document)
    inserted = 0
    for discussion_id, group in by_discussion.items():
        with locks.holding(lease_name(discussion_id)):
            inserted += _append(discussion_id, _new_ones(discussion_id, group))
    return inserted


def _new_ones(discussion_id: ObjectId, group: list[dict]) -> list[dict]:
    """The documents of `group` to add: not already stored, no slug taken, each once.
    What is stored is read from the discussion's own outline (a document's `_id` is
    its comment's, and the comment belongs to this discussion), not by looking its
    ids up across every bucket: FerretDB v1 would scan them all with each `$in`."""
    stored = outline(discussion_id=discussion_id, fields=STATUS_FIELDS).comments
    taken = {c.slug for c in stored}
    seen_ids, fresh = {c.id for c in stored}, []
    for document in _in_posting_order([{"_id": ObjectId(), **d} for d in group]):
        if document["slug"] in taken or document["_id"] in seen_ids:
            continue
        taken.add(document["slug"])
        seen_ids.add(document["_id"])
        fresh.append({k: v for k, v in document.items() if k != "discussion_id"})
    return fresh


def _append(discussion_id: ObjectId, comments: list[dict]) -> int:
    """Append comments (embedded form) to a discussion: fill its last page, then new pages."""
    if not comments:
        return 0
    last = _pages().find_one({"discussion_id": discussion_id}, {"page": 1, "count": 1}, sort=[("page", -1)])
    page, room = (last["page"], max(0, PAGE_SIZE - last.get("count", 0))) if last else (0, 0)
    if room and comments[:room]:
        fill = comments[:room]
        _pages().update_one(
            {"_id": last["_id"]}, {"$inc": {"count": len(fill)}, "$push": {"comments": {"$each": fill}}}
        )
    rest = comments[room:]
    chunks = [rest[i:i + PAGE_SIZE] for i in range(0, len(rest), PAGE_SIZE)]
    if chunks:
        _pages().insert_many([
            {"discussion_id": discussion_id, "page": page + n, "count": len(chunk), "comments": chunk}
            for n, chunk in enumerate(chunks, start=1)
        ])
    posts.set_comment_pages(post_id=discussion_id, num_pages=max(page + len(chunks), 1))
    return len(comments)


def discussion_ids() -> list[ObjectId]:
    """Every discussion that has comments here (what a migration copies)."""
    return sorted(distinct(_pages(), "discussion_id", {"count": {"$gt": 0}}))


def drop_discussion(*, discussion_id: ObjectId) -> int:
    """Delete every bucket of one discussion and start its pages again at 1 (a
    migration clearing a partial copy); returns how many comments went."""
    with locks.holding(lease_name(discussion_id)):
        found = outline(discussion_id=discussion_id, fields=STATUS_FIELDS)
        _pages().delete_many({"discussion_id": discussion_id})
        posts.set_comment_pages(post_id=discussion_id, num_pages=1)
    return len(found.comments)
