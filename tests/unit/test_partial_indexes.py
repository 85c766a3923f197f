"""The documents store's partial indexes (comments/stores/documents.py) against the
queries that read them, without a server: a query the store sends to a partial index
selects only comments that index holds, since DocumentDB, hinted, reads a partial
index even for a query it cannot answer (and MongoDB refuses the hint). Filters are
evaluated with infra/matching.py, whose semantics a property test holds to the
server's (tests/integration/infra/test_matching_server.py). Pure."""

from __future__ import annotations

from typing import Any

from bson import ObjectId
from hypothesis import given
from hypothesis import strategies as st

from comments.records import (
    APPROVED, DELETED, PENDING, QUEUE_TABS, RANKED_ORDERS, READERS, SPAM, STATUSES, Commenter, QueueFilter, Viewer,
    by_commenter, queue_order,
)
from comments.stores.documents import HELD, INDEXES, RETIRED, TAB_INDEXES, DocumentsStore
from comments.stores import counters
from comments.stores.queries import Query
from infra import matching

STORE = DocumentsStore(counting=counters)
PARTIAL = {model.document["name"]: model.document["partialFilterExpression"]
           for model in INDEXES if "partialFilterExpression" in model.document}
THERE = ObjectId()
MISSING = object()


def _queue_queries() -> list[Query]:
    filters = [QueueFilter(), QueueFilter(discussion_id=THERE), QueueFilter(name="Rosa"),
               QueueFilter(email="rosa@example.com"), QueueFilter(ip="192.0.2.1")]
    return [Query(tab=tab, filters=f, order=tuple(queue_order(tab)), limit=20) for tab in QUEUE_TABS for f in filters]


QUERIES = [
    *_queue_queries(),
    *(Query(discussion_id=THERE, roots=True, viewer=viewer, order=tuple(order), limit=10)
      for order in RANKED_ORDERS.values() for viewer in (READERS, Viewer(editor=True), Viewer(user_id=5))),
    *(Query(discussion_id=THERE, order=tuple(order), limit=10) for order in RANKED_ORDERS.values()),
    *(Query(commenter=by_commenter(user_id=user), order=tuple(queue_order("recent")), limit=5) for user in (5, 0, -2)),
    Query(commenter=Commenter(user_id=5, ips=("192.0.2.1",)), order=tuple(queue_order("recent"))),
    Query(discussion_id=THERE, picked=True),
]


def _field(value: Any) -> st.SearchStrategy:
    return st.sampled_from([MISSING, *value])


STORED = st.fixed_dictionaries({
    "discussion_id": st.sampled_from([THERE, ObjectId()]),
    "parent_id": _field([None, ObjectId()]),
    "status": _field(STATUSES),
    "flag_count": _field([0, 1, 2]),
    "score": _field([-3, -1, 0, 1, 4]),
    "author": st.fixed_dictionaries({"id": _field([None, 0, 5, 9]), "name": st.sampled_from(["Rosa", "Sam"]),
                                     "email": st.sampled_from(["rosa@example.com", "sam@example.net"])}),
    "ip": _field(["192.0.2.1", "192.0.2.9"]),
    "placeholder": _field([True, False]),
    "picked": _field([True, False]),
})


def _stored(drawn: dict) -> dict:
    """A stored comment: the drawn fields, those drawn MISSING left out."""
    document = {key: value for key, value in drawn.items() if value is not MISSING}
    document["author"] = {key: value for key, value in drawn["author"].items() if value is not MISSING}
    return {"_id": ObjectId(), **document}


def _read_partially() -> list[tuple[Query, str]]:
    """Every query shape that may read a partial index, with that index: each queue tab
    with every filter (the planners lead it to the tab's index), the ranked views'
    top-level comments and a member's newest comments (the store hints theirs)."""
    found = [(query, TAB_INDEXES[query.tab] if query.tab is not None else STORE._hint(query)) for query in QUERIES]
    return [(query, index) for query, index in found if index in PARTIAL]


# Each such query's filter and its index's, compiled once (infra/matching.py).
COMPILED = [(matching.compile_filter(STORE._filter(query)), matching.compile_filter(PARTIAL[index]), index)
            for query, index in _read_partially()]


@given(STORED)
def test_a_query_sent_to_a_partial_index_selects_only_comments_the_index_holds(drawn):
    """For every query shape that may read a partial index, a comment the query
    selects is one the index holds."""
    document = _stored(drawn)
    for selects, holds, index in COMPILED:
        if selects(document):
            assert holds(document), index


def test_every_tab_and_hinted_shape_is_checked_against_its_partial_index():
    """The property above covers each partial index the queue and the store read."""
    assert {index for _, _, index in COMPILED} == set(PARTIAL)
    assert len(COMPILED) > len(QUEUE_TABS)


def test_the_store_hints_a_partial_index_only_for_the_queries_above():
    """Hinted, DocumentDB reads a partial index even for a query it cannot answer:
    the store hints one only for a ranked view's top-level comments and a member's
    newest comments (user ids from 1), and the recent tab's full index."""
    names = {model.document["name"] for model in INDEXES}
    assert set(TAB_INDEXES) == set(QUEUE_TABS) and set(TAB_INDEXES.values()) <= names
    hinted = {STORE._hint(query) for query in QUERIES} - {None}
    assert hinted & set(PARTIAL) == {"discussion_best_roots", "discussion_top_roots", "member_posted"}
    assert STORE._hint(Query(tab="recent", order=tuple(queue_order("recent")), limit=20)) == TAB_INDEXES["recent"]
    assert STORE._hint(Query(commenter=by_commenter(user_id=0), order=tuple(queue_order("recent")))) is None


def test_the_held_index_holds_the_statuses_with_a_tab_of_their_own():
    """Pending and spam comments are held; approved and deleted ones, and a comment
    without a status (which counts as approved), are not."""
    held = {status for status in STATUSES if matching.matches(HELD, {"status": status})}
    assert held == {PENDING, SPAM}
    assert not matching.matches(HELD, {}) and {APPROVED, DELETED}.isdisjoint(held)


def test_a_ranked_order_without_top_level_only_names_no_partial_index():
    """The ranked views' partial indexes hold top-level comments only: a ranked order
    over a whole discussion (no `roots`) is left to the planner."""
    for order in RANKED_ORDERS.values():
        assert STORE._hint(Query(discussion_id=THERE, order=tuple(order))) is None
        assert STORE._hint(Query(discussion_id=THERE, roots=True, order=tuple(order))) in PARTIAL


def test_the_store_names_no_retired_index():
    """An index `ensure_indexes` drops is no longer declared (it would be made and
    dropped again on every run)."""
    assert not set(RETIRED) & {model.document["name"] for model in INDEXES}
