"""The counters' arithmetic (comments/stores/counting.py): what a comment counts for, how a
change moves the counters, and a recount that knows which intents were applied; and
the counters each store is made with."""

import pytest
from bson import ObjectId

from comments.records import Intent
from comments.stores import STORES, counters, get_store
from comments.stores.counting import Counts, counted, deltas, recount


def doc(status: str | None = "approved", placeholder: bool = False, intent: Intent | None = None) -> dict:
    found: dict = {"_id": ObjectId(), "placeholder": placeholder}
    if status is not None:
        found["status"] = status
    if intent is not None:
        found["intent"] = intent.as_doc()
    return found


def test_a_hidden_comment_standing_in_for_replies_counts_as_a_placeholder_too():
    assert counted(("deleted", True)) == {"deleted": 1, "placeholders": 1}
    assert counted(("approved", True)) == {"approved": 1}
    assert counted(None) == {}


def test_a_change_moves_one_count_down_and_another_up():
    assert deltas(("pending", False), ("approved", False)) == {"pending": -1, "approved": 1}
    assert deltas(None, ("spam", False)) == {"spam": 1}
    assert deltas(("spam", True), ("spam", False)) == {"placeholders": -1}
    assert deltas(("approved", False), ("approved", False)) == {}


def test_listed_is_approved_comments_and_placeholders():
    assert Counts(approved=4, pending=2, placeholders=1).listed == 5


def test_a_comment_stored_without_a_status_counts_as_approved():
    assert recount([doc(status=None), doc("spam")]) == Counts(approved=1, spam=1)


def test_a_change_not_yet_applied_is_counted_as_it_was_and_an_applied_one_as_it_is():
    """So that applying the intent afterwards (or not again) leaves the counters right."""
    inserted = Intent(id=ObjectId(), was=None, now=("approved", False))
    approved = Intent(id=ObjectId(), was=("pending", False), now=("approved", False))
    docs = [doc(intent=inserted), doc(intent=approved), doc("deleted", True)]
    assert recount(docs) == Counts(pending=1, deleted=1, placeholders=1)
    assert recount(docs, applied=[inserted.id, approved.id]) == Counts(approved=2, deleted=1, placeholders=1)


def test_counts_read_back_from_a_document_with_missing_keys_are_zero():
    assert Counts.from_doc({"approved": 3}) == Counts(approved=3)
    assert Counts.from_doc(None).moved({"spam": 2}) == Counts(spam=2)


def test_an_intent_survives_its_round_trip_and_junk_is_no_intent():
    intent = Intent(id=ObjectId(), was=("pending", False), now=("approved", True))
    assert Intent.from_doc(intent.as_doc()) == intent
    assert Intent.from_doc(None) is None and Intent.from_doc({"id": "x"}) is None


@pytest.mark.parametrize("name", STORES)
def test_every_store_is_made_with_the_counters(name):
    """get_store, the one place a store is made, hands it the counters its status,
    placeholder and text changes move (no hook set up later)."""
    assert get_store(name).counting is counters
