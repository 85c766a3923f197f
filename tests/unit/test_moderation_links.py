"""The signed links of the editors' queue mail (comments/notifications/moderation_links.py):
what a token says, that a changed one says nothing, and that it works for its
lifetime and not a second more. Pure: signing only."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta

import pytest
from bson import ObjectId
from django.core import signing

from comments.notifications import moderation_links
from comments.notifications.moderation_links import ACTIONS, EXPIRED, TAMPERED, BadLink, read_token

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
WEEK = 7 * 24 * 3600
COMMENT = ObjectId()


def tokens(editor_id: int | str = 7, comment_id: ObjectId = COMMENT) -> dict[str, str]:
    return moderation_links.make_tokens(editor_id=editor_id, comment_id=comment_id, now=T0)


def refused(token: str, *, now: datetime = T0) -> str:
    with pytest.raises(BadLink) as caught:
        read_token(token, max_age=WEEK, now=now)
    return caught.value.code


def test_each_action_has_a_link_naming_the_editor_the_comment_and_the_action():
    made = tokens()
    assert sorted(made) == sorted(ACTIONS)
    for action, token in made.items():
        link = read_token(token, max_age=WEEK, now=T0)
        assert (link.editor_id, link.comment_id, link.action, link.issued) == (7, COMMENT, action, T0)


def test_the_links_of_one_comment_in_one_mail_are_used_together_and_no_other_mails():
    """Using Approve uses Spam and Delete of the same mail; another mail's links are their own."""
    first = {read_token(t, max_age=WEEK, now=T0).use_key for t in tokens().values()}
    second = {read_token(t, max_age=WEEK, now=T0).use_key for t in tokens().values()}
    other_editor = {read_token(t, max_age=WEEK, now=T0).use_key for t in tokens(editor_id=8).values()}
    assert len(first) == len(second) == len(other_editor) == 1
    assert len(first | second | other_editor) == 3


def test_a_link_works_for_its_lifetime_and_not_a_second_longer():
    token = tokens()["spam"]
    assert read_token(token, max_age=WEEK, now=T0 + timedelta(seconds=WEEK)).action == "spam"
    assert refused(token, now=T0 + timedelta(seconds=WEEK + 1)) == EXPIRED


def _resigned(token: str, change) -> str:
    """The token's value changed by `change`, signed with another key (a forger's)."""
    payload = token.split(":")[0]
    value = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    change(value)
    return signing.Signer(key="not the site's key", salt=moderation_links.SALT).sign_object(value)


@pytest.mark.parametrize("change", [
    lambda token: token[:-1] + ("A" if token[-1] != "A" else "B"),  # the signature
    lambda token: token[:20],  # cut short by a mail program
    lambda token: "x" + token,
    lambda token: token.replace(token.split(":")[0], token.split(":")[0][::-1]),  # the value
    lambda token: _resigned(token, lambda value: value.update(a="approve")),  # spam made approve
    lambda token: _resigned(token, lambda value: value.update(u=1)),  # another editor's
    lambda token: "",
], ids=["signature", "cut", "prefixed", "value", "action-forged", "editor-forged", "empty"])
def test_a_changed_token_says_nothing(change):
    assert refused(change(tokens()["spam"])) == TAMPERED


def test_a_token_signed_for_another_purpose_is_refused():
    """The same value signed under the site's key for another purpose (a subscription link's salt)."""
    value = {"u": 7, "c": str(COMMENT), "a": "approve", "m": "m", "t": int(T0.timestamp())}
    assert refused(signing.Signer(salt="comments.subscriptions.manage").sign_object(value)) == TAMPERED


@pytest.mark.parametrize("value", [
    "approve", {"u": 7, "c": "not an id", "a": "approve", "m": "m", "t": 1},
    {"u": 7, "c": str(COMMENT), "a": "ban", "m": "m", "t": 1},
    {"u": True, "c": str(COMMENT), "a": "approve", "m": "m", "t": 1},
    {"u": 7, "c": str(COMMENT), "a": "approve", "m": "m", "t": "1"},
])
def test_a_well_signed_value_of_the_wrong_shape_is_refused(value):
    assert refused(signing.Signer(salt=moderation_links.SALT).sign_object(value)) == TAMPERED
