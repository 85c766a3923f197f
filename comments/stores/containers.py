"""The shared base of the two stores that keep comments inside bigger documents
(*containers*): one per discussion (comments/stores/embedded.py) or one per page of
about a hundred comments (comments/stores/buckets.py).

An embedded comment holds the stored fields of records.new_document without
`discussion_id`, which its container holds and unpacking adds back. Both stores
export, import and migrate comments as the documents store's flat documents, one
discussion at a time (what this base does once), and both select comments with
the same `Query` conditions, sent to the server on the comments' own fields (a
container matching a condition on its comments uses `$elemMatch`) or applied in
Python to the comments they unpack.
"""

from __future__ import annotations

from abc import abstractmethod
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

from bson import ObjectId
from pymongo.collection import Collection

from comments.stores.base import CommentStore, Query


class ContainerStore(CommentStore):
    """A store whose documents hold comments (module docstring)."""

    # The field of a container that holds its comments.
    comments_field = "comments"

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
    def _add_to_discussion(self, discussion_id: ObjectId, documents: list[dict]) -> int:
        """Add flat documents to one discussion; how many went in (module docstring)."""

    def iter_documents(self, *, discussion_id: ObjectId | None = None, batch_size: int = 500) -> Iterator[dict]:
        """Every comment as a flat document, in discussion and posting order: the
        containers stream by discussion, each discussion's comments sorted in memory
        (one discussion held at a time)."""
        query = {} if discussion_id is None else self._discussion_query(discussion_id)
        current: ObjectId | None = None
        held: list[dict] = []
        for container in self._containers_in_order(query, batch_size):
            if self._discussion_of(container) != current:
                yield from in_posting_order(held)
                current, held = self._discussion_of(container), []
            held += self._flat_documents(container)
        yield from in_posting_order(held)

    def _insert_documents(self, *, documents: list[dict]) -> int:
        by_discussion: dict[ObjectId, list[dict]] = defaultdict(list)
        for document in documents:
            by_discussion[document["discussion_id"]].append(document)
        return sum(self._add_to_discussion(d, group) for d, group in by_discussion.items())

    @staticmethod
    def superset_scope(query: Query) -> ObjectId | dict[str, Any] | None:
        """The discussions a query is limited to, as a condition on a container's
        `discussion_id`-like field value (None: any)."""
        discussions = query.discussions()
        if discussions is None:
            return None
        return {"$in": discussions} if len(discussions) != 1 else discussions[0]


def in_posting_order(documents: list[dict]) -> list[dict]:
    return sorted(documents, key=lambda d: (d["posted"], d["_id"]))
