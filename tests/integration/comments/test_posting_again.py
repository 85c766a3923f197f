"""The same text posted again after its comment was deleted is a new comment, stored
at once: the claim the first post left on the text (comments/posting/recent_texts.py) does
not make the second wait for a comment that is gone, through the form and the API."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone

import pytest
from bson import ObjectId
from django.test import Client

from comments.moderation import queue as moderation
from comments.posting import recent_texts, services
from comments.records import CommentAuthor, Viewer
from comments.stores import get_store
from tests.page_reading import page, permalink_url, post_url, submit
from tests.threads import at_once

pytestmark = pytest.mark.usefixtures("each_store")

SAM = CommentAuthor(id=None, name="Sam", email="sam@example.net")
BUDGET_MS = 1500
# Well within the request's budget: waiting for the gone comment took all of it (503).
AT_ONCE_SECONDS = 1.0


@pytest.fixture(autouse=True)
def _duplicates_checked(settings):
    settings.COMMENTS_DUPLICATE_WINDOW = 600
    settings.MONGODB_REQUEST_BUDGET_MS = BUDGET_MS


def _timed(send):
    started = time.monotonic()
    response = send()
    return response, time.monotonic() - started


def test_a_deleted_comments_text_sent_again_through_the_form_is_stored_at_once(client, make_post):
    post = make_post()
    first = submit(client, post_url(post), text="Said twice")
    assert first.status_code == 303
    slug = next(c["slug"] for c in page(client.get(first["Location"])).comments if c["text"] == "Said twice")
    assert client.post(f"{permalink_url(post, slug)}delete/", {"confirm": "yes"}).status_code == 303

    again, seconds = _timed(lambda: submit(client, post_url(post), text="Said twice"))
    assert again.status_code == 303, again.content.decode()[-500:]
    assert seconds < AT_ONCE_SECONDS
    shown = page(client.get(again["Location"])).comments
    assert [c["text"] for c in shown if c["text"] == "Said twice"] == ["Said twice"]


def test_a_text_a_moderator_removed_sent_again_is_stored_at_once(client, make_post):
    post = make_post()
    assert submit(client, post_url(post), text="Marked as spam").status_code == 303
    (stored,) = get_store().iter_documents(discussion_id=post.id)
    moderation.moderate(action="spam", comment_ids=[stored["_id"]])

    again, seconds = _timed(lambda: submit(client, post_url(post), text="Marked as spam"))
    assert again.status_code == 303 and seconds < AT_ONCE_SECONDS
    assert len(list(get_store().iter_documents(discussion_id=post.id))) == 2


def test_a_deleted_comments_text_sent_again_through_the_api_is_stored_at_once(make_post, make_user):
    post = make_post()
    client = Client()
    client.force_login(make_user("mia", role="reader"))
    url = f"/api/v1/posts/{post.slug}/comments/"

    def send():
        return client.post(url, data=json.dumps({"text": "Said twice"}), content_type="application/json")

    first = send()
    assert first.status_code == 201
    slug = json.loads(first.content)["comment"]["slug"]
    assert client.delete(f"{url}{slug}/").status_code == 204

    again, seconds = _timed(send)
    assert again.status_code == 201, again.content
    assert seconds < AT_ONCE_SECONDS
    assert json.loads(again.content)["comment"]["slug"] != slug


def test_the_same_text_from_many_forms_at_once_after_its_deletion_is_stored_once(make_post):
    """Of the senders taking over the deleted comment's claim at once, one stores; the
    others are given its comment."""
    post = make_post()
    first = services.post_comment(post=post, text="Again and again", author=SAM, ip="192.0.2.4").comment
    services.delete_own_comment(comment=first, viewer=Viewer(own=frozenset({first.id})))
    outcomes = at_once([
        lambda n=n: services.post_comment(post=post, text="Again and again", author=SAM, ip="192.0.2.4",
                                          form_key=f"form-{n}")
        for n in range(6)
    ])
    assert not [o for o in outcomes if isinstance(o, BaseException)], outcomes
    live = [d for d in get_store().iter_documents(discussion_id=post.id) if d["text"] == "Again and again"]
    assert len(live) == 1
    assert {o.comment.id for o in outcomes} == {live[0]["_id"]}


def test_a_claim_left_by_a_poster_that_never_stored_is_taken_over_at_once(make_post, mongo_db):
    """A worker killed between claiming a text and storing it leaves its claim: once that
    poster's time to store is over, the next poster takes it over without waiting."""
    post = make_post()
    key = recent_texts.key(discussion_id=post.id, parent_id=None, author=SAM, ip="192.0.2.4", text="Orphaned")
    long_ago = datetime.now(timezone.utc) - timedelta(seconds=30)
    mongo_db.comment_recent_texts.insert_one({"_id": key, "expires": long_ago + timedelta(minutes=10),
                                              "comment": ObjectId(), "claimed": long_ago})
    posted, seconds = _timed(lambda: services.post_comment(post=post, text="Orphaned", author=SAM, ip="192.0.2.4"))
    assert not posted.duplicate and seconds < AT_ONCE_SECONDS
    assert mongo_db.comment_recent_texts.find_one({"_id": key})["comment"] == posted.comment.id
