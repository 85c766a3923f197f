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


def test_the_pauses_between_tries_grow_to_a_bound():
    """Doubling from FIRST_PAUSE_SECONDS (each between half and all of its bound), never
    past LONGEST_PAUSE_SECONDS: racers aborted together do not go again together."""
    for attempt in range(1, racing_inserts.ATTEMPTS + 1):
        bound = min(racing_inserts.LONGEST_PAUSE_SECONDS, racing_inserts.FIRST_PAUSE_SECONDS * 2 ** (attempt - 1))
        for _ in range(20):
            assert bound / 2 <= racing_inserts.pause(attempt) <= bound
