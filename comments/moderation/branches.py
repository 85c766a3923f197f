"""Rules an editor sets on one branch of a discussion (a comment and every reply
below it): locked (no new reply anywhere below it) or slow (each commenter may post
once per N seconds anywhere in it). The `comment_branch_rules` and
`comment_branch_turns` collections; the only module that touches them.

    comment_branch_rules  {_id: <the branch's root comment id>, discussion_id, full_slug,
                           slug, locked: bool, slow_seconds: int, at, editor}
    comment_branch_turns  {_id: "<rule id>:<who>", until}    # a commenter's next turn

A rule is one small document on the branch's root comment, whatever the store and
however big the branch: locking is one atomic update, and posting reads every rule
above the parent with one query, `{discussion_id, full_slug: {$in: <its lineage>}}`,
on the `discussion_full_slug` index, which carries the discussion id (the shard key).

Slow mode's turns are shared by every worker: a commenter takes their turn with one
upsert whose `_id` names them and the branch, matched only once `until` has passed,
so of two posts at once exactly one wins (the other meets the unique `_id`).

A lock and a reply posted at the same moment, without transactions: the lock is one
write (W_L, the rule) and then its answer; a reply is a read of the rules (R1), its
insert (W_R), then a second read of the rules above it (R2, `withdraw_if_locked`),
and only then its answer. When R2 finds a lock, the reply is withdrawn: deleted with
its text and form key emptied and its counters moved back (`counters.change`, as any
delete), and refused as a lock refusal with the text kept. So a reply that stays was
seen by no lock at R2, which started after W_R was acknowledged. Reads and writes go
to the primary, which answers a read with every write acknowledged before it began:
W_L was not acknowledged when R2 began, so the lock answered after the reply was
stored. Every reply left below a lock was stored before the lock answered; one
stored after it always meets the lock at R2. (R1 alone cannot promise that: a lock
landing between R1 and W_R was the bug.) A reply stored just before the lock and
read again just after it is withdrawn too, which errs on the lock's side.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bson import ObjectId
from django.utils.translation import gettext, gettext_noop, ngettext
from pymongo import ASCENDING, IndexModel, ReturnDocument
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError

from comments import slugs
from comments.errors import Refused
from comments.moderation import changes
from comments.records import DELETED, Comment
from comments.stores import counters, discussion_state, get_store
from comments.stores.discussion_state import State
from comments.stores.summaries import settle
from infra.mongo import get_db
from infra.sharding import ShardKey

RULES, TURNS = "comment_branch_rules", "comment_branch_turns"
DISCUSSION_FULL_SLUG = "discussion_full_slug"
INDEXES = [IndexModel([("discussion_id", ASCENDING), ("full_slug", ASCENDING)], name=DISCUSSION_FULL_SLUG)]
TURN_INDEXES = [IndexModel([("until", ASCENDING)], expireAfterSeconds=0, name="until")]
SHARD_KEYS = (ShardKey(RULES, {"discussion_id": "hashed"}, tuple(INDEXES)),)
# Slow mode's bounds: at least a second, at most a day.
SLOW_LEAST, SLOW_MOST = 1, 86_400
LOCKED = gettext_noop("Replies are closed in this thread, so yours was not posted. Your text is kept below.")


def ensure_indexes(db: Database) -> list[str]:
    return db[RULES].create_indexes(INDEXES) + db[TURNS].create_indexes(TURN_INDEXES)


def shard_keys() -> tuple[ShardKey, ...]:
    return SHARD_KEYS


class BranchRefused(Refused):
    """A reply this branch's rules refuse; `retry_after`: seconds to wait (slow mode)."""


@dataclass(frozen=True)
class Rule:
    discussion_id: ObjectId
    full_slug: str
    locked: bool = False
    slow_seconds: int = 0
    # The branch's root comment (None in the copy a discussion's state keeps).
    comment_id: ObjectId | None = None

    @classmethod
    def from_doc(cls, doc: dict) -> Rule:
        return cls(comment_id=doc["_id"], discussion_id=doc["discussion_id"], full_slug=doc["full_slug"],
                   locked=bool(doc.get("locked")), slow_seconds=int(doc.get("slow_seconds") or 0))


@dataclass(frozen=True)
class Effect:
    """What the rules above a comment (its own included) do to a reply below it."""

    locked: bool = False
    slow_seconds: int = 0
    # The rule whose slow mode applies (the strictest), None when none does.
    slow_rule: Rule | None = None


def effect(rules: Iterable[Rule], full_slug: str) -> Effect:
    """What `rules` (any of a discussion's) do below the comment at `full_slug`: locked
    if any rule of its lineage is, slowed by the strictest slow rule of its lineage."""
    lineage = set(slugs.lineage_full_slugs(full_slug))
    above = [rule for rule in rules if rule.full_slug in lineage]
    slow = max((rule for rule in above if rule.slow_seconds > 0), key=lambda r: r.slow_seconds, default=None)
    return Effect(locked=any(rule.locked for rule in above), slow_seconds=slow.slow_seconds if slow else 0,
                  slow_rule=slow)


def rules_above(*, discussion_id: ObjectId, full_slug: str) -> list[Rule]:
    """The rules on this comment and its ancestors: one indexed query of its lineage."""
    query = {"discussion_id": discussion_id, "full_slug": {"$in": slugs.lineage_full_slugs(full_slug)}}
    return [Rule.from_doc(doc) for doc in get_db()[RULES].find(query).hint(DISCUSSION_FULL_SLUG)]


def rules_of(discussion_id: ObjectId) -> list[Rule]:
    """Every rule of a discussion (a handful: editors set them by hand)."""
    return [Rule.from_doc(doc) for doc in get_db()[RULES].find({"discussion_id": discussion_id})]


def set_rule(*, comment: Comment, locked: bool | None = None, slow_seconds: int | None = None,
             editor: str = "", now: datetime | None = None) -> Rule:
    """Lock or unlock the branch below `comment`, or set its slow mode (0: off): one
    atomic update of its rule, however big the branch."""
    changed: dict = {"at": now or datetime.now(UTC), "editor": str(editor)}
    if locked is not None:
        changed["locked"] = bool(locked)
    if slow_seconds is not None:
        changed["slow_seconds"] = int(slow_seconds)
    doc = get_db()[RULES].find_one_and_update(
        {"_id": comment.id},
        {"$set": changed, "$setOnInsert": {"discussion_id": comment.discussion_id, "full_slug": comment.full_slug,
                                           "slug": comment.slug}},
        upsert=True, return_document=ReturnDocument.AFTER,
    )
    copy_to_state(comment.discussion_id)
    return Rule.from_doc(doc or {})


def copy_to_state(discussion_id: ObjectId) -> None:
    """Copy the discussion's rules to its state (comments/stores/discussion_state.py), a
    new version of its pages: readers' pages mark the branches from there, with no
    query of their own. Read after the write, so the last of two editors' copies holds both."""
    counters.state(discussion_id, store=get_store())  # made first if the discussion has none yet
    copied = [{"full_slug": rule.full_slug, "locked": rule.locked, "slow_seconds": rule.slow_seconds}
              for rule in rules_of(discussion_id) if rule.locked or rule.slow_seconds]
    discussion_state.set_branches(discussion_id, branches=copied)


def from_state(state: State) -> list[Rule]:
    """The rules copied to a discussion's state, as rules."""
    return [Rule(discussion_id=state.discussion_id, full_slug=full_slug, locked=locked, slow_seconds=slow)
            for full_slug, locked, slow in state.branches]


# The queue's branch actions (`one=<action>:<id>`): what each sets on the rule.
ACTIONS: dict[str, dict[str, Any]] = {"lock": {"locked": True}, "unlock": {"locked": False}, "slow": {}, "unslow": {"slow_seconds": 0}}


def act(*, action: str, comment_id: ObjectId, seconds: int = 0, editor: str = "") -> Rule | None:
    """An editor's branch action (one of ACTIONS; `seconds` for "slow"), kept in the
    moderation history (comments/moderation/changes.py); the rule as it is now, None
    when there is no such comment."""
    comment = get_store().find_by_id(comment_id)
    if comment is None:
        return None
    values: dict[str, Any] = dict(ACTIONS[action]) if action != "slow" else {"slow_seconds": int(seconds)}
    rule = set_rule(comment=comment, editor=editor, **values)
    changes.note(action=action, comment=comment, editor=editor,
                 detail={"seconds": int(seconds)} if action == "slow" else None)
    return rule


def check_reply(*, parent: Comment, who: str, slow: bool = True, now: datetime | None = None) -> None:
    """Refuse a reply to `parent` that a rule of its branch forbids (BranchRefused):
    a locked branch, or a commenter (`who`: their account or address) whose turn in a
    slow branch has not come (unless not `slow`: editors); otherwise their turn starts now."""
    found = effect(rules_above(discussion_id=parent.discussion_id, full_slug=parent.full_slug), parent.full_slug)
    if found.locked:
        raise BranchRefused(gettext(LOCKED), code="locked")
    if slow and found.slow_rule is not None:
        wait = take_turn(rule=found.slow_rule, who=who, now=now)
        if wait:
            raise BranchRefused(slow_message(found.slow_seconds, wait), code="slow", retry_after=wait)


def withdraw_if_locked(reply: Comment) -> None:
    """After `reply` is stored, read the rules above it again: when its branch is
    locked now (a lock that landed after `check_reply`), withdraw it (deleted, its text
    and form key emptied, its counters moved back) and refuse it (BranchRefused)."""
    if not effect(rules_above(discussion_id=reply.discussion_id, full_slug=reply.full_slug), reply.full_slug).locked:
        return
    store = get_store()
    # Without its form key a resend of the same form after an unlock is a new reply.
    counters.change(reply, store=store, status=DELETED, fields={"text": "", "html": "", "form_key": None})
    settle(discussion_id=reply.discussion_id, slugs=[reply.slug])
    raise BranchRefused(gettext(LOCKED), code="locked")


def slow_message(seconds: int, wait: int) -> str:
    return ngettext("This thread is in slow mode: one comment each per %(every)d second.",
                    "This thread is in slow mode: one comment each per %(every)d seconds.", seconds) \
        % {"every": seconds} + " " + ngettext("You can post again in %(wait)d second; your text is kept below.",
                                              "You can post again in %(wait)d seconds; your text is kept below.",
                                              wait) % {"wait": wait}


def take_turn(*, rule: Rule, who: str, now: datetime | None = None) -> int:
    """Take `who`'s turn in a slow branch: 0 when it was theirs (the next one comes
    `slow_seconds` later), else how many seconds until it is."""
    now = now or datetime.now(UTC)
    turns = get_db()[TURNS]
    key = f"{rule.comment_id or rule.full_slug}:{who}"
    try:
        turns.update_one({"_id": key, "until": {"$lte": now}},
                         {"$set": {"until": now + timedelta(seconds=rule.slow_seconds)}}, upsert=True)
    except DuplicateKeyError:  # their turn has not come (or another post of theirs took it now)
        doc = turns.find_one({"_id": key}) or {}
        until = doc.get("until")
        if until is None:
            return 1
        until = until if until.tzinfo else until.replace(tzinfo=UTC)
        return max(1, int((until - now).total_seconds() + 0.999))
    return 0
