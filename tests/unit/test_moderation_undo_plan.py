"""The pure part of undoing a queue action (comments/moderation/undo.py): its signed
token, its ten minutes, and which comments it puts back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from bson import ObjectId

from comments.moderation import branches, changes, undo
from comments.records import APPROVED, DELETED, PENDING, SPAM

AT = datetime(2026, 12, 6, 9, 0, tzinfo=UTC)


def test_a_token_names_its_record_for_its_editor():
    """Read back by the same editor, a token names the record it was made for."""
    undo_id = ObjectId()
    assert undo.read_token(undo.make_token(undo_id=undo_id, editor_id=7), editor_id=7) == undo_id


def test_another_editors_token_is_refused():
    """A token pressed by another editor is refused as not theirs."""
    token = undo.make_token(undo_id=ObjectId(), editor_id=7)
    with pytest.raises(undo.UndoRefused, match=undo.NOT_YOURS) as refused:
        undo.read_token(token, editor_id=8)
    assert refused.value.status == 403


@pytest.mark.parametrize("token", ["", "forged", "eyJ1IjoiMSJ9:abc", "x" * 300])
def test_a_broken_or_changed_token_is_refused(token):
    """Empty, forged or cut tokens are refused as broken (400)."""
    with pytest.raises(undo.UndoRefused, match=undo.BROKEN) as refused:
        undo.read_token(token, editor_id=7)
    assert refused.value.status == 400


def test_a_changed_token_is_refused():
    """One character changed in a good token breaks its signature."""
    token = undo.make_token(undo_id=ObjectId(), editor_id=7)
    changed = token[:-1] + ("A" if token[-1] != "A" else "B")
    with pytest.raises(undo.UndoRefused, match=undo.BROKEN):
        undo.read_token(changed, editor_id=7)


def test_an_action_can_be_undone_for_ten_minutes():
    """Up to ten minutes after the action inclusive; not a moment later."""
    assert not undo.expired(AT, now=AT)
    assert not undo.expired(AT, now=AT + timedelta(minutes=10))
    assert undo.expired(AT, now=AT + timedelta(minutes=10, microseconds=1))


def record(status: str, *was: tuple[ObjectId, str]) -> dict:
    return {"status": status, "changes": [{"id": comment_id, "was": before} for comment_id, before in was]}


def test_the_plan_puts_each_comment_back_to_its_own_status():
    """A bulk spam of an approved, a pending and a deleted comment: each goes back to
    what it was."""
    a, b, c = ObjectId(), ObjectId(), ObjectId()
    plan = undo.plan_of([record(SPAM, (a, APPROVED), (b, PENDING), (c, DELETED))],
                        current={a: SPAM, b: SPAM, c: SPAM}, decided=set())
    assert plan == [{"id": a, "was": APPROVED, "status": SPAM}, {"id": b, "was": PENDING, "status": SPAM},
                    {"id": c, "was": DELETED, "status": SPAM}]


def test_the_plan_leaves_out_comments_changed_or_decided_on_since():
    """A comment no longer as the action left it, one a later action decided on (even
    back to the same status), and one gone are left as they are."""
    changed, decided, gone, kept = ObjectId(), ObjectId(), ObjectId(), ObjectId()
    records = [record(APPROVED, (changed, PENDING), (decided, PENDING), (gone, PENDING), (kept, SPAM))]
    plan = undo.plan_of(records, current={changed: DELETED, decided: APPROVED, kept: APPROVED},
                        decided={decided})
    assert plan == [{"id": kept, "was": SPAM, "status": APPROVED}]


def test_the_plan_includes_flags_dismissed_by_an_approval():
    """Approving held comments and dismissing an approved one's flags: the dismissed one
    stays approved (its flags come back), counted once."""
    held, shown = ObjectId(), ObjectId()
    records = [record(APPROVED, (held, PENDING)), record(APPROVED, (shown, APPROVED), (held, APPROVED))]
    plan = undo.plan_of(records, current={held: APPROVED, shown: APPROVED}, decided=set())
    assert plan == [{"id": held, "was": PENDING, "status": APPROVED},
                    {"id": shown, "was": APPROVED, "status": APPROVED}]


def test_branch_rules_are_not_decisions_on_a_comment():
    """Locking or slowing a branch after an approval does not keep it from being undone."""
    assert set(branches.ACTIONS) <= set(changes.NOT_DECISIONS)
