"""What every comment store is, in the style of Django's cache backends: a
`CommentStore` whose subclasses each implement these primitives (the abstract
methods below), with every other operation derived from them once, here:

- reads: `find`, `tally` (by one `Query`), `iter_documents` (flat documents: exports,
  migrations; `scan_documents` unordered), `discussion_ids`, `find_member_authors`;
- writes: `_insert` (one new comment), `_change` (set fields on what a `Query`
  selects), `_increment` (a comment's vote tallies, one `$inc`), `_insert_documents`
  (flat documents as given: imports, migrations), `_drop_discussion`; `ensure_indexes`.

The public writes (`insert_comment`, `change`, `increment_votes`, `insert_documents`,
`drop_discussion`) call the underscored primitives, refused while frozen (below). A
store may override a derived read it can answer faster (`find_discussion_ids_by_author`:
documents, buckets). The container stores' shared base (containers.py) implements
`iter_documents` and `_insert_documents` once from six primitives of their own.

What a `Query` selects, and how, is comments/stores/queries.py's: one MongoDB filter,
which the documents and buckets stores send and the embedded store evaluates in Python
(infra/matching.py).

Writes wait out a migration's last pass: the write primitives are `@frozen_aware`
(comments/stores/frozen.py), which refuses them (store_switch.Moving) on a store that
takes no writes now (frozen for a migration's last pass, or switched away from:
store_switch.check_writable). Status, placeholder and text changes move the
counters through the `Counting` a store is made with (counters.py, from get_store).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import datetime
from typing import Any, ClassVar

from bson import ObjectId
from pymongo.database import Database

from comments import scores, slugs
from infra.ids import parse_id
from comments.records import (
    APPROVED, HIDDEN, NEWEST, ORDERS, RANKED_ORDERS, READERS, VOTE_DEFAULTS, Comment, CommentAuthor,
    Commenter, Intent, QueueFilter, Tally, Viewer, new_document, queue_order,
)
from comments.stores.counting import Counting
from comments.stores.frozen import frozen_aware
from comments.stores.queries import NOT_DUPLICATES, Duplicate, Query, reverse
from infra.sharding import ShardKey


class CommentStore(ABC):
    """A comment store: subclasses implement the primitives (abstract, each with a
    docstring of its contract), the rest is derived here."""

    name: ClassVar[str] = ""
    # Comments per write of an import (import_comments' default): one insert_many here.
    import_batch: ClassVar[int] = 500
    # Its collections' shard keys, each leading with the discussion (infra/sharding.py).
    shard_keys: ClassVar[tuple[ShardKey, ...]] = ()

    def __init__(self, *, counting: Counting[CommentStore]) -> None:
        """`counting` moves the discussion's counters with each status, placeholder and
        text change this store makes (comments/stores/counters.py, from get_store)."""
        self.counting = counting

    # --- Primitives ----------------------------------------------------------------------

    @abstractmethod
    def ensure_indexes(self, db: Database) -> list[str]:
        """Create this store's indexes (from the comments app's ready())."""

    @abstractmethod
    def _insert(self, *, document: dict[str, Any], parent: Comment | None) -> Comment:
        """Store one new comment (a records.new_document); SlugTaken if its slug (or
        its form key) is already used in its discussion."""

    @abstractmethod
    def find(self, query: Query) -> list[Comment]:
        """The comments `query` selects, in its order, skip and limit applied."""

    @abstractmethod
    def tally(self, query: Query) -> Tally:
        """How many comments `query` selects (its slice ignored), and how many of those
        its viewer sees as placeholders."""

    @abstractmethod
    def _change(self, query: Query, *, fields: dict[str, Any], majority: bool = False) -> int:
        """Set `fields` (dotted paths) on every comment `query` selects whose stored
        values differ; how many changed. `majority`: a majority write concern."""

    @abstractmethod
    def _transition(self, *, comment: Comment, expect: dict[str, Any], fields: dict[str, Any]) -> bool:
        """Set `fields` on this one comment only while its stored fields still meet
        `expect` (MongoDB conditions on its own fields), in one atomic update; whether
        it did (comments/stores/counters.py moves the counters by it)."""

    @abstractmethod
    def _increment(self, *, comment: Comment, up: int, down: int) -> bool:
        """`$inc` one comment's vote tallies (`votes.up`, `votes.down`) and its net
        `score` by these amounts, in one atomic update; whether the comment was found."""

    @abstractmethod
    def iter_documents(self, *, discussion_id: ObjectId | None = None, batch_size: int = 500) -> Iterator[dict]:
        """Every comment as the documents store's flat document, of one discussion or
        of all, in discussion and posting order."""

    def scan_documents(self, *, discussion_id: ObjectId, batch_size: int = 500) -> Iterator[dict]:
        return self.iter_documents(discussion_id=discussion_id, batch_size=batch_size)

    @abstractmethod
    def _insert_documents(self, *, documents: list[dict]) -> int:
        """Add flat comment documents as given (`_id`, slugs, times kept); how many went
        in. One whose slug or `_id` its discussion already has is skipped."""

    @abstractmethod
    def discussion_ids(self) -> list[ObjectId]:
        """Every discussion that has comments here, sorted (what a migration copies)."""

    @abstractmethod
    def _drop_discussion(self, *, discussion_id: ObjectId) -> int:
        """Delete every comment of one discussion; how many went."""

    @abstractmethod
    def find_member_authors(self) -> list[CommentAuthor]:
        """Every distinct author copy of logged-in commenters (one per user when in sync)."""

    # --- Writes: the primitives, refused while frozen --------------------------------------

    @frozen_aware
    def insert_comment(
        self, *, discussion_id: ObjectId, parent: Comment | None, slug: str, full_slug: str, posted: datetime,
        author: CommentAuthor, text: str, html: str, form_key: str | None = None, status: str = APPROVED,
        ip: str | None = None, intent: Intent | None = None, comment_id: ObjectId | None = None,
    ) -> Comment:
        """Insert one comment (as `comment_id`, or a new id); SlugTaken if its slug is
        already used in the discussion."""
        document = new_document(
            discussion_id=discussion_id, parent=parent, slug=slug, full_slug=full_slug, posted=posted,
            author=author, text=text, html=html, form_key=form_key, status=status, ip=ip, intent=intent,
            comment_id=comment_id,
        )
        return self._insert(document=document, parent=parent)

    @frozen_aware
    def change(self, query: Query, *, fields: dict[str, Any], majority: bool = False) -> int:
        """Set `fields` on the comments `query` selects; how many changed."""
        if query.is_empty():
            return 0
        return self._change(query, fields=fields, majority=majority)

    @frozen_aware
    def transition(self, *, comment: Comment, expect: dict[str, Any], fields: dict[str, Any]) -> bool:
        """Change one comment if it still meets `expect`; whether it did."""
        return self._transition(comment=comment, expect=expect, fields=fields)

    def last_page(self, *, discussion_id: ObjectId) -> int:
        """The page new comments of a discussion go to, read from the stored comments
        (only the buckets store has pages: 1 for the others)."""
        return 1

    @frozen_aware
    def insert_documents(self, *, documents: list[dict]) -> int:
        """Add flat comment documents (exports, imports, migrations); how many went in.
        One without vote fields (an older export) starts with none, so that the ranked
        views' indexes and sorts see every comment."""
        for document in documents:
            for name, value in VOTE_DEFAULTS.items():
                document.setdefault(name, dict(value) if isinstance(value, dict) else value)
        return self._insert_documents(documents=documents) if documents else 0

    @frozen_aware
    def increment_votes(self, *, comment: Comment, up: int, down: int, always: bool = False) -> Comment | None:
        """Move one comment's tallies by (up, down) and its ranking key with them; the
        comment after, None if it is gone. The tallies move by `$inc` (exactly what
        was asked, whoever else votes at once); the Wilson key cannot be `$inc`ed, so
        it is set for the tallies read back, only while they are still those (a
        later vote's writer sets its own): the last writer's key stays. `always`: write
        even a change of nothing (a repair giving the fields to a comment without them)."""
        if (up or down or always) and not self._increment(comment=comment, up=int(up), down=int(down)):
            return None
        return self.rerank(comment=comment, always=always)

    def rerank(self, *, comment: Comment, always: bool = False) -> Comment | None:
        """Set a comment's best-view key for its tallies as stored now; the comment after."""
        current = self.find_by_slug(discussion_id=comment.discussion_id, slug=comment.slug)
        if current is None or current.id != comment.id:
            return None
        rank = scores.wilson_lower_bound(current.votes_up, current.votes_down)
        if always or rank != current.rank or current.score != current.votes_up - current.votes_down:
            guard = Query(discussion_id=comment.discussion_id, ids=frozenset({comment.id}),
                          tallies=(current.votes_up, current.votes_down))
            self.change(guard, fields={"rank": rank, "score": current.votes_up - current.votes_down})
            current = replace(current, rank=rank, score=current.votes_up - current.votes_down)
        return current

    def find_picks(self, *, discussion_id: ObjectId) -> list[Comment]:
        """A discussion's editors' picks (its top-level index serves the first page's)."""
        return self.find(Query(discussion_id=discussion_id, picked=True))

    def set_picked(self, *, comment: Comment, picked: bool) -> int:
        """Feature a comment as an editor's pick (or not); how many changed."""
        return self.change(Query(discussion_id=comment.discussion_id, ids=frozenset({comment.id})),
                           fields={"picked": bool(picked)})

    def find_ranked_roots(
        self, *, discussion_id: ObjectId, view: str, viewer: Viewer = READERS, ids: Iterable[ObjectId] | None = None,
        limit: int | None = None,
    ) -> list[Comment]:
        """Top-level comments of a discussion in a ranked view's order (records.RANKED_ORDERS),
        as `viewer` sees them: the first `limit`, or those among `ids`."""
        order = tuple(RANKED_ORDERS[view])
        return self.find(Query(discussion_id=discussion_id, roots=True, viewer=viewer, order=order, limit=limit,
                               ids=frozenset(ids) if ids is not None else None))

    def find_threads(
        self, *, discussion_id: ObjectId, threads: Iterable[str], viewer: Viewer = READERS, limit: int | None = None,
    ) -> list[Comment]:
        """The comments of these threads (by `thread` key), as `viewer` sees them, in the
        newest-first view's order (threads newest first, each threaded): its index."""
        return self.find(Query(discussion_id=discussion_id, threads=frozenset(threads), viewer=viewer,
                               order=tuple(ORDERS["newest"]), limit=limit))

    @frozen_aware
    def drop_discussion(self, *, discussion_id: ObjectId) -> int:
        """Delete every comment of one discussion (a migration clearing a partial copy)."""
        return self._drop_discussion(discussion_id=discussion_id)

    # --- Derived: reading one discussion -----------------------------------------------------

    def find_by_slug(self, *, discussion_id: ObjectId, slug: str) -> Comment | None:
        """The permalink query: one comment of one discussion, by its slug path."""
        found = self.find(Query(discussion_id=discussion_id, slugs=frozenset({str(slug)}), limit=1))
        return found[0] if found else None

    def find_by_slugs(self, *, discussion_id: ObjectId, slugs: Iterable[str]) -> list[Comment]:
        """The comments of one discussion with these slug paths, threaded."""
        wanted = frozenset(str(s) for s in slugs)
        return self.find(Query(discussion_id=discussion_id, slugs=wanted, order=tuple(ORDERS["threaded"])))

    def find_ancestors(self, *, comment: Comment) -> list[Comment]:
        """The comments above this one, root first, whatever their status."""
        return self.find_by_slugs(discussion_id=comment.discussion_id, slugs=slugs.ancestor_slugs(comment.slug))

    def find_subthread(self, *, comment: Comment) -> list[Comment]:
        """The comment and all its descendants, threaded."""
        return self.find(Query(discussion_id=comment.discussion_id, subthread=comment,
                               order=tuple(ORDERS["threaded"])))

    def find_page(
        self, *, discussion_id: ObjectId, order: str, limit: int | None, skip: int = 0,
        after: tuple | None = None, before: tuple | None = None, below: Comment | None = None,
        viewer: Viewer = READERS, reach: int | None = None, opens: datetime | None = None,
    ) -> list[Comment]:
        """A page of a discussion (or of the replies below one comment) in `order`, as
        `viewer` sees it: by position (`skip`), after the key of the previous page's last
        comment, or before the key of the next page's first (read backwards, flipped).
        `limit` None: every comment from there on; 0: none. `reach`: about how many
        comments lie from the start (or the key) on in the page's direction, when the
        caller knows (a store may read a short rest in one query); None: unknown.
        `opens`: no later than the discussion's earliest comment, when known (its
        state's), where a store may start reading page 1."""
        sort = tuple(ORDERS[order])
        if before is not None:
            query = Query(discussion_id=discussion_id, below=below, viewer=viewer, order=reverse(sort),
                          after=tuple(before), skip=skip, limit=limit)
            return self.find(query)[::-1]
        return self.find(Query(discussion_id=discussion_id, below=below, viewer=viewer, order=sort,
                               after=tuple(after) if after is not None else None, skip=skip, limit=limit))

    def list_slugs(self, *, discussion_id: ObjectId, order: str, viewer: Viewer = READERS) -> list[str]:
        """The slugs of a discussion's whole listing in one of ORDERS as `viewer` sees it:
        what `find_page` with no limit lists, where a store can tell without reading the
        comments themselves (`comments_migrate` checks every view of every copy so)."""
        return self._slugs(Query(discussion_id=discussion_id, viewer=viewer, order=tuple(ORDERS[order])))

    def _slugs(self, query: Query) -> list[str]:
        """The slugs of what `query` selects, in its order (a store may read them alone)."""
        return [c.slug for c in self.find(query)]

    def tally_listing(
        self, *, discussion_id: ObjectId, below: Comment | None = None, viewer: Viewer = READERS
    ) -> Tally:
        """What a listing of the discussion (or of the replies below one comment) holds."""
        return self.tally(Query(discussion_id=discussion_id, below=below, viewer=viewer))

    def count_before(
        self, *, discussion_id: ObjectId, order: str, key: tuple, below: Comment | None = None, viewer: Viewer = READERS,
    ) -> int:
        """How many listed comments sort before `key`: where a comment sits in a view."""
        query = Query(discussion_id=discussion_id, below=below, viewer=viewer,
                      order=reverse(tuple(ORDERS[order])), after=tuple(key))
        return self.tally(query).total

    def count_approved(self, *, discussion_id: ObjectId) -> int:
        """How many approved comments a discussion has (the count its host shows)."""
        return self.tally(Query(discussion_id=discussion_id, exclude=frozenset(HIDDEN))).total

    def find_latest(self, *, discussion_id: ObjectId, limit: int, reach: int | None = None,
                    since: datetime | None = None) -> list[Comment]:
        """The newest approved comments, newest first. Cost hints: `reach`, its counters' comment
        count; `since`, when the `limit` newest began as a recount just saw them (`Survey.newest`)."""
        return self.find(Query(discussion_id=discussion_id, exclude=frozenset(HIDDEN), order=tuple(NEWEST),
                               limit=limit))

    def find_duplicate(
        self, *, discussion_id: ObjectId, parent_id: ObjectId | None, author: CommentAuthor, ip: str | None,
        text: str, since: datetime,
    ) -> Comment | None:
        """The newest comment with this text by this author in the same place since
        `since` (not spam or deleted): the one to give back instead of storing a copy."""
        duplicate = Duplicate(parent_id=parent_id, author=author, ip=ip, text=str(text), since=since)
        found = self.find(Query(discussion_id=discussion_id, duplicate=duplicate, exclude=NOT_DUPLICATES,
                                order=tuple(NEWEST), limit=1))
        return found[0] if found else None

    def has_approved_reply(self, *, comment: Comment) -> bool:
        """Whether any reply below this comment, at any depth, is approved."""
        return bool(self.find(Query(discussion_id=comment.discussion_id, below=comment,
                                    exclude=frozenset(HIDDEN), limit=1)))

    # --- Derived: any comment, by id or by who wrote it ---------------------------------------

    def find_by_id(self, comment_id: ObjectId | str) -> Comment | None:
        oid = parse_id(comment_id)
        found = self.find(Query(ids=frozenset({oid}), limit=1)) if oid is not None else []
        return found[0] if found else None

    def find_by_ids(self, *, ids: Iterable[ObjectId]) -> list[Comment]:
        """The comments with these ids (any discussion, any status), newest first."""
        return self.find(Query(ids=frozenset(ids), order=tuple(NEWEST)))

    def find_by_keys(self, *, keys: Iterable[tuple[ObjectId, str]]) -> list[Comment]:
        """The comments named by (discussion_id, slug) pairs, in one query over both lists
        (a slug of one discussion that only another listed is dropped here)."""
        wanted = set(keys)
        if not wanted:
            return []
        query = Query(discussion_ids=frozenset(d for d, _ in wanted), slugs=frozenset(s for _, s in wanted))
        return [c for c in self.find(query) if (c.discussion_id, c.slug) in wanted]

    def has_approved_by(self, *, author_id: int) -> bool:
        """Whether this member has an approved comment: who is *not* a first-time commenter."""
        member = Commenter(user_id=int(author_id))
        return bool(self.find(Query(commenter=member, exclude=frozenset(HIDDEN), limit=1)))

    def find_by_commenter(self, *, commenter: Commenter, exclude_status: str | None = None) -> list[Comment]:
        """The comments of `commenter` (all of them: bans are rare)."""
        exclude = frozenset({exclude_status}) if exclude_status else frozenset()
        return self.find(Query(commenter=commenter, exclude=exclude))

    def find_latest_by_author(self, *, author_id: int, limit: int) -> list[Comment]:
        """A member's newest approved comments, in any discussion, newest first."""
        return self.find(Query(commenter=Commenter(user_id=int(author_id)), exclude=frozenset(HIDDEN),
                               order=tuple(NEWEST), limit=max(0, limit)))

    def find_discussion_ids_by_author(self, *, author_id: int) -> list[ObjectId]:
        """The discussions this member has commented on."""
        theirs = self.find(Query(commenter=Commenter(user_id=int(author_id))))
        return sorted({c.discussion_id for c in theirs})

    # --- Derived: moderation ------------------------------------------------------------------

    def find_queue(self, *, tab: str, filters: QueueFilter, skip: int, limit: int) -> list[Comment]:
        """A page of a moderation queue tab, in its order."""
        return self.find(Query(tab=tab, filters=filters, order=tuple(queue_order(tab)), skip=skip, limit=limit))

    def count_queue(self, *, tab: str, filters: QueueFilter) -> int:
        return self.tally(Query(tab=tab, filters=filters)).total

    def set_status(self, *, ids: Iterable[ObjectId], status: str, blank: bool = False) -> int:
        """Give these comments `status`; with `blank`, also empty their text (an author
        taking their words back). Returns how many changed."""
        return self.counting.set_status(self.find_by_ids(ids=ids), store=self, status=status, blank=blank)

    def set_placeholder(self, *, ids: Iterable[ObjectId], placeholder: bool) -> int:
        return self.counting.set_placeholder(self.find_by_ids(ids=ids), store=self, placeholder=placeholder)

    def set_flag_count(self, *, ids: Iterable[ObjectId], flag_count: int) -> int:
        """Store how many readers flagged these comments (counted by comments.flags)."""
        return self.change(Query(ids=frozenset(ids)), fields={"flag_count": flag_count})

    def update_text(self, *, comment_id: ObjectId, text: str, html: str, status: str,
                    edited: datetime, was: str | None = None) -> Comment | None:
        """Store an author's edit (and the status its checks gave it); the comment after,
        or None when it is gone or, given `was`, no longer has the status the author
        saw (deleted or held meanwhile: an edit never brings a comment back)."""
        found = self.find_by_id(comment_id)
        fields = {"text": text, "html": html, "edited": edited}
        if found is None:
            return None
        return self.counting.change(found, store=self, status=status, fields=fields, only_from=was)

    def set_author_name(self, *, author_id: int, name: str) -> int:
        """Give every comment by this member `name`; how many changed. Only copies that
        disagree are written, so a rerun writes nothing; majority write concern, so a
        rename does not roll back on a replica set."""
        member = Commenter(user_id=int(author_id))
        return self.change(Query(commenter=member), fields={"author.name": str(name)}, majority=True)
