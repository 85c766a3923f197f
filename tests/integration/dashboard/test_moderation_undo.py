"""Undoing a queue action from its confirmation message (comments/moderation/undo.py)
through the test client: approve, spam and delete (one comment or many) come back
exactly as they were, counters, summaries and readers' flags included, mail an undone
approval queued and not yet sent is dropped, and an undo that must not be (twice,
too late, another editor's, over a later decision) is refused in the site's layout.
The same code runs for every store: the documents store's run says it."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.test import Client

from cms import posts
from comments.moderation import flags, undo
from comments.notifications import outbox, subscriptions
from comments.posting import services
from comments.records import APPROVED, DELETED, PENDING, SPAM
from comments.stores import counters, get_store
from comments.moderation import undo_views
from tests.integration.dashboard.test_dashboard_moderation import (  # noqa: F401 (a fixture)
    QUEUE, ROSA, SAM, act, editor_client, status_of,
)
from tests.page_reading import page

pytestmark = [pytest.mark.usefixtures("each_store"), pytest.mark.stores("documents")]

UNDO = "/dashboard/moderation/actions/undo/"
TOKEN = re.compile(r'name="token" value="([^"]+)"')


def undo_token(client, response) -> str:
    """The token of the Undo button in the message the action's redirect shows."""
    assert response.status_code == 303
    found = TOKEN.findall(client.get(response["Location"]).content.decode())
    assert len(found) == 1, "one Undo button"
    return found[0]


def press_undo(client, token: str):
    return client.post(UNDO, {"token": token, "next": QUEUE})


def state(post) -> tuple:
    """Everything an action moves that an undo must put back: the post's summary, the
    discussion's counters, each comment's status, placeholder and flag count, and the
    flags themselves."""
    summary = posts.get_by_id(post.id)
    comments = sorted(get_store().iter_documents(discussion_id=post.id), key=lambda d: d["_id"])
    ids = [doc["_id"] for doc in comments]
    stored = flags.find_flags(comment_ids=ids)
    return (summary.comment_count, [c.slug for c in summary.latest_comments],
            counters.totals(store=get_store(), discussion_id=post.id),
            [(c.id, c.status, c.placeholder, c.flag_count) for c in get_store().find_by_ids(ids=ids)],
            {k: sorted(f.flagger for f in v) for k, v in stored.items()},
            flags.flag_counts(comment_ids=ids))


def check_clean() -> None:
    """`repair_summaries --check` finds no drift (it raises on any)."""
    call_command("repair_summaries", "--check")


@pytest.fixture
def held(make_post, make_comment, settings):
    """A post whose reply by Sam waits in the queue, held by two readers' flags, under
    Rosa's comment whose replies an address follows since, and flagged once itself."""
    settings.COMMENTS_FLAGS_TO_HOLD = 2
    post = make_post()
    parent = make_comment(post, author=ROSA, text="Parent")
    services.flag_comment(comment=parent, flagger="ip:198.51.100.3", reason="spam", note="")
    reply = make_comment(post, author=SAM, text="Reply", parent_slug=parent.slug)
    for flagger in ("ip:198.51.100.1", "ip:198.51.100.2"):
        services.flag_comment(comment=reply, flagger=flagger, reason="abuse", note="Rude")
    assert status_of(reply) == PENDING
    subscriptions.subscribe(kind=subscriptions.REPLIES, target=parent.id, discussion_id=post.id,
                            email="rosa@example.org", owner=True)
    outbox_items = outbox.count(status=outbox.DUE)
    return post, parent, reply, outbox_items


def test_approve_then_undo_puts_everything_back_and_drops_its_mail(editor_client, held, mongo_db):
    """Approve a held reply (and the flagged comment above it: its flag dismissed), then
    press Undo: pending again, both with their flags, the counters and the post's
    summary as before, the reply mail the approval queued dropped, and the undo in the
    moderation history."""
    post, parent, reply, due_before = held
    before = state(post)
    both = [str(reply.id), str(parent.id)]
    token = undo_token(editor_client, act(editor_client, action="approve", ids=both))
    assert status_of(reply) == APPROVED and state(post) != before
    assert outbox.count(status=outbox.DUE) == due_before + 1, "the approval queued reply mail"
    response = press_undo(editor_client, token)
    assert response.status_code == 303 and response["Location"] == QUEUE
    assert page(editor_client.get(QUEUE)).text_of("message") == [undo_views.UNDONE.format(count=2)]
    assert state(post) == before
    assert outbox.count(status=outbox.DUE) == due_before and outbox.count(status=outbox.DROPPED) == 1
    history = mongo_db.comment_changes.find({"action": "undo"})
    undone = {doc["changes"][0]["id"]: (doc["editor"], doc["status"]) for doc in history}
    assert undone == {reply.id: ("bruno", PENDING), parent.id: ("bruno", APPROVED)}
    check_clean()


def test_mail_already_sent_stays_sent(editor_client, make_post, make_comment, settings):
    """Two held replies under two followed comments approved at once; one reply's mail
    goes out before the undo: it stays sent, the other's is dropped."""
    post = make_post()
    parents = [make_comment(post, author=ROSA, text=f"Parent {n}") for n in range(2)]
    settings.COMMENTS_MODERATION = ["all"]
    replies = []
    for n, parent in enumerate(parents):
        subscriptions.subscribe(kind=subscriptions.REPLIES, target=parent.id, discussion_id=post.id,
                                email=f"rosa{n}@example.org", owner=True)
        replies.append(make_comment(post, author=SAM, text=f"Reply {n}", parent_slug=parent.slug))
    token = undo_token(editor_client, act(editor_client, action="approve", ids=[str(r.id) for r in replies]))
    claimed = outbox.claim_next(now=datetime.now(UTC) + timedelta(days=1))
    assert claimed is not None and outbox.mark_sent(claimed) == 1
    assert press_undo(editor_client, token).status_code == 303
    assert [status_of(r) for r in replies] == [PENDING, PENDING]
    assert [outbox.count(status=s) for s in (outbox.SENT, outbox.DROPPED, outbox.DUE)] == [1, 1, 0]
    check_clean()


def test_bulk_spam_then_undo_gives_each_comment_its_own_status_back(editor_client, make_post, make_comment,
                                                                    settings):
    """Spam an approved comment and a pending one at once; Undo: approved and pending
    again, counters and summary as before."""
    post = make_post()
    shown = make_comment(post, author=ROSA, text="Shown")
    settings.COMMENTS_MODERATION = ["all"]
    waiting = make_comment(post, author=SAM, text="Waiting")
    before = state(post)
    token = undo_token(editor_client, act(editor_client, action="spam", ids=[str(shown.id), str(waiting.id)]))
    assert [status_of(shown), status_of(waiting)] == [SPAM, SPAM]
    assert press_undo(editor_client, token).status_code == 303
    assert [status_of(shown), status_of(waiting)] == [APPROVED, PENDING]
    assert state(post) == before
    check_clean()


def test_delete_then_undo_takes_the_placeholder_away(editor_client, make_post, make_comment):
    """Delete a comment with a reply (it stays as "[deleted]"); Undo: shown again, no
    placeholder, the count as before."""
    post = make_post()
    parent = make_comment(post, author=ROSA, text="Parent")
    make_comment(post, author=SAM, text="Reply", parent_slug=parent.slug)
    before = state(post)
    token = undo_token(editor_client, act(editor_client, action="delete", ids=[str(parent.id)]))
    assert get_store().find_by_id(parent.id).placeholder
    assert press_undo(editor_client, token).status_code == 303
    assert state(post) == before and status_of(parent) == APPROVED
    check_clean()


def refusal(response) -> str:
    [said] = page(response).text_of("undo-refused")
    return said


def test_an_undo_works_once_for_its_editor_and_ten_minutes(editor_client, make_user, make_post, make_comment,
                                                          mongo_db):
    """Another editor's press: 403; too late: 410; twice: 409. Each says why in the
    site's layout and changes nothing."""
    post = make_post()
    comment = make_comment(post, author=ROSA, text="Spammy")
    token = undo_token(editor_client, act(editor_client, action="spam", ids=[str(comment.id)]))
    other = Client()
    other.force_login(make_user("edith", role="editor"))
    response = press_undo(other, token)
    assert response.status_code == 403 and refusal(response) == undo.NOT_YOURS
    assert b"Slugline" in response.content, "in the site's layout"
    assert press_undo(editor_client, "forged").status_code == 400
    mongo_db.comment_undos.update_many({}, {"$set": {"at": datetime.now(UTC) - timedelta(minutes=11)}})
    response = press_undo(editor_client, token)
    assert response.status_code == 410 and refusal(response) == undo.EXPIRED
    assert status_of(comment) == SPAM
    mongo_db.comment_undos.update_many({}, {"$set": {"at": datetime.now(UTC)}})
    assert press_undo(editor_client, token).status_code == 303 and status_of(comment) == APPROVED
    response = press_undo(editor_client, token)
    assert response.status_code == 409 and refusal(response) == undo.ALREADY
    assert status_of(comment) == APPROVED


def test_an_undo_leaves_a_later_decision_alone(editor_client, make_user, make_post, make_comment, settings):
    """Two held comments approved at once; another editor spams one, then approves it
    again: the undo puts back only the other, and says one was left as it is. Once
    both are decided on since, nothing is undone."""
    settings.COMMENTS_MODERATION = ["all"]
    post = make_post()
    first, second = (make_comment(post, author=SAM, text=t) for t in ("First", "Second"))
    both = [str(first.id), str(second.id)]
    token = undo_token(editor_client, act(editor_client, action="approve", ids=both))
    other = Client()
    other.force_login(make_user("edith", role="editor"))
    act(other, action="spam", ids=[str(second.id)])
    act(other, action="approve", ids=[str(second.id)])
    assert press_undo(editor_client, token).status_code == 303
    assert page(editor_client.get(QUEUE)).text_of("message") == [
        undo_views.UNDONE.format(count=1), undo_views.SKIPPED.format(count=1)]
    assert [status_of(first), status_of(second)] == [PENDING, APPROVED]
    token = undo_token(editor_client, act(editor_client, action="delete", ids=[str(second.id)]))
    act(other, action="approve", ids=[str(second.id)])
    response = press_undo(editor_client, token)
    assert response.status_code == 409 and refusal(response) == undo.CHANGED
    assert status_of(second) == APPROVED
    check_clean()


def test_an_undo_cut_short_is_finished_by_pressing_again(editor_client, held, monkeypatch):
    """The undo stops after the status is back but before the flags are (a worker
    killed): pressing Undo again finishes it, once."""
    post, parent, reply, _due = held
    before = state(post)
    token = undo_token(editor_client, act(editor_client, action="approve", ids=[str(reply.id)]))

    def killed(*args, **kwargs):
        raise SystemExit("killed")

    monkeypatch.setattr(flags, "put_back", killed)
    with pytest.raises(SystemExit):
        press_undo(editor_client, token)
    assert status_of(reply) == PENDING and state(post) != before
    monkeypatch.undo()
    assert press_undo(editor_client, token).status_code == 303
    assert state(post) == before
    assert press_undo(editor_client, token).status_code == 409
    check_clean()
