"""comments/moderation/flags.py: readers' flags, one per reader and comment."""

import threading
from datetime import datetime, timezone

import pytest
from bson import ObjectId

from comments.moderation import flags

pytestmark = pytest.mark.usefixtures("each_store")

AT = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def flag(comment_id, flagger, reason="spam", note=""):
    return flags.add_flag(comment_id=comment_id, discussion_id=ObjectId(), flagger=flagger, reason=reason,
                          note=note, at=AT)


def test_one_flag_per_reader_and_comment(mongo_db):
    """A second flag by the same flagger is refused by the unique index and not counted."""
    comment = ObjectId()
    assert flag(comment, "ip:192.0.2.1")
    assert not flag(comment, "ip:192.0.2.1", reason="abuse")
    assert flag(comment, "user:4")
    assert flags.count_flags(comment_id=comment) == 2
    assert flags.count_flags(comment_id=ObjectId()) == 0


def test_find_flags_groups_reasons_by_comment_and_clear_forgets_them(mongo_db):
    """find_flags returns each comment's flags with their labels; clear_flags removes them."""
    one, two = ObjectId(), ObjectId()
    flag(one, "ip:1", reason="abuse", note="Rude")
    flag(two, "ip:1", reason="off_topic")
    found = flags.find_flags(comment_ids=[one, two])
    assert [(f.reason_label, f.note) for f in found[one]] == [("Abusive, hateful or harassing", "Rude")]
    assert [f.reason for f in found[two]] == ["off_topic"]
    assert flags.clear_flags(comment_ids=[one]) == 1
    assert flags.count_flags(comment_id=one) == 0 and flags.count_flags(comment_id=two) == 1


def test_the_flag_counter_gives_each_of_six_concurrent_flags_its_own_number(mongo_db):
    """Six threads count a flag of one new comment at once, for five comments: numbers
    1 to 6 each time, none lost (a counter is created by one insert, never by racing
    upserts, which FerretDB v2 can let overwrite each other)."""
    for _ in range(5):
        comment, barrier, numbers = ObjectId(), threading.Barrier(6), []

        def count():
            barrier.wait()
            numbers.append(flags.add_flag_count(comment_id=comment))

        threads = [threading.Thread(target=count) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(numbers) == [1, 2, 3, 4, 5, 6] and flags.flag_count(comment_id=comment) == 6


def test_clearing_flags_restarts_the_count(mongo_db):
    """After an editor's judgement the next flag is number 1 again."""
    comment = ObjectId()
    flag(comment, "ip:1")
    flags.add_flag_count(comment_id=comment)
    flags.clear_flags(comment_ids=[comment])
    assert flags.flag_count(comment_id=comment) == 0
    assert flags.add_flag_count(comment_id=comment) == 1
