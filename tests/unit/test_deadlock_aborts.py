"""Which server answers infra/racing_inserts.py reads as a deadlock abort (pure)."""

from pymongo.errors import DuplicateKeyError, OperationFailure, WriteError

from infra import racing_inserts
from infra.racing_inserts import aborted_as_deadlock


def test_only_a_deadlock_is_read_as_an_abort():
    """FerretDB's words decide, whatever the code; a duplicate key or a bad value is not one."""
    assert aborted_as_deadlock(WriteError("deadlock detected", 16908292, {"errmsg": "deadlock detected"}))
    assert aborted_as_deadlock(OperationFailure("ERROR: deadlock detected (SQLSTATE 40P01)", 1))
    assert not aborted_as_deadlock(DuplicateKeyError("E11000 duplicate key error", 11000))
    assert not aborted_as_deadlock(OperationFailure("unknown operator: $where", 2))


def test_the_looks_for_the_key_come_at_doubling_intervals_that_fill_the_window():
    """After an abort the writer looks for the key at intervals doubling from
    FIRST_LOOK_SECONDS, none past LONGEST_LOOK_SECONDS, for the whole window and no
    longer: it inserts again only once the racers still in flight had time to settle."""
    first, longest = racing_inserts.FIRST_LOOK_SECONDS, racing_inserts.LONGEST_LOOK_SECONDS
    for window in (racing_inserts.SETTLE_SECONDS / 2, 7.3, racing_inserts.SETTLE_SECONDS):
        pauses = racing_inserts.looks(window)
        assert abs(sum(pauses) - window) < 1e-6
        assert pauses[:3] == [first, 2 * first, 4 * first]
        assert max(pauses) == longest and all(0 < p <= longest for p in pauses)
        assert all(b >= a for a, b in zip(pauses[:-2], pauses[1:-1], strict=True))  # the last may be shorter
    assert racing_inserts.looks(0.0) == []
    assert racing_inserts.looks(0.05) == [first, 0.05 - first]
