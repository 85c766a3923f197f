"""A discussion's counters, moved exactly once by every change without transactions
(docs/counters.md has the design and why).

Every change of a comment's status or placeholder (and every insert) writes, in the
same single-document update and only while the comment is still as it was read and
carries no other change, an *intent* on the comment: `{id, was, now}`. Then:

1. `apply`: read the discussion's state, check the comment still carries the intent
   and the state has not applied it, and move the counters by the intent's deltas with
   a compare-and-set on the state's `seq` (comments/stores/discussion_state.py), noting the
   intent id in `applied`; a lost compare-and-set reads again (a state read before the
   intent was written, a new comment's note, is tried first with no read: `_apply`);
2. clear the intent on the comment;
3. drop the id from `applied` (a comment posted does it in the update dropping its note).

A writer that finds another's intent on the comment it wants to change finishes it
(1-3) first. A crash anywhere leaves the comment carrying its intent (until 2) or
the state listing it (until 3); `repair` completes both. Because every apply is a
compare-and-set on `seq` made after reading that the comment still carries the
intent, an apply can never land after the intent was cleared: one change, one move.

Every function works on the store it is given, the one that holds the comments: this
module is the `Counting` each store is made with (comments/stores/counting.py;
comments.stores.get_store hands it over), and callers above the stores pass the store
in use. It imports no store and nothing that makes one.
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bson import ObjectId
from pymongo.database import Database

from comments.records import APPROVED, HIDDEN, Comment, Intent
import comments.stores.counting as counting
import comments.stores.discussion_state as discussion_state
from comments.stores.base import CommentStore
from comments.stores.counting import Counts, Shape
from comments.stores.discussion_state import State
from comments.stores.queries import Query

# States made per `ensure_states` run at most (each is one recount of a discussion).
STATE_BACKFILL = 20_000
# Compare-and-set attempts of one apply or recount; each lost one means another
# writer's went through.
ATTEMPTS = 200
# Comments read per batch by a recount, which streams them: its memory is one batch.
SCAN_BATCH = 500
CONTENDED = "The counters of discussion {discussion_id} were overtaken {attempts} times; repair_summaries puts them right."

logger = logging.getLogger(__name__)


def _no_fault(step: str) -> None:
    """Called between the steps of a change (tests replace it to inject a crash)."""


between_steps: Callable[[str], None] = _no_fault


class Contended(RuntimeError):
    """Too many other writers at once; the change is stored, its counting left to repair."""


# --- The state --------------------------------------------------------------------------


def state(discussion_id: ObjectId, *, store: CommentStore) -> State:
    """The discussion's state, made once from a recount of its comments in `store` when
    it has none (a discussion from before the counters, or a new one). Comments changed
    meanwhile carry intents no state has applied, so the recount counts them as they
    were and their writers' applies move the counters on; the first state stored wins."""
    found = discussion_state.get(discussion_id)
    return found if found is not None else _first_state(discussion_id, store=store)[0]


def _first_state(discussion_id: ObjectId, *, store: CommentStore, newest: int = 0) -> tuple[State, Survey]:
    """A first state made from a survey of the comments (the first stored wins), and
    that survey."""
    surveyed = survey(discussion_id, store=store, newest=newest)
    return discussion_state.create(discussion_id, counts=surveyed.counts, opens=surveyed.opens,
                                   num_pages=store.last_page(discussion_id=discussion_id)), surveyed


def _state_surveyed(discussion_id: ObjectId, *, store: CommentStore, newest: int = 0) -> tuple[State, Survey]:
    """The discussion's state and a survey of its comments counted against it: when
    the state is made here, the survey it was made from (a fresh discussion is read
    once), unless another writer's first state, counted otherwise, was stored first."""
    found = discussion_state.get(discussion_id)
    if found is None:
        made, surveyed = _first_state(discussion_id, store=store, newest=newest)
        if made.counts == surveyed.counts and not made.applied:
            return made, surveyed
        found = made
    return found, survey(discussion_id, store=store, applied=found.applied, newest=newest)


@dataclass(frozen=True)
class Survey:
    """What one pass over a discussion's stored comments finds."""

    counts: Counts  # as the counters should stand, given the intents they applied
    carried: frozenset[Any]  # the ids of the intents its comments carry
    opens: datetime | None  # the earliest `posted` (None: no comment)
    unfinished: tuple[tuple[Any, Intent], ...] = ()  # (comment id, intent) of the comments carrying one
    newest: tuple[datetime, ...] = ()  # the `posted` of the newest approved comments asked for, newest first


def survey(discussion_id: ObjectId, *, store: CommentStore, applied: Iterable[Any] = (), newest: int = 0,
           ) -> Survey:
    """Count the discussion's stored comments (as `counting.recount` does), their
    intents and their earliest time in one streamed pass (`scan_documents`): memory
    stays that of a batch whatever its size (listed, 50,000 comments took 200 MB).
    `newest`: how many of the newest approved comments' times to keep (a summary's)."""
    done, carried = set(applied), set()
    counts, opens, unfinished = Counts(), None, []
    kept: list[datetime] = []  # a heap of the newest times, the oldest of them first
    for doc in store.scan_documents(discussion_id=discussion_id, batch_size=SCAN_BATCH):
        counts = counts.moved(counting.counted(counting.counted_shape(doc, applied=done)))
        if (intent := Intent.from_doc(doc.get("intent"))) is not None:
            carried.add(intent.id)
            unfinished.append((doc["_id"], intent))
        if (posted := doc.get("posted")) is not None and (opens is None or posted < opens):
            opens = posted
        if newest and posted is not None and (doc.get("status") or APPROVED) not in HIDDEN:
            (heapq.heappush if len(kept) < newest else heapq.heappushpop)(kept, posted)
    return Survey(counts=counts, carried=frozenset(carried), opens=opens, unfinished=tuple(unfinished),
                  newest=tuple(sorted(kept, reverse=True)))


def num_pages(discussion_id: ObjectId, *, store: CommentStore) -> int:
    """The bucket page new comments of the discussion go to (the buckets store)."""
    return state(discussion_id, store=store).num_pages


def ensure_states(db: Database, *, store: CommentStore) -> list[str]:
    """After the indexes (the release step and `make run` run `ensure_indexes`): a
    state for each discussion whose comments in `store` have none (a deployment
    upgraded from before the counters), at most STATE_BACKFILL a run, so the site-wide
    queue totals count every discussion from the first release on. Creates no index."""
    missing = set(store.discussion_ids()) - set(discussion_state.discussion_ids())
    for discussion_id in sorted(missing)[:STATE_BACKFILL]:
        state(discussion_id, store=store)
    return []


def totals(*, store: CommentStore, discussion_id: ObjectId | None = None) -> Counts:
    """The counters of one discussion, or summed over every discussion (each has a
    state once it has a comment; `ensure_states` makes those an upgrade lacks)."""
    if discussion_id is not None:
        return state(discussion_id, store=store).counts
    return discussion_state.totals()


def version(discussion_id: ObjectId, *, store: CommentStore) -> str:
    return state(discussion_id, store=store).version


def touch(discussion_ids: Iterable[ObjectId]) -> None:
    """A change that moves no counter (an edit, votes, a rename): new page versions."""
    discussion_state.touch(discussion_ids)


# --- Changing one comment ------------------------------------------------------------------


def expect_shape(shape: Shape) -> dict[str, Any]:
    status, placeholder = shape
    return {"status": {"$in": [APPROVED, None]} if status == APPROVED else status,
            "placeholder": True if placeholder else {"$ne": True}, "intent": None}


def _find(discussion_id: ObjectId, comment_id: ObjectId, store: CommentStore) -> Comment | None:
    found = store.find(Query(discussion_id=discussion_id, ids=frozenset({comment_id}), limit=1))
    return found[0] if found else None


def change(comment: Comment, *, store: CommentStore, status: str | None = None, placeholder: bool | None = None,
           fields: dict[str, Any] | None = None, only_from: str | None = None) -> Comment | None:
    """Give one comment `status` and/or `placeholder` (and `fields` with them), moving
    its discussion's counters once; the comment as changed, or None when it is gone
    (or, with `only_from`, no longer has that status: an edit read before a delete).
    Read again and retried while another writer changes it first. `store`: the one
    that holds the comment."""
    current: Comment | None = comment
    for _ in range(ATTEMPTS):
        if current is None:
            return None
        if current.intent is not None:
            finish(current, store=store)
            current = _find(current.discussion_id, current.id, store)
            continue
        if only_from is not None and current.status != only_from:
            return None
        was = (current.status, current.placeholder)
        now = (status or current.status, current.placeholder if placeholder is None else bool(placeholder))
        extra = dict(fields or {})
        if was == now and not extra:
            return current
        intent = Intent(id=ObjectId(), was=was, now=now) if was != now else None
        before = discussion_state.get(current.discussion_id) if intent else None  # `_apply` counts on it
        update = {"status": now[0], "placeholder": now[1], **extra,
                  **({"intent": intent.as_doc()} if intent else {})}
        if store.transition(comment=current, expect=expect_shape(was), fields=update):
            changed = Comment.from_doc({**_as_doc(current), **update, "intent": None})
            if intent is None:
                touch([current.discussion_id])
            else:
                between_steps("changed")
                finish_intent(current.discussion_id, comment_id=current.id, intent=intent, store=store,
                              carrier=changed, before=before)
            return changed
        current = _find(current.discussion_id, current.id, store)
    raise Contended(CONTENDED.format(discussion_id=comment.discussion_id, attempts=ATTEMPTS))


def _as_doc(comment: Comment) -> dict[str, Any]:
    """The stored fields a Comment record was read from (what Comment.from_doc takes)."""
    author = comment.author
    return {"_id": comment.id, "discussion_id": comment.discussion_id, "parent_id": comment.parent_id,
            "slug": comment.slug, "full_slug": comment.full_slug, "thread": comment.thread,
            "posted": comment.posted, "text": comment.text, "html": comment.html, "form_key": comment.form_key,
            "status": comment.status, "placeholder": comment.placeholder, "ip": comment.ip,
            "edited": comment.edited, "flag_count": comment.flag_count,
            "author": {"id": author.id, "name": author.name, "email": author.email, "staff": author.staff},
            "votes": {"up": comment.votes_up, "down": comment.votes_down}, "score": comment.score,
            "rank": comment.rank, "picked": comment.picked}


def finish(comment: Comment, *, store: CommentStore, before: State | None = None,
           forget: bool = True) -> State | None:
    """Complete the intent `comment` carries (if any), whoever wrote it; the state as
    this call's apply left it (None: no intent, or another writer applied it).
    `before`: the state as the intent's writer read it before writing it (`_apply`).
    Not `forget`: step 3 is the caller's, folded into its next write of the state."""
    if comment.intent is None:
        return None
    return finish_intent(comment.discussion_id, comment_id=comment.id, intent=comment.intent, store=store,
                         carrier=comment, before=before, forget=forget)


def finish_intent(discussion_id: ObjectId, *, comment_id: ObjectId, intent: Intent, store: CommentStore,
                  carrier: Comment | None = None, before: State | None = None,
                  forget: bool = True) -> State | None:
    """Steps 1 to 3 of the module docstring for one intent; each is idempotent. The
    state as step 1 left it, when this call applied the intent (else None).
    `carrier`: the comment as its writer knows it (else it is read): step 2 clears the
    intent only where the stored comment still carries it, so any copy will do."""
    applied = _apply(discussion_id, comment_id=comment_id, intent=intent, store=store,
                     before=(before, carrier) if before is not None and carrier is not None else None)
    between_steps("applied")
    found = carrier or _find(discussion_id, comment_id, store)
    if found is not None:
        store.transition(comment=found, expect={"intent.id": intent.id}, fields={"intent": None})
    between_steps("cleared")
    if forget:
        discussion_state.forget(discussion_id, intent_ids=[intent.id])
    return applied


def _apply(discussion_id: ObjectId, *, comment_id: ObjectId, intent: Intent, store: CommentStore,
           before: tuple[State, Comment] | None = None) -> State | None:
    """Step 1; the state after it, or None when the intent was applied already. A state
    read `before` the intent was written (with the comment) cannot have applied it, and
    any apply since raised `seq`: the first compare-and-set is made on it, reading nothing."""
    deltas = counting.deltas(intent.was, intent.now)
    for _ in range(ATTEMPTS):
        if before is not None:
            (current, found), before = before, None
        else:  # The state first: its `seq` must be read before the comment's intent is.
            current, read = state(discussion_id, store=store), _find(discussion_id, comment_id, store)
            if intent.id in current.applied or read is None or read.intent is None or read.intent.id != intent.id:
                return None  # Applied (and maybe cleared) by another writer, or the comment is gone.
            found = read
        after = discussion_state.apply(discussion_id, intent_id=intent.id, deltas=deltas, if_seq=current.seq,
                                       posted=found.posted)
        if after is not None:
            return after
    raise Contended(CONTENDED.format(discussion_id=discussion_id, attempts=ATTEMPTS))


def set_status(comments: Iterable[Comment], *, store: CommentStore, status: str, blank: bool = False,
               placeholder: bool | None = None) -> int:
    """Give each comment `status` (with `blank`, empty its text; `placeholder`, set
    that too); how many changed."""
    fields = {"text": "", "html": ""} if blank else None
    changed = 0
    for comment in comments:
        if comment.status == status and (placeholder is None or comment.placeholder == placeholder) and not (
                blank and comment.text) and comment.intent is None:
            continue
        changed += change(comment, status=status, placeholder=placeholder, fields=fields, store=store) is not None
    return changed


def set_placeholder(comments: Iterable[Comment], *, store: CommentStore, placeholder: bool,
                    recounted: bool = False) -> int:
    """Give each comment `placeholder`; how many changed. `recounted`: the caller
    recounts the discussion next (`recount`: an import, whose comments went in outside
    `change`), so a comment that carries no intent is changed in one write, only while
    it is still as read, to what `change` would leave, and counted by that recount."""
    changed = 0
    for comment in comments:
        if comment.placeholder != placeholder or comment.intent is not None:
            if recounted and comment.intent is None and store.transition(
                    comment=comment, expect=expect_shape((comment.status, comment.placeholder)),
                    fields={"status": comment.status, "placeholder": placeholder, "intent": None}):
                changed += 1
                continue
            changed += change(comment, placeholder=placeholder, store=store) is not None
    return changed


# --- Checking and repairing -------------------------------------------------------------------


@dataclass(frozen=True)
class CountDrift:
    """A discussion whose counters disagree with a recount of its comments."""

    discussion_id: ObjectId
    stored: Counts | None
    counted: Counts
    unfinished: int


def check(discussion_id: ObjectId, *, store: CommentStore) -> CountDrift | None:
    """Compare the counters with a recount of the comments in `store` (reads only); None
    when they agree. The intents still on comments are counted as the state stands
    (applied or not)."""
    found = discussion_state.get(discussion_id)
    docs = list(store.iter_documents(discussion_id=discussion_id))
    unfinished = sum(1 for d in docs if Intent.from_doc(d.get("intent")) is not None)
    counted = counting.recount(docs, applied=found.applied if found else ())
    if found is not None and found.counts == counted:
        return None
    if found is None and not docs:
        return None
    return CountDrift(discussion_id=discussion_id, stored=found.counts if found else None, counted=counted,
                      unfinished=unfinished)


def repair(discussion_id: ObjectId, *, store: CommentStore, expected: bool = False) -> bool:
    """Finish every intent left on the discussion's comments in `store`, forget applied
    ids no comment carries, then store a recount if the counters drift from it (a
    compare-and-set on `seq`: a writer that moved them meanwhile makes it count again).
    Whether the counters changed; logged as a repair (a warning) unless the change is
    `expected` (comments were added outside `change`: `recount`)."""
    return _repaired(discussion_id, store=store, expected=expected)[0]


def _repaired(discussion_id: ObjectId, *, store: CommentStore, expected: bool, newest: int = 0,
              ) -> tuple[bool, Survey]:
    """`repair`, and the survey the counters were last compared with."""
    # The first pass also finds the comments that carry an intent (few: changes cut
    # short); only when there are any are they finished and the comments counted again.
    finished = False
    for _ in range(ATTEMPTS):
        current, surveyed = _state_surveyed(discussion_id, store=store, newest=newest)
        if not finished and surveyed.unfinished:
            for comment_id, intent in surveyed.unfinished:
                finish_intent(discussion_id, comment_id=comment_id, intent=intent, store=store)
            finished = True
            continue
        finished = True
        discussion_state.forget(discussion_id, intent_ids=current.applied - surveyed.carried)
        counted, opens = surveyed.counts, surveyed.opens
        if opens is not None and (current.opens is None or opens < current.opens):
            discussion_state.note_opens(discussion_id, opens=opens)
        if counted == current.counts:
            return False, surveyed
        if discussion_state.set_counts(discussion_id, counts=counted, if_seq=current.seq):
            if expected:
                logger.debug("Counters of discussion %s counted: %s -> %s", discussion_id, current.counts, counted)
            else:
                logger.warning("Counters of discussion %s repaired: %s -> %s", discussion_id, current.counts, counted)
            return True, surveyed
    raise Contended(CONTENDED.format(discussion_id=discussion_id, attempts=ATTEMPTS))


def recount(discussion_id: ObjectId, *, store: CommentStore, newest: int = 0) -> Survey:
    """After comments were added to `store` outside `change` (imports, restores): bring
    the counters up to them, and give the discussion's pages a new version. Not a
    repair: the counters were expected to change, and nothing is logged as repaired.
    The survey counted, with the times of the `newest` approved comments."""
    changed, surveyed = _repaired(discussion_id, store=store, expected=True, newest=newest)
    if not changed:
        touch([discussion_id])
    return surveyed


def discussion_ids(*, store: CommentStore) -> list[ObjectId]:
    """Every discussion with comments in `store` or with a state."""
    return sorted(set(store.discussion_ids()) | set(discussion_state.discussion_ids()))
