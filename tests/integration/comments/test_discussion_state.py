"""The comments app's per-discussion state (comments/stores/discussion_state.py): the buckets
store's page counter, the change number, the compare-and-set that moves the counters."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from bson import ObjectId

from comments.stores import discussion_state
from comments.stores.counting import Counts


EARLY = datetime(2026, 1, 1, tzinfo=UTC)
LATE = datetime(2026, 6, 1, tzinfo=UTC)


def made(num_pages: int = 1) -> ObjectId:
    discussion_id = ObjectId()
    discussion_state.create(discussion_id, counts=Counts(), num_pages=num_pages)
    return discussion_id


def test_the_page_counter_advances_one_page_at_a_time():
    """From 1 to 2, then 2 to 3; a writer naming a page already left changes nothing."""
    discussion_id = made()
    assert discussion_state.advance_pages(discussion_id, from_page=1)
    assert not discussion_state.advance_pages(discussion_id, from_page=1)
    assert discussion_state.advance_pages(discussion_id, from_page=2)
    assert discussion_state.get(discussion_id).num_pages == 3


def test_of_writers_past_a_full_page_at_once_exactly_one_advances_it():
    """Eight threads advance from the same page: one does, the page moves by one."""
    discussion_id = made(num_pages=4)
    barrier, results = threading.Barrier(8), []

    def advance():
        barrier.wait()
        results.append(discussion_state.advance_pages(discussion_id, from_page=4))

    threads = [threading.Thread(target=advance) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False] * 7 + [True]
    assert discussion_state.get(discussion_id).num_pages == 5


def test_an_intent_is_applied_once_and_only_at_the_seq_it_was_read_at():
    """The compare-and-set: a stale seq or an intent already applied moves nothing."""
    discussion_id = made()
    seq = discussion_state.get(discussion_id).seq
    intent = ObjectId()
    moved = discussion_state.apply(discussion_id, intent_id=intent, deltas={"approved": 1}, if_seq=seq, posted=LATE)
    assert moved is not None and moved.counts == Counts(approved=1) and moved.seq == seq + 1
    assert discussion_state.apply(discussion_id, intent_id=ObjectId(), deltas={"approved": 1}, if_seq=seq,
                                  posted=EARLY) is None
    assert discussion_state.apply(discussion_id, intent_id=intent, deltas={"approved": 1}, if_seq=seq + 1,
                                  posted=EARLY) is None
    assert discussion_state.get(discussion_id).opens == LATE
    discussion_state.forget(discussion_id, intent_ids=[intent])
    assert discussion_state.get(discussion_id).applied == frozenset()


def test_a_state_made_twice_at_once_is_made_once():
    """The first state stored wins; the second writer gets it back."""
    discussion_id = ObjectId()
    first = discussion_state.create(discussion_id, counts=Counts(approved=3), num_pages=2)
    second = discussion_state.create(discussion_id, counts=Counts(approved=9), num_pages=5)
    assert second == first and discussion_state.get(discussion_id).counts.approved == 3


def test_a_state_made_again_after_a_drop_numbers_its_changes_above_the_old_ones():
    """The change number starts from the clock: the host's summary guard keeps working."""
    discussion_id = made()
    discussion_state.touch([discussion_id])
    old = discussion_state.get(discussion_id).seq
    discussion_state.drop(discussion_id)
    assert made_again(discussion_id).seq > old


def made_again(discussion_id: ObjectId) -> discussion_state.State:
    return discussion_state.create(discussion_id, counts=Counts(), num_pages=1)


def test_opens_only_ever_moves_earlier():
    """Each counted comment's `posted` and each recount's earliest can only bring
    `opens` back in time: it stays no later than the discussion's first comment."""
    discussion_id = made()
    for posted in (LATE, EARLY + timedelta(days=1), LATE + timedelta(days=9)):
        seq = discussion_state.get(discussion_id).seq
        discussion_state.apply(discussion_id, intent_id=ObjectId(), deltas={"approved": 1}, if_seq=seq, posted=posted)
    assert discussion_state.get(discussion_id).opens == EARLY + timedelta(days=1)
    discussion_state.note_opens(discussion_id, opens=LATE)
    assert discussion_state.get(discussion_id).opens == EARLY + timedelta(days=1)
    discussion_state.note_opens(discussion_id, opens=EARLY)
    assert discussion_state.get(discussion_id).opens == EARLY
