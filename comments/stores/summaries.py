"""A post's comment summary and the placeholders that keep replies in place: what
every change to a discussion's comments ends with (`settle`). Plain functions; no
request in sight.

No transactions, so a change and its settling are separate writes, and the settling
can fail after the change is stored (the request's time spent, a shard being moved
under a write lock, the database gone, the process killed). So a writer notes the
change in the discussion's state before writing it (`note_unsettled`) and `settle`
drops the note once done; a note left behind is settled again by `settle_overdue`
(the publishing loop runs it every round, and `repair_summaries`)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from bson import ObjectId
from pymongo.errors import PyMongoError

from comments import slugs
from comments.host import Discussion, LatestComment, get_host
from comments.records import HIDDEN, Comment
from comments.stores import counters, discussion_state, get_store
from comments.stores.counting import Counts
from comments.stores.discussion_state import State
from infra.mongo import is_outage

logger = logging.getLogger(__name__)
LATEST_COUNT = 3
EXCERPT_LENGTH = 140
# A change noted this long ago and still unsettled is settled by `settle_overdue`; its
# own writer (whose request's MongoDB work takes at most MONGODB_REQUEST_BUDGET_MS, and
# its last bookkeeping a grace of infra.mongo.GRACE_SECONDS) is done with it by then.
OVERDUE = timedelta(seconds=10)


def repair_placeholders(*, discussion_id: ObjectId, slugs_changed: Iterable[str], recounted: bool = False) -> None:
    """Make `placeholder` true exactly on the hidden comments with an approved reply,
    among the changed comments and their ancestors (the only ones a change of status
    can affect). Run after every change of status; a run reads the current state, so
    the last of two concurrent runs leaves it right. Changes whose counting was left
    unfinished on these comments (a request cut short) are finished first. A hidden
    comment above an approved one read here has its approved reply without a query
    (an import's hidden comments, all of them). `recounted`: the caller recounts the
    discussion next (`counters.set_placeholder`)."""
    wanted: set[str] = set()
    for slug in slugs_changed:
        wanted.add(slug)
        wanted.update(slugs.ancestor_slugs(slug))
    store = get_store()
    found = store.find_by_slugs(discussion_id=discussion_id, slugs=sorted(wanted))
    for comment in found:
        counters.finish(comment, store=store)
    above_approved = {slug for comment in found if comment.status not in HIDDEN
                      for slug in slugs.ancestor_slugs(comment.slug)}
    on: list[Comment] = []
    off: list[Comment] = []
    for comment in found:
        should = comment.status in HIDDEN and (
            comment.slug in above_approved or store.has_approved_reply(comment=comment))
        if should != comment.placeholder:
            (on if should else off).append(comment)
    counters.set_placeholder(on, store=store, placeholder=True, recounted=recounted)
    counters.set_placeholder(off, store=store, placeholder=False, recounted=recounted)


def note_unsettled(discussion_id: ObjectId, *, slugs: Iterable[str] = ()) -> ObjectId:
    """Before a change to the discussion's comments that `settle` is to follow: note in
    the discussion's state (made first if it has none) that the change, of `slugs` if
    known, is not yet settled; the note's id, for `settle` to drop."""
    return note_and_state(discussion_id, slugs=slugs)[0]


def note_and_state(discussion_id: ObjectId, *, slugs: Iterable[str] = ()) -> tuple[ObjectId, State]:
    """`note_unsettled`, and the state as the note left it, read in the same update:
    read before the change is written (`counters.finish`'s `before`)."""
    note_id, at, changed = ObjectId(), datetime.now(timezone.utc), list(slugs)
    noted = discussion_state.note_unsettled(discussion_id, note_id=note_id, at=at, slugs=changed)
    if noted is None:
        counters.state(discussion_id, store=get_store())  # A first state, counted from its comments.
        noted = discussion_state.note_unsettled(discussion_id, note_id=note_id, at=at, slugs=changed)
    assert noted is not None  # the state made just above
    return note_id, noted


def settle(*, discussion_id: ObjectId, slugs: Iterable[str], note: ObjectId | None = None) -> None:
    """After comments of one discussion changed status or text: their placeholders,
    then the post's comment count and latest comments; then the change's `note` (from
    `note_unsettled`) is dropped."""
    repair_placeholders(discussion_id=discussion_id, slugs_changed=slugs)
    refresh_summary(post_id=discussion_id)
    drop_note(discussion_id, note)


def drop_note(discussion_id: ObjectId, note: ObjectId | None, *, intents: Iterable[ObjectId] = ()) -> None:
    """The change `note` names is settled (None: none was noted); `intents`, applied and
    cleared, are dropped from the state in the same update (`counters.finish`'s `forget`)."""
    discussion_state.settled(discussion_id, note_ids=[note] if note is not None else [], intent_ids=intents)


def settle_overdue(*, older_than: timedelta | None = None, now: datetime | None = None) -> int:
    """Settle every discussion with a change noted more than `older_than` ago and not
    settled since (its writer's settling failed or was cut short): every change left
    uncounted on its comments is counted (`counters.repair`), the noted comments'
    placeholders and the post's summary brought up to date, then those notes dropped
    (a note made meanwhile stays for its writer). How many discussions. Doing it twice,
    or beside the writer, is harmless: each step reads what is stored."""
    before = (now or datetime.now(timezone.utc)) - (OVERDUE if older_than is None else older_than)
    store, done = get_store(), 0
    for discussion_id in discussion_state.unsettled_since(before):
        found = discussion_state.get(discussion_id)
        notes = [note for note in (found.unsettled if found else ()) if note[1] <= before]
        try:
            counters.repair(discussion_id, store=store)
            settle(discussion_id=discussion_id, slugs=sorted({slug for note in notes for slug in note[2]}))
            discussion_state.settled(discussion_id, note_ids=[note[0] for note in notes])
        except (PyMongoError, counters.Contended) as exc:  # Its shard away or too slow: the next run.
            if isinstance(exc, PyMongoError) and not is_outage(exc):
                raise
            logger.warning("Discussion %s is left unsettled for now (%s).", discussion_id, type(exc).__name__)
            continue
        done += 1
    return done


def excerpt(text: str, length: int = EXCERPT_LENGTH) -> str:
    """The start of a comment's text on one line, cut at a word."""
    flat = " ".join(text.split())
    if len(flat) <= length:
        return flat
    return flat[:length].rsplit(" ", 1)[0] + "…"


def latest_of(discussion_id: ObjectId, *, reach: int | None = None, since: datetime | None = None,
              ) -> list[LatestComment]:
    """The few newest approved comments, as the host's summary shows them (an indexed
    read of LATEST_COUNT comments; `reach`, the comments its counters hold; `since`,
    when they began as a recount just saw them)."""
    found = get_store().find_latest(discussion_id=discussion_id, limit=LATEST_COUNT, reach=reach, since=since)
    return [LatestComment(slug=c.slug, author_name=c.author.name, posted=c.posted, excerpt=excerpt(c.text))
            for c in found]


@dataclass(frozen=True)
class Summary:
    """What a host is handed of a discussion (`read_summary`, then `hand_over`)."""

    post_id: ObjectId
    seq: int
    count: int
    latest: list[LatestComment]


def read_summary(post_id: ObjectId, *, newest: tuple[datetime, ...] = (), state: State | None = None) -> Summary:
    """The discussion's approved count (from its counters: no recount) and its latest
    comments, the state read first (or `state`, as the caller's change left it): only
    the comments store is read (any thread). `newest`: the times of its newest approved
    comments as a recount just saw them (`counters.recount`), newest first; the latest
    are looked for from the last on."""
    current = state if state is not None else counters.state(post_id, store=get_store())
    since = newest[LATEST_COUNT - 1] if len(newest) >= LATEST_COUNT else None
    return Summary(post_id=post_id, seq=current.seq, count=current.counts.approved,
                   latest=latest_of(post_id, reach=current.counts.stored, since=since))


def hand_over(summary: Summary) -> None:
    """Hand the host a summary `read_summary` read. The host stores it only if its
    `seq` is newer than the one it holds: a summary is never replaced by one read
    before it, and the writer of each change (which raised `seq`) hands over one read
    after its change."""
    get_host().store_comment_summary(summary.post_id, seq=summary.seq, count=summary.count, latest=summary.latest)


def refresh_summary(*, post_id: ObjectId, state: State | None = None) -> int:
    """Read the discussion's summary and hand it to the host; returns the count.
    `state`: the discussion's state as the caller's own change just left it (what
    `counters.finish` returns), read instead of reading the state again."""
    summary = read_summary(post_id, state=state)
    hand_over(summary)
    return summary.count


def repair_all() -> int:
    """Repair the counters of every discussion (finish what was left unfinished, fix
    drift), then hand every host its summary again; how many discussions."""
    store = get_store()
    ids = counters.discussion_ids(store=store)
    for discussion_id in ids:
        counters.repair(discussion_id, store=store)
        discussion = get_host().get(discussion_id)
        approved = counters.state(discussion_id, store=store).counts.approved
        if discussion is not None and _held(discussion) != (approved, _latest_slugs(discussion_id)):
            counters.touch([discussion_id])  # A newer `seq`, so the host takes the summary.
        refresh_summary(post_id=discussion_id)
    return len(ids)


def _held(discussion: Discussion) -> tuple[int, tuple[str, ...]]:
    """What the host holds: (its comment count, the slugs of its latest comments)."""
    return discussion.comment_count, tuple(c.slug for c in discussion.latest_comments)


def _latest_slugs(discussion_id: ObjectId) -> tuple[str, ...]:
    return tuple(c.slug for c in get_store().find_latest(discussion_id=discussion_id, limit=LATEST_COUNT))


@dataclass(frozen=True)
class SummaryDrift:
    """A discussion whose counters or host summary disagree with a recount: the
    counters as stored and as counted (None: no state yet), and the host's
    (approved comments, latest slugs) as stored and as counted."""

    post_id: ObjectId
    stored: tuple[int, tuple[str, ...]]
    counted: tuple[int, tuple[str, ...]]
    stored_counts: Counts | None = None
    counted_counts: Counts | None = None
    unfinished: int = 0


def find_drift() -> Iterator[SummaryDrift]:
    """Every discussion whose counters, or whose host's stored count and latest
    comments, differ from a recount; reads only, changes nothing. A comment posted
    while this runs can show as drift that the next write puts right."""
    store = get_store()
    for post_id in counters.discussion_ids(store=store):
        discussion = get_host().get(post_id)
        counts = counters.check(post_id, store=store)
        kept = discussion_state.get(post_id)
        approved = counts.counted.approved if counts else (kept.counts.approved if kept else 0)
        counted = (approved, _latest_slugs(post_id))
        stored = counted if discussion is None else _held(discussion)
        if counts is not None or stored != counted:
            yield SummaryDrift(post_id=post_id, stored=stored, counted=counted,
                               stored_counts=counts.stored if counts else None,
                               counted_counts=counts.counted if counts else None,
                               unfinished=counts.unfinished if counts else 0)
