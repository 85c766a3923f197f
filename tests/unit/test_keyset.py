"""comments/keyset.py: keyset pagination filters, checked by evaluating them in
Python against documents sorted the way MongoDB sorts them."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from functools import cmp_to_key

import pytest
from bson import ObjectId
from hypothesis import given, settings
from hypothesis import strategies as st

from comments import keyset
from comments.records import ORDERS

KEY_LENGTH_MESSAGE = "a key needs one value per field of the order"
WHEN = datetime(2026, 1, 2, 3, 4, 5, 6000, tzinfo=timezone.utc)
OID = ObjectId("65a1b2c3d4e5f60718293a4b")


# --- a tiny evaluator for the filters keyset builds ------------------------------------

_COMPARE = {
    "$gt": lambda a, b: a > b,
    "$lt": lambda a, b: a < b,
    "$gte": lambda a, b: a >= b,
    "$lte": lambda a, b: a <= b,
    "$eq": lambda a, b: a == b,
}


def matches(doc: dict, query: dict) -> bool:
    """Whether `doc` satisfies `query` (the $or / $and / comparison / equality subset)."""
    for field, condition in query.items():
        if field == "$or":
            assert isinstance(condition, list) and condition, "$or needs a non-empty list"
            if not any(matches(doc, branch) for branch in condition):
                return False
        elif field == "$and":
            assert isinstance(condition, list) and condition, "$and needs a non-empty list"
            if not all(matches(doc, branch) for branch in condition):
                return False
        elif field.startswith("$"):
            raise AssertionError(f"unexpected operator {field}")
        elif isinstance(condition, dict):
            for op, value in condition.items():
                assert op in _COMPARE, f"unexpected operator {op}"
                if not _COMPARE[op](doc[field], value):
                    return False
        elif doc[field] != condition:
            return False
    return True


def test_evaluator_reads_the_filter_subset_correctly():
    """The test's evaluator handles $or, $gt, $lt and equality as MongoDB does."""
    doc = {"a": 2, "b": "x"}
    assert matches(doc, {"a": {"$gt": 1}})
    assert not matches(doc, {"a": {"$gt": 2}})
    assert matches(doc, {"a": {"$lt": 3}, "b": "x"})
    assert not matches(doc, {"a": {"$lt": 3}, "b": "y"})
    assert matches(doc, {"$or": [{"a": 5}, {"b": "x"}]})
    assert not matches(doc, {"$or": [{"a": 5}, {"b": "y"}]})
    with pytest.raises(AssertionError):
        matches(doc, {"a": {"$regex": "x"}})


def sort_docs(docs: list[dict], order) -> list[dict]:
    """`docs` sorted by `order` ([(field, 1 or -1), ...]) like MongoDB's compound sort."""

    def compare(x, y):
        for field, direction in order:
            if x[field] != y[field]:
                return direction if x[field] > y[field] else -direction
        return 0

    return sorted(docs, key=cmp_to_key(compare))


def key_of(doc: dict, order) -> tuple:
    return tuple(doc[field] for field, _ in order)


# --- the filters themselves -----------------------------------------------------------


def test_reverse_flips_every_direction_and_keeps_the_fields():
    """reverse turns each ascending field descending and vice versa, in the same field order."""
    assert keyset.reverse(ORDERS["newest"]) == [("thread", 1), ("full_slug", -1)]
    assert keyset.reverse(ORDERS["chronological"]) == [("posted", -1), ("_id", -1)]
    assert keyset.reverse(ORDERS["threaded"]) == [("full_slug", -1)]
    for order in ORDERS.values():
        assert keyset.reverse(keyset.reverse(order)) == list(order)


def test_after_on_one_ascending_field_is_a_plain_greater_than():
    """after on the threaded order is {full_slug: {$gt: key}} with no $or."""
    assert keyset.after(ORDERS["threaded"], ("k",)) == {"full_slug": {"$gt": "k"}}


def test_before_on_one_ascending_field_is_a_plain_less_than():
    """before on the threaded order is {full_slug: {$lt: key}}."""
    assert keyset.before(ORDERS["threaded"], ("k",)) == {"full_slug": {"$lt": "k"}}


def test_after_on_two_ascending_fields_breaks_ties_on_the_second():
    """after on (posted, _id) is posted later, or the same posted and a later _id."""
    assert keyset.after(ORDERS["chronological"], (WHEN, OID)) == {
        "$or": [{"posted": {"$gt": WHEN}}, {"posted": WHEN, "_id": {"$gt": OID}}]
    }


def test_before_on_two_ascending_fields_breaks_ties_on_the_second():
    """before on (posted, _id) is posted earlier, or the same posted and an earlier _id."""
    assert keyset.before(ORDERS["chronological"], (WHEN, OID)) == {
        "$or": [{"posted": {"$lt": WHEN}}, {"posted": WHEN, "_id": {"$lt": OID}}]
    }


def test_after_on_a_descending_field_uses_less_than():
    """after on (thread desc, full_slug asc) is an older thread, or the same thread and a later full_slug."""
    assert keyset.after(ORDERS["newest"], ("t", "f")) == {
        "$or": [{"thread": {"$lt": "t"}}, {"thread": "t", "full_slug": {"$gt": "f"}}]
    }


def test_before_on_a_descending_field_uses_greater_than():
    """before on (thread desc, full_slug asc) is a newer thread, or the same thread and an earlier
    full_slug."""
    assert keyset.before(ORDERS["newest"], ("t", "f")) == {
        "$or": [{"thread": {"$gt": "t"}}, {"thread": "t", "full_slug": {"$lt": "f"}}]
    }


def test_after_on_three_fields_fixes_every_earlier_field_in_each_branch():
    """Each $or branch pins all fields before the one it compares."""
    order = [("a", 1), ("b", -1), ("c", 1)]
    assert keyset.after(order, (1, 2, 3)) == {
        "$or": [{"a": {"$gt": 1}}, {"a": 1, "b": {"$lt": 2}}, {"a": 1, "b": 2, "c": {"$gt": 3}}]
    }


@pytest.mark.parametrize("name", sorted(ORDERS))
@pytest.mark.parametrize("extra", [-1, 1])
def test_a_key_of_the_wrong_length_raises_value_error(name, extra):
    """after and before refuse a key with fewer or more values than the order has fields."""
    order = ORDERS[name]
    key = tuple(range(len(order) + extra))
    with pytest.raises(ValueError, match=re.escape(KEY_LENGTH_MESSAGE)):
        keyset.after(order, key)
    with pytest.raises(ValueError, match=re.escape(KEY_LENGTH_MESSAGE)):
        keyset.before(order, key)


def test_an_empty_key_raises_value_error():
    """An empty key is refused for every order."""
    for order in ORDERS.values():
        with pytest.raises(ValueError, match=re.escape(KEY_LENGTH_MESSAGE)):
            keyset.after(order, ())


def test_filters_do_not_change_the_order_passed_in():
    """after, before and reverse leave the order list untouched (ORDERS is shared)."""
    snapshot = {name: list(order) for name, order in ORDERS.items()}
    for name, order in ORDERS.items():
        keyset.after(order, (1,) * len(order))
        keyset.before(order, (1,) * len(order))
        keyset.reverse(order)
    assert {name: list(order) for name, order in ORDERS.items()} == snapshot


# --- property: the filters select exactly what sorts after / before -------------------

# Small value pools force ties on the leading fields, so the tie-break branches matter.
_threads = st.sampled_from(["2026.01.01:a", "2026.01.01:b", "2026.01.02:a", "2026.01.03:z"])
_full_slugs = st.text(alphabet="ab/:.2", min_size=1, max_size=6)
_posted = st.sampled_from(
    [WHEN, WHEN + timedelta(milliseconds=1), WHEN + timedelta(seconds=1), WHEN - timedelta(days=1)]
)
_ids = st.sampled_from([ObjectId(bytes(11) + bytes([i])) for i in (0, 1, 2, 200)] + [OID])
documents = st.fixed_dictionaries(
    {"_id": _ids, "full_slug": _full_slugs, "posted": _posted, "thread": _threads,
     "a": st.integers(0, 2), "b": st.integers(0, 2), "c": st.integers(0, 2)}
)

PROPERTY_ORDERS = {**ORDERS, "mixed": [("a", 1), ("b", -1), ("c", 1)]}


@pytest.mark.parametrize("name", list(PROPERTY_ORDERS))
@settings(max_examples=80)
@given(data=st.data())
def test_after_and_before_select_exactly_the_documents_past_each_key(name, data):
    """For documents with unique keys, after(key of doc i) matches exactly the documents
    sorted after doc i, and before(key of doc i) exactly those sorted before it."""
    order = PROPERTY_ORDERS[name]
    docs = data.draw(st.lists(documents, min_size=1, max_size=10, unique_by=lambda d: key_of(d, order)))
    ranked = sort_docs(docs, order)
    for i, doc in enumerate(ranked):
        key = key_of(doc, order)
        after = keyset.after(order, key)
        before = keyset.before(order, key)
        assert [d for d in ranked if matches(d, after)] == ranked[i + 1 :]
        assert [d for d in ranked if matches(d, before)] == ranked[:i]


@pytest.mark.parametrize("name", list(ORDERS))
@settings(max_examples=60)
@given(data=st.data())
def test_paging_with_after_visits_every_document_once_in_order(name, data):
    """Repeatedly taking the next `size` matches of after(last key) walks the whole sorted list."""
    order = ORDERS[name]
    docs = data.draw(st.lists(documents, min_size=0, max_size=12, unique_by=lambda d: key_of(d, order)))
    size = data.draw(st.integers(1, 4))
    ranked = sort_docs(docs, order)
    seen, page = [], ranked[:size]
    while page:
        seen.extend(page)
        query = keyset.after(order, key_of(page[-1], order))
        page = [d for d in ranked if matches(d, query)][:size]
    assert seen == ranked


@pytest.mark.parametrize("name", list(ORDERS))
@settings(max_examples=60)
@given(data=st.data())
def test_paging_backwards_with_before_in_the_reversed_order_walks_back_to_the_start(name, data):
    """Reading before(first key) in reverse(order) and flipping gives the previous page, back to the start."""
    order = ORDERS[name]
    docs = data.draw(st.lists(documents, min_size=0, max_size=12, unique_by=lambda d: key_of(d, order)))
    size = data.draw(st.integers(1, 4))
    ranked = sort_docs(docs, order)
    backwards = sort_docs(docs, keyset.reverse(order))
    assert backwards == ranked[::-1]
    seen, page = [], ranked[-size:] if ranked else []
    while page:
        seen[:0] = page
        query = keyset.before(order, key_of(page[0], order))
        page = [d for d in backwards if matches(d, query)][:size][::-1]
    assert seen == ranked
