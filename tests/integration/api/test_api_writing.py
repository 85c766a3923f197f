"""The API's writes, over HTTP through Django's test client, in every store: the
forms' checks and messages, the same services, ownership, limits and refusals."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from api.auth import CSRF_FAILED
from api.v1 import SIGN_IN
from cms import posts
from comments.posting import services
from comments.posting.forms import BAD_PARENT, BAD_REASON, EMPTY_TEXT
from comments.records import CommentAuthor
from comments.stores import get_store

pytestmark = pytest.mark.usefixtures("each_store")


def send(client: Client, method: str, url: str, body) -> tuple:
    response = getattr(client, method)(url, data=json.dumps(body), content_type="application/json")
    return response, (json.loads(response.content) if response.content else None)


@pytest.fixture
def member(make_user):
    user = make_user("mia", role="reader")
    client = Client()
    client.force_login(user)
    return user, client


def test_a_member_posts_a_comment_and_a_reply(make_post, member):
    post = make_post()
    user, client = member
    url = f"/api/v1/posts/{post.slug}/comments/"
    response, data = send(client, "post", url, {"text": "Hello *there*"})
    assert response.status_code == 201
    assert data["outcome"] == "posted" and data["comment"]["html"] == "<p>Hello <em>there</em></p>"
    assert data["comment"]["author"] == "mia" and data["comment"]["can_change"] is True
    stored = get_store().find_by_slug(discussion_id=post.id, slug=data["comment"]["slug"])
    assert stored.author.id == user.pk
    response, reply = send(client, "post", url, {"text": "Me again", "parent": stored.slug})
    assert response.status_code == 201 and reply["comment"]["parent"] == stored.slug
    response, again = send(client, "post", url, {"text": "Me again", "parent": stored.slug})
    assert response.status_code == 200 and again["outcome"] == "posted_before"
    assert again["comment"]["slug"] == reply["comment"]["slug"]


def test_writing_needs_a_signed_in_member(make_post):
    post = make_post()
    response, data = send(Client(), "post", f"/api/v1/posts/{post.slug}/comments/", {"text": "Hi"})
    assert response.status_code == 401 and data["detail"] == SIGN_IN
    assert response["Content-Type"] == "application/problem+json"


def test_session_writes_need_the_csrf_token(make_post, make_user):
    post = make_post()
    client = Client(enforce_csrf_checks=True)
    response, data = send(client, "post", f"/api/v1/posts/{post.slug}/comments/", {"text": "Hi"})
    assert response.status_code == 401 and data["code"] == "not_authenticated"  # no session: not a CSRF error
    client.force_login(make_user("mia", role="reader"))
    response, data = send(client, "post", f"/api/v1/posts/{post.slug}/comments/", {"text": "Hi"})
    assert response.status_code == 403 and data["detail"] == CSRF_FAILED
    assert list(get_store().iter_documents()) == []
    token = client.get("/api/v1/reference/").cookies.get("csrftoken") or client.cookies.get("csrftoken")
    if token is None:
        client.get(f"/posts/{post.slug}/")
        token = client.cookies["csrftoken"]
    response = client.post(f"/api/v1/posts/{post.slug}/comments/", data=json.dumps({"text": "Hi"}),
                           content_type="application/json", HTTP_X_CSRFTOKEN=token.value)
    assert response.status_code == 201


def test_an_unknown_method_is_a_405_problem(make_post):
    post = make_post()
    response = Client().put(f"/api/v1/posts/{post.slug}/", data="{}", content_type="application/json")
    assert response.status_code == 405 and response["Content-Type"] == "application/problem+json"


@pytest.mark.parametrize("body", [
    {"text": {"$gt": ""}}, {"text": ["a"]}, {"text": 5}, {"text": "ok", "parent": {"$ne": None}},
    {"text": "ok", "extra": 1}, "just a string",
])
def test_a_json_value_of_the_wrong_type_is_a_400(make_post, member, body):
    post = make_post()
    response, data = send(member[1], "post", f"/api/v1/posts/{post.slug}/comments/", body)
    assert response.status_code == 400 and data["code"] == "invalid_body"
    assert list(get_store().iter_documents()) == []


def test_the_forms_messages_refuse_bad_text_and_parents(make_post, member, settings):
    post = make_post()
    url = f"/api/v1/posts/{post.slug}/comments/"
    response, data = send(member[1], "post", url, {"text": ""})
    assert response.status_code == 400 and data["detail"] == EMPTY_TEXT and data["errors"][0]["field"] == "text"
    response, data = send(member[1], "post", url, {"text": "Hi", "parent": "../../x"})
    assert response.status_code == 400 and data["detail"] == BAD_PARENT
    response, data = send(member[1], "post", url, {"text": "Hi", "parent": "abcdefgh"})
    assert response.status_code == 400 and data["code"] == "bad_parent"
    settings.COMMENTS_MAX_LENGTH = 5
    response, data = send(member[1], "post", url, {"text": "Too long by far"})
    assert response.status_code == 400 and data["errors"][0]["code"] == "max_length"


def test_a_closed_discussion_refuses_with_the_forms_words(make_post, member):
    post = make_post()
    posts.set_comments_closed(post_id=post.id, closed=True)
    response, data = send(member[1], "post", f"/api/v1/posts/{post.slug}/comments/", {"text": "Hi"})
    assert response.status_code == 403 and data["detail"] == services.CLOSED and data["code"] == "closed"


def test_premoderation_holds_an_api_comment(make_post, member, settings):
    settings.COMMENTS_MODERATION = ["all"]
    post = make_post()
    response, data = send(member[1], "post", f"/api/v1/posts/{post.slug}/comments/", {"text": "Hi"})
    assert response.status_code == 201 and data["outcome"] == "awaiting_moderation"
    assert data["comment"]["awaiting_moderation"] is True


def test_authors_edit_and_delete_their_own_comments_only(make_post, make_comment, member):
    post = make_post()
    user, client = member
    mine = services.post_comment(post=post, text="Mine", author=CommentAuthor(id=user.pk, name="Mia")).comment
    theirs = make_comment(post)
    url = f"/api/v1/posts/{post.slug}/comments/"
    response, data = send(client, "patch", url + f"{mine.slug}/", {"text": "Changed"})
    assert response.status_code == 200 and data["comment"]["html"] == "<p>Changed</p>"
    assert data["comment"]["edited"] is not None
    response, data = send(client, "patch", url + f"{theirs.slug}/", {"text": "Mine now"})
    assert response.status_code == 403 and data["detail"] == services.NOT_YOURS
    response = client.delete(url + f"{theirs.slug}/")
    assert response.status_code == 403
    response = client.delete(url + f"{mine.slug}/")
    assert response.status_code == 204
    assert get_store().find_by_slug(discussion_id=post.id, slug=mine.slug).status == "deleted"


def test_flags_count_once_and_need_a_reason(make_post, make_comment, member):
    post = make_post()
    comment = make_comment(post)
    url = f"/api/v1/posts/{post.slug}/comments/{comment.slug}/flag/"
    response, data = send(member[1], "post", url, {"reason": "nonsense"})
    assert response.status_code == 400 and data["detail"] == BAD_REASON
    response, data = send(member[1], "post", url, {"reason": "spam", "note": "ads"})
    assert response.status_code == 200 and data == {"counted": True}
    response, data = send(member[1], "post", url, {"reason": "spam"})
    assert data == {"counted": False}


def test_writes_share_the_forms_rate_limits(make_post, member, settings, rate_clock):
    settings.COMMENTS_RATE_PER_USER = 2
    post = make_post()
    url = f"/api/v1/posts/{post.slug}/comments/"
    for n in range(2):
        assert send(member[1], "post", url, {"text": f"Number {n}"})[0].status_code == 201
    response, data = send(member[1], "post", url, {"text": "One too many"})
    assert response.status_code == 429 and int(response["Retry-After"]) > 0
    assert data["code"] == "rate_limited"
