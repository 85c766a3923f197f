"""Doing an erasure (comments/erasure/jobs.py records it), step by step, a batch at a
time, until it is done or the runner's time is up:

1. comments: the member's comments, BATCH at a time from the discussion of their
   newest one (newest first), are deleted with their text, name, address, IP and
   form key emptied and their author id removed, each standing as a "[deleted]"
   placeholder exactly when an approved reply is below it, with the discussion's
   counters moved once for the batch (comments/erasure/batch.py, bulk writes); then
   the post's count and latest comments are handed to the host again, its cached
   pages dropped, and the outbox's mail about those comments deleted. A comment
   without its author id no longer matches the member: the next batch is the next
   comments.
2. votes: the member's votes, VOTE_BATCH at a time, are taken back from their
   comments' tallies (in bulk: comments.votes.collection.withdraw) and their records
   deleted.
3. addresses: the subscriptions of the member's addresses and account, the record
   that those addresses were confirmed, and the outbox's mail to them are deleted.

Every change is idempotent and each batch is recorded before it is changed, so a run
cut short (killed, out of time, the database gone) is finished by the next one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from pymongo.errors import PyMongoError

from comments.erasure import batch, jobs
from comments.erasure.batch import ERASED_FIELDS, erased
from comments.erasure.jobs import Erasure
from comments.notifications import outbox, subscriptions
from comments.posting import confirmed
from comments.reading import fragments
from comments.records import NEWEST, Commenter
from comments.stores import Query, counters, get_store
from comments.votes import collection as votes
from infra import mongo

__all__ = ["BATCH", "ERASED_FIELDS", "VOTE_BATCH", "continue_all", "erased", "run"]

BATCH = 200
VOTE_BATCH = 500
# About how long a whole batch takes the database (a loaded development database's
# pace, docs/benchmarks.md): a runner given less time takes a share of a batch, so a
# request's share of the work stays within its time.
BATCH_SECONDS = 2.0
# A runner under a request's MongoDB budget stops with this much of it left.
BUDGET_MARGIN = 0.4

logger = logging.getLogger(__name__)


def _time_left(deadline: float) -> bool:
    budget = mongo.budget_left()
    return time.monotonic() < deadline and (budget is None or budget > BUDGET_MARGIN)


def run(erasure_id: Any, *, seconds: float) -> Erasure | None:
    """Run the erasure for about `seconds` at most (and within the request's MongoDB
    budget, under one); where it stands after. None for an unknown id. Another runner
    holding it is left to finish it. Given less than BATCH_SECONDS, its batches are
    cut in proportion (a request's second: 100 comments, 250 votes)."""
    doc = jobs.take(erasure_id)
    if doc is not None:
        deadline = time.monotonic() + seconds
        try:
            while doc["step"] != jobs.DONE and _time_left(deadline):
                doc = STEPS[doc["step"]](doc, min(1.0, seconds / BATCH_SECONDS))
        except (PyMongoError, counters.Contended) as exc:
            if isinstance(exc, PyMongoError) and not mongo.is_outage(exc):
                raise
            logger.warning("Erasure %s stopped at its %s step (%s); it will be finished.", erasure_id,
                           doc["step"], exc.__class__.__name__)
        if doc["step"] != jobs.DONE:
            mongo.outside_request_budget(lambda: jobs.release(doc))
    return jobs.find(erasure_id)


def continue_all(*, seconds: float) -> int:
    """Run every unfinished erasure no runner holds, oldest first, for about `seconds`
    in all; how many are done now."""
    deadline = time.monotonic() + seconds
    finished = 0
    for erasure_id in jobs.unfinished():
        left = deadline - time.monotonic()
        if left <= 0:
            break
        found = run(erasure_id, seconds=left)
        finished += bool(found and found.done)
    return finished


def _size(batch: int, share: float) -> int:
    return max(1, int(batch * share))


def _comments(doc: dict[str, Any], share: float) -> dict[str, Any]:
    """One batch (`share` of BATCH) of the member's comments (the recorded one first)."""
    store = get_store()
    if not doc["batch"]:
        member = Commenter(user_id=int(doc["user_id"]))
        newest = store.find(Query(commenter=member, order=tuple(NEWEST), limit=1))
        if not newest:
            return jobs.next_step(doc)
        found = store.find(Query(commenter=member, discussion_id=newest[0].discussion_id, order=tuple(NEWEST),
                                 limit=_size(BATCH, share)))
        doc = jobs.set_batch(doc, [{"id": c.id, "discussion_id": c.discussion_id, "slug": c.slug} for c in found])
    batch.erase(doc["batch"], store=store)
    outbox.forget(comment_ids=[item["id"] for item in doc["batch"]])
    return jobs.finish_batch(doc, counted="comments")


def _votes(doc: dict[str, Any], share: float) -> dict[str, Any]:
    """One batch of the member's votes (the recorded one first)."""
    if not doc["batch"]:
        found = votes.counting_ids(voter=f"u:{int(doc['user_id'])}", limit=_size(VOTE_BATCH, share))
        if not found:
            return jobs.next_step(doc)
        doc = jobs.set_batch(doc, found)
    moved = votes.withdraw(vote_ids=doc["batch"])
    counters.touch(moved)  # New versions: no cached page shows the old tallies.
    for discussion_id in moved:
        fragments.forget(discussion_id)
    return jobs.finish_batch(doc, counted="votes")


def _addresses(doc: dict[str, Any], share: float) -> dict[str, Any]:
    """The member's subscriptions, confirmed addresses and mail to them, at once."""
    emails = list(doc.get("emails") or [])
    counts = {"subscriptions": subscriptions.forget(emails=emails, user_id=int(doc["user_id"])),
              "addresses": confirmed.forget(emails=emails), "mail": outbox.forget(to=emails)}
    jobs.finish(doc, counts)
    return {**doc, "step": jobs.DONE}


STEPS: dict[str, Callable[[dict[str, Any], float], dict[str, Any]]] = {
    jobs.COMMENTS: _comments, jobs.VOTES: _votes, jobs.ADDRESSES: _addresses,
}
