"""The shared base of the two stores that keep comments inside bigger documents
(*containers*): one per discussion (comments/stores/embedded.py) or one per page of
about a hundred comments (comments/stores/buckets.py).

An embedded comment holds the stored fields of records.new_document without
`discussion_id`, which its container holds and unpacking adds back. Both stores
export, import and migrate comments as the documents store's flat documents: out one
discussion at a time, in a batch at a time grouped by discussion (what this base does
once; each store adds a batch to all its discussions at once), and both select comments with
the same `Query` conditions, sent to the server on the comments' own fields (a
container matching a condition on its comments uses `$elemMatch`) or evaluated in
Python, by infra/matching.py, on the comments they unpack (`in_python` and
`tally_of`: the embedded store's listings, with the same results as the documents
store's indexed queries).
"""

from __future__ import annotations

import heapq
from abc import abstractmethod
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from functools import cmp_to_key
from typing import Any, ClassVar

from bson import ObjectId
from pymongo.collection import Collection

from comments.records import Comment, Tally, Viewer
from comments.stores.base import CommentStore
from comments.stores.queries import Query, compare, field_value

# What counting a listing looks at: visibility, replies below a comment, the orders' keys.
COUNT_FIELDS = ("_id", "full_slug", "thread", "posted", "status", "placeholder", "author.id")


def counted_fields(query: Query) -> tuple[str, ...] | None:
    """The comment fields a `tally` of `query` needs to read: COUNT_FIELDS for a
    listing's count, None (every field) for anything else."""
    listing = query.tab is None and query.commenter is None and query.duplicate is None and query.slugs is None
    return COUNT_FIELDS if listing else None


class ContainerStore(CommentStore):
    """A store whose documents hold comments (module docstring)."""

    # The field of a container that holds its comments.
    comments_field = "comments"
    # An import batch rewrites each container it adds to (a discussion document, a last
    # page): the fewer the batches, the fewer the rewrites. 2,000 comments took a
    # 20,000-comment Disqus import about 3.5x as fast as 500 did, for about 25 MB more
    # peak memory (docs/benchmarks.md).
    import_batch: ClassVar[int] = 2_000

    @abstractmethod
    def _collection(self) -> Collection:
        """The collection of containers."""

    @abstractmethod
    def _containers_in_order(self, query: dict[str, Any], batch_size: int) -> Iterable[dict]:
        """The containers matching `query`, a discussion's ones together."""

    @abstractmethod
    def _discussion_of(self, container: dict) -> ObjectId:
        """The discussion a container belongs to."""

    @abstractmethod
    def _flat_documents(self, container: dict) -> list[dict]:
        """A container's comments as flat documents (with `discussion_id`)."""

    @abstractmethod
    def _discussion_query(self, discussion_id: ObjectId) -> dict[str, Any]:
        """The query for one discussion's containers."""

    @abstractmethod
    def _add_to_discussions(self, groups: dict[ObjectId, list[dict]]) -> int:
        """Add flat documents to their discussions (a batch's, grouped by discussion, in
        the order they came); how many went in (module docstring)."""

    def iter_documents(self, *, discussion_id: ObjectId | None = None, batch_size: int = 500) -> Iterator[dict]:
        """Every comment as a flat document, in discussion and posting order: the
        containers stream by discussion, each discussion's comments sorted in memory
        (one discussion held at a time)."""
        query = {} if discussion_id is None else self._discussion_query(discussion_id)
        current: ObjectId | None = None
        held: list[dict] = []
        for container in self._containers_in_order(query, batch_size):
            if self._discussion_of(container) != current:
                yield from sorted_by_posting(held)
                current, held = self._discussion_of(container), []
            held += self._flat_documents(container)
        yield from sorted_by_posting(held)

    def scan_documents(self, *, discussion_id: ObjectId, batch_size: int = 500) -> Iterator[dict]:
        """Unsorted (iter_documents holds a discussion to sort it), `batch_size` comments
        a batch at most: containers of about a hundred (a bucket page) at a time."""
        query = self._discussion_query(discussion_id)
        for container in self._containers_in_order(query, max(1, batch_size // 100)):
            yield from self._flat_documents(container)

    def _insert_documents(self, *, documents: list[dict]) -> int:
        by_discussion: dict[ObjectId, list[dict]] = defaultdict(list)
        for document in documents:
            by_discussion[document["discussion_id"]].append(document)
        return self._add_to_discussions(dict(by_discussion))

    @staticmethod
    def superset_scope(query: Query) -> ObjectId | dict[str, Any] | None:
        """The discussions a query is limited to, as a condition on a container's
        `discussion_id`-like field value (None: any)."""
        discussions = query.discussions()
        if discussions is None:
            return None
        return {"$in": discussions} if len(discussions) != 1 else discussions[0]


def sorted_by_posting(documents: list[dict]) -> list[dict]:
    return sorted(documents, key=lambda d: (d["posted"], d["_id"]))


def in_python(comments: Iterable[Comment], query: Query) -> list[Comment]:
    """What `find` gives, worked out in Python from comments already read (a superset)."""
    selected = query.matcher()
    chosen = (c for c in comments if selected(c))
    if query.limit is not None and query.order:
        wanted = query.skip + query.limit

        def before(a: Comment, b: Comment) -> int:
            return compare(a, [field_value(b, name) for name, _ in query.order], query.order)

        return heapq.nsmallest(max(0, wanted), chosen, key=cmp_to_key(before))[query.skip:]
    rows = sort(chosen, query.order)
    stop = None if query.limit is None else query.skip + max(0, query.limit)
    return rows[query.skip:stop]


def sort(comments: Iterable[Comment], order: Sequence[tuple[str, int]]) -> list[Comment]:
    """The comments in `order` (stable sorts, last field first)."""
    ordered = list(comments)
    for name, direction in reversed(order):
        ordered.sort(key=lambda c: field_value(c, name), reverse=direction < 0)
    return ordered


def tally_of(comments: Iterable[Comment], query: Query) -> Tally:
    """What `tally` gives, worked out in Python from comments already read."""
    selected = query.matcher()
    rows = [c for c in comments if selected(c)]
    viewer = query.viewer or Viewer()
    placeholders = sum(viewer.sees_placeholder(status=c.status, placeholder=c.placeholder) for c in rows)
    return Tally(total=len(rows), placeholders=placeholders)
