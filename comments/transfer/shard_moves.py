"""After shards of the development cluster moved (infra's `rebalance_shards`): what the
comments app derives from what it stores is counted again.

On DocumentDB with Citus, a write that reaches a shard while Citus copies it can be
lost without an error: DocumentDB sends its writes on a sharded collection as a
SELECT of its worker function on the shard (`update_worker`, `insert_worker`, ...),
which Citus routes as a read, so a move blocks it neither in `block_writes` mode nor
at `force_logical`'s switch-over, and it may land on the copy that is dropped
(docs/dev-cluster.md, measured by bench/shard_moves.py). The counters, the posts'
summaries and the vote tallies are derived from the comments and the votes, so they
are put right here; a comment or vote lost that way is not."""

from __future__ import annotations

from comments.stores import summaries
from comments.votes import collection as votes


def repair_after_moves() -> list[str]:
    """Count every discussion's comments again (its counters and its post's summary),
    and put right every vote tally that drifts from its votes, except those voted on
    within the last minute (a vote may be on its way: `repair_votes` later); what was
    done, a line each."""
    discussions = summaries.repair_all()
    fixed = settling = 0
    for drift in votes.find_drift():
        if drift.settling:
            settling += 1
        elif votes.repair(drift):
            fixed += 1
    return [
        f"Counted the comments of {discussions} discussion{'s' if discussions != 1 else ''} again "
        "(writes to a shard while it moved may be lost on DocumentDB: docs/dev-cluster.md).",
        f"Vote tallies: {fixed} put right; {settling} voted on within the last minute, left to repair_votes.",
    ]
