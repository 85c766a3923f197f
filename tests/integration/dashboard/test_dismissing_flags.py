"""Approving a flagged comment that is approved already dismisses its flags, in the
dashboard's queue and through the API, in every store: its flag count is back to
none, the flagged tab and its count leave it, the moderation record says whose flags
were dismissed by whom, and the message counts it."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from api import tokens
from comments.moderation import flags
from comments.moderation.changes import DISMISS_FLAGS
from comments.posting import services
from comments.records import APPROVED, PENDING
from comments.stores import get_store
from comments.moderation import views
from tests.integration.dashboard.test_dashboard_moderation import (  # noqa: F401 (a fixture)
    QUEUE, ROSA, act, counts, editor_client, rows, said,
)
from tests.page_reading import page

pytestmark = pytest.mark.usefixtures("each_store")


def flag(comment, *flaggers: str) -> None:
    for flagger in flaggers:
        services.flag_comment(comment=comment, flagger=flagger, reason="abuse", note="Rude")


@pytest.fixture
def flagged(make_post, make_comment, settings):
    """An approved comment flagged twice, one held by its third flag, one unflagged."""
    settings.COMMENTS_FLAGS_TO_HOLD = 3
    post = make_post()
    shown = make_comment(post, author=ROSA, text="Flagged twice")
    held = make_comment(post, author=ROSA, text="Flagged thrice")
    make_comment(post, author=ROSA, text="Never flagged")
    flag(shown, "ip:198.51.100.1", "ip:198.51.100.2")
    flag(held, "ip:198.51.100.1", "ip:198.51.100.2", "ip:198.51.100.3")
    assert get_store().find_by_id(held.id).status == PENDING
    return post, shown, held


def now(comment):
    return get_store().find_by_id(comment.id)


def test_approving_an_approved_flagged_comment_dismisses_its_flags(editor_client, flagged, mongo_db):
    """The queue's Approve on it: "Dismissed the flags on 1 comment.", no flags left,
    off the flagged tab, still approved and counted, and the dismissal recorded."""
    post, shown, held = flagged
    assert rows(editor_client.get(QUEUE, {"tab": "flagged"})) == ["Flagged thrice", "Flagged twice"]
    assert counts(editor_client.get(QUEUE))["flagged"] == 2
    response = act(editor_client, action="approve", ids=[str(shown.id)])
    assert said(page(editor_client.get(response["Location"]))) == [
        views.FLAGS_DISMISSED.format(count=1)
    ]
    assert now(shown).status == APPROVED and now(shown).flag_count == 0
    assert flags.count_flags(comment_id=shown.id) == 0 and flags.flag_count(comment_id=shown.id) == 0
    assert rows(editor_client.get(QUEUE, {"tab": "flagged"})) == ["Flagged thrice"]
    assert counts(editor_client.get(QUEUE))["flagged"] == 1
    record = mongo_db.comment_changes.find_one({"action": DISMISS_FLAGS})
    assert record["editor"] == "bruno" and record["done"] is True
    assert [(c["id"], c["was"], c["flags"]) for c in record["changes"]] == [(shown.id, APPROVED, 2)]
    assert services.flag_comment(comment=now(shown), flagger="ip:198.51.100.1", reason="spam")
    assert now(shown).flag_count == 1  # a reader's flag counts again, from none


def test_approving_flagged_comments_of_both_kinds_says_each(editor_client, flagged):
    """A held one is approved, an approved one has its flags dismissed: both are said,
    and the flagged tab is empty."""
    post, shown, held = flagged
    response = act(editor_client, action="approve", ids=[str(shown.id), str(held.id)])
    assert said(page(editor_client.get(response["Location"]))) == [
        views.MODERATED["approve"].format(count=1), views.FLAGS_DISMISSED.format(count=1),
    ]
    assert now(held).status == APPROVED and now(held).flag_count == now(shown).flag_count == 0
    assert counts(editor_client.get(QUEUE))["flagged"] == 0
    assert rows(editor_client.get(QUEUE, {"tab": "flagged"})) == []


def test_the_api_approving_an_approved_flagged_comment_dismisses_its_flags(make_user, flagged):
    """POST …/approve on it: `changed: 1`, `dismissed: 1`, and the flagged tab is left
    with the held comment only."""
    post, shown, held = flagged
    editor = make_user("eve", role="editor")
    _, secret = tokens.create_token(user_id=editor.pk, name="bot", scope=tokens.READ_WRITE, created_by="eve")
    headers = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    response = Client().post(f"/api/v1/moderation/comments/{shown.id}/approve", **headers)
    assert response.status_code == 200
    assert json.loads(response.content) == {"changed": 1, "dismissed": 1, "done": True}
    assert now(shown).flag_count == 0 and flags.count_flags(comment_id=shown.id) == 0
    queue = json.loads(Client().get("/api/v1/moderation/queue?tab=flagged", **headers).content)
    assert queue["total"] == 1 and [e["id"] for e in queue["entries"]] == [str(held.id)]
    response = Client().post(f"/api/v1/moderation/comments/{held.id}/approve", **headers)
    assert json.loads(response.content) == {"changed": 1, "dismissed": 0, "done": True}
