"""Rules on one branch of a discussion, over HTTP: an editor locks a comment's branch or
puts it in slow mode from the moderation actions; a reply below the lock is refused with
its text kept while the rest of the discussion takes replies; slow mode refuses a second
reply within its seconds (429 and Retry-After in the API); both are undone by the
opposite action, kept in the moderation history and shown in the API."""

from __future__ import annotations

import html
import json

import pytest
from django.test import Client

from comments.moderation import branches
from comments.moderation.forms import BAD_SECONDS
from comments.moderation.views import BRANCH_DONE
from comments.records import CommentAuthor
from comments.stores import get_store
from tests.page_reading import page, permalink_url, submit

pytestmark = pytest.mark.usefixtures("each_store")

ACTIONS = "/dashboard/moderation/actions/"
CLOSED_HERE = "Replies are closed in this thread"


@pytest.fixture
def editor(make_user):
    client = Client()
    client.force_login(make_user("bruno", role="editor"))
    return client


def act(editor: Client, one: str, **fields) -> str:
    """An editor's branch action from the queue; the page it leads back to, as text."""
    response = editor.post(ACTIONS, {"one": one, "next": "/dashboard/moderation/?tab=recent", **fields})
    assert response.status_code == 303
    return html.unescape(editor.get(response["Location"]).content.decode())


def history(mongo_db, comment) -> list[tuple[str, int | None]]:
    return [(doc["action"], doc.get("seconds")) for doc in
            mongo_db.comment_changes.find({"changes.id": comment.id}).sort("at", 1)]


def test_a_lock_refuses_a_reply_deep_in_the_branch_and_nowhere_else(client, editor, make_post, make_comment,
                                                                     mongo_db):
    """Locked at the middle comment: a reply two levels below is refused (403, the text
    kept, the reason given); the comment above the lock and another thread still take
    replies; the branch says replies are closed and hides nothing; unlocking opens it."""
    post = make_post()
    top = make_comment(post, text="The top")
    middle = make_comment(post, parent_slug=top.slug, text="The middle")
    deep = make_comment(post, parent_slug=middle.slug, text="The deep one")
    elsewhere = make_comment(post, text="Another thread")
    assert BRANCH_DONE["lock"] in act(editor, f"lock:{middle.id}")

    refused = submit(client, permalink_url(post, deep.slug), text="Too late for this")
    assert refused.status_code == 403
    shown = page(refused)
    assert shown.textareas["text"] == "Too late for this"
    assert any(branches.LOCKED in error for error in shown.text_of("form-errors"))
    assert "Too late for this" not in [c.text for c in get_store().find_latest(discussion_id=post.id, limit=20)]
    for open_one in (top, elsewhere):
        assert submit(client, permalink_url(post, open_one.slug), text=f"Fine under {open_one.slug}").status_code == 303

    drawn = client.get(permalink_url(post, middle.slug)).content.decode()
    assert CLOSED_HERE in drawn and "The deep one" in drawn and "The middle" in drawn
    assert history(mongo_db, middle) == [("lock", None)]

    act(editor, f"unlock:{middle.id}")
    assert submit(client, permalink_url(post, deep.slug), text="Open again").status_code == 303
    assert CLOSED_HERE not in client.get(permalink_url(post, middle.slug)).content.decode()
    assert history(mongo_db, middle) == [("lock", None), ("unlock", None)]


@pytest.mark.stores("documents")
def test_slow_mode_refuses_a_second_reply_within_its_seconds_with_retry_after_in_the_api(
    editor, make_post, make_comment, make_verified_reader, mongo_db,
):
    """Slowed to 30 seconds at the top: a member's second reply anywhere below within
    them is 429 `slow` with Retry-After; the API shows `slow_seconds` (and `locked`);
    ending slow mode lets the next one through; a wait that is not 1 to 86400 seconds
    is refused and sets nothing."""
    post = make_post()
    top = make_comment(post)
    below = make_comment(post, parent_slug=top.slug)
    member = Client()
    member.force_login(make_verified_reader("mia@example.com", name="Mia Reader", password=None))
    comments_url = f"/api/v1/posts/{post.slug}/comments/"

    def reply(parent, text):
        return member.post(comments_url, json.dumps({"text": text, "parent": parent.slug}),
                           content_type="application/json")

    assert str(BAD_SECONDS) in act(editor, f"slow:{top.id}", seconds="0")
    assert str(BAD_SECONDS) in act(editor, f"slow:{top.id}", seconds="{$gt: 1}")
    assert mongo_db.comment_branch_rules.count_documents({}) == 0
    act(editor, f"slow:{top.id}", seconds="30")
    shown = json.loads(member.get(f"{comments_url}{below.slug}/").content)
    assert (shown["comment"]["slow_seconds"], shown["comment"]["locked"]) == (30, False)

    assert reply(top, "First within the slow thread").status_code == 201
    second = reply(below, "Second, too soon")
    assert second.status_code == 429
    assert json.loads(second.content)["code"] == "slow" and 1 <= int(second["Retry-After"]) <= 30
    assert reply(make_comment(post), "Elsewhere is not slowed").status_code == 201

    act(editor, f"unslow:{top.id}")
    assert reply(below, "Slow mode is over").status_code == 201
    assert json.loads(member.get(f"{comments_url}{below.slug}/").content)["comment"]["slow_seconds"] == 0
    assert history(mongo_db, top) == [("slow", 30), ("unslow", None)]


@pytest.mark.stores("documents")
def test_a_lock_is_in_the_api_and_on_the_discussion_page(client, editor, make_post, make_comment):
    """`locked` on the locked comment and below it, not above; the page says so where Reply was."""
    post = make_post()
    top = make_comment(post)
    middle = make_comment(post, parent_slug=top.slug, author=CommentAuthor(id=None, name="Ola"))
    act(editor, f"lock:{middle.id}")
    listed = json.loads(client.get(f"/api/v1/posts/{post.slug}/comments/?view=threaded").content)["comments"]
    assert [(c["slug"], c["locked"]) for c in listed] == [(top.slug, False), (middle.slug, True)]
    assert client.get(f"/posts/{post.slug}/").content.decode().count(CLOSED_HERE) == 1


@pytest.mark.stores("documents")
def test_an_editor_locks_a_branch_from_the_comments_own_page(client, editor, make_post, make_comment):
    """The comment's page offers an editor (only) the branch actions; they act and come back there."""
    post = make_post()
    comment = make_comment(post)
    assert "Lock thread" not in client.get(permalink_url(post, comment.slug)).content.decode()
    shown = page(editor.get(permalink_url(post, comment.slug)))
    assert shown.inputs["next"] == permalink_url(post, comment.slug)
    answer = editor.post(ACTIONS, {"one": f"lock:{comment.id}", "next": shown.inputs["next"]})
    assert answer.status_code == 303 and answer["Location"] == permalink_url(post, comment.slug)
    back = html.unescape(editor.get(answer["Location"]).content.decode())
    assert BRANCH_DONE["lock"] in back and "Unlock thread" in back and CLOSED_HERE in back
