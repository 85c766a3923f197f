"""Around a move of the development cluster's shards (infra's `rebalance_shards`): the
comment writes are held while the shards move, then what the comments app derives
from what it stores is counted again.

On DocumentDB with Citus, a write that reaches a shard while Citus copies it can be
lost without an error: DocumentDB sends its writes on a sharded collection as a
SELECT of its worker function on the shard (`update_worker`, `insert_worker`, ...),
which Citus routes as a read, so a move blocks it neither in `block_writes` mode nor
at `force_logical`'s switch-over, and it may land on the copy that is dropped
(docs/dev-cluster.md, measured by bench/shard_moves.py). So every comment and vote
write is refused while the shards move (posting answers 503 and keeps the reader's
text: store_switch.hold), once every process has seen the hold; afterwards the
counters, the posts' summaries and the vote tallies, derived from the comments and
the votes, are put right, in case a write begun before the hold landed during a move.
Writes outside the comments app (a picture's chunks) are not held."""

from __future__ import annotations

import time

from comments.stores import store_switch, summaries
from comments.votes import collection as votes


def hold_writes() -> list[str]:
    """Hold every comment and vote write (store_switch.hold), then wait until every
    process has seen it and finished what it began (the recheck interval and a
    request's budget); a line saying so."""
    store_switch.hold()
    time.sleep(store_switch.grace_seconds())
    return ["Comment and vote writes held while the shards move (answered 503, the reader's text kept)."]


def release_and_repair() -> list[str]:
    """Take writes again (if `hold_writes` held them: the hold is in the switch record,
    so a rerun after a killed rebalance takes them again too), count every discussion's
    comments again (its counters and its post's summary), and put right every vote tally
    that drifts from its votes, except those voted on within the last minute (a vote may
    be on its way: `repair_votes` later); what was done, a line each."""
    released = store_switch.release()
    discussions = summaries.repair_all()
    tallies = votes.repair_all()
    return [
        *(["Comment and vote writes taken again."] if released else []),
        f"Counted the comments of {discussions} discussion{'s' if discussions != 1 else ''} again "
        "(for a write that landed while a shard moved: docs/dev-cluster.md).",
        f"Vote tallies: {tallies.fixed} put right; {tallies.settling} voted on within the last minute, "
        "left to repair_votes.",
    ]
