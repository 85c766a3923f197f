"""API tokens: made and revoked by editors in the dashboard, stored as digests, scoped
read or read-write, rate limited each; the moderation endpoints for editors' tokens."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from api import auth, tokens
from comments.posting import services
from comments.records import CommentAuthor
from comments.stores import get_store
from dashboard.api_tokens import NO_SUCH_USER

pytestmark = pytest.mark.usefixtures("each_store")


def call(method: str, url: str, token: str | None = None, body=None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    kwargs = {"data": json.dumps(body), "content_type": "application/json"} if body is not None else {}
    response = getattr(Client(), method)(url, **kwargs, **headers)
    return response, (json.loads(response.content) if response.content else None)


def test_editors_make_and_revoke_tokens_in_the_dashboard(make_user, make_post, mongo_db):
    editor = make_user("eve", role="editor")
    make_user("bot", role="reader")
    client = Client()
    client.force_login(editor)
    refused = client.post("/dashboard/api-tokens/", {"username": "nobody", "name": "x", "scope": "read"})
    assert refused.status_code == 400 and NO_SUCH_USER in refused.content.decode()
    made = client.post("/dashboard/api-tokens/", {"username": "bot", "name": "Counts widget", "scope": "read"},
                       follow=True)
    assert made.redirect_chain == [("/dashboard/api-tokens/", 303)]
    secret = re.search(r'<code class="api-token">([^<]+)</code>', made.content.decode()).group(1)
    stored = mongo_db.api_tokens.find_one({})
    assert secret not in json.dumps(stored, default=str) and stored["digest"] == tokens.digest(secret)
    post = make_post()
    assert call("get", f"/api/v1/posts/{post.slug}/", secret)[0].status_code == 200
    listing = client.get("/dashboard/api-tokens/")
    assert secret not in listing.content.decode() and secret[:tokens.SHOWN] in listing.content.decode()
    revoked = client.post(f"/dashboard/api-tokens/{stored['_id']}/revoke/")
    assert revoked.status_code == 303
    response, data = call("get", f"/api/v1/posts/{post.slug}/", secret)
    assert response.status_code == 401 and data["detail"] == auth.BAD_TOKEN


def test_only_editors_reach_the_tokens_page(make_user):
    client = Client()
    client.force_login(make_user("ann", role="author"))
    assert client.get("/dashboard/api-tokens/").status_code == 403
    assert client.post("/dashboard/api-tokens/", {"username": "ann", "name": "x", "scope": "read"}).status_code == 403


def test_a_read_token_reads_and_cannot_write(make_user, make_post):
    bot = make_user("bot", role="reader")
    _, secret = tokens.create_token(user_id=bot.pk, name="r", scope=tokens.READ, created_by="eve")
    post = make_post()
    response, data = call("post", f"/api/v1/posts/{post.slug}/comments/", secret, {"text": "Hi"})
    assert response.status_code == 403 and data["detail"] == auth.READ_ONLY
    assert list(get_store().iter_documents()) == []


def test_a_read_write_token_posts_as_its_user_without_csrf(make_user, make_post):
    bot = make_user("bot", role="reader")
    _, secret = tokens.create_token(user_id=bot.pk, name="rw", scope=tokens.READ_WRITE, created_by="eve")
    post = make_post()
    response, data = call("post", f"/api/v1/posts/{post.slug}/comments/", secret, {"text": "From a script"})
    assert response.status_code == 201 and data["comment"]["author"] == "bot"
    stored = get_store().find_by_slug(discussion_id=post.id, slug=data["comment"]["slug"])
    assert stored.author.id == bot.pk


@pytest.mark.parametrize("secret", ["nonsense", "slg_" + "a" * 43, "slg_{$gt: ''}"])
def test_unknown_tokens_are_401(make_post, secret):
    post = make_post()
    response, data = call("get", f"/api/v1/posts/{post.slug}/comments/", secret)
    assert response.status_code == 401 and data["code"] == "bad_token"


def test_each_token_has_its_own_rate_limit(make_user, make_post, settings, rate_clock):
    settings.API_RATE_PER_TOKEN = 2
    bot = make_user("bot", role="reader")
    _, one = tokens.create_token(user_id=bot.pk, name="1", scope=tokens.READ, created_by="eve")
    _, two = tokens.create_token(user_id=bot.pk, name="2", scope=tokens.READ, created_by="eve")
    post = make_post()
    url = f"/api/v1/posts/{post.slug}/"
    assert [call("get", url, one)[0].status_code for _ in range(3)] == [200, 200, 429]
    assert call("get", url, two)[0].status_code == 200


def test_moderation_needs_an_editors_read_write_token(make_user, make_post, make_comment):
    post = make_post()
    comment = make_comment(post)
    reader = make_user("bot", role="reader")
    _, readers = tokens.create_token(user_id=reader.pk, name="x", scope=tokens.READ_WRITE, created_by="eve")
    editor = make_user("eve", role="editor")
    _, editors_read = tokens.create_token(user_id=editor.pk, name="x", scope=tokens.READ, created_by="eve")
    assert call("get", "/api/v1/moderation/queue", readers)[0].status_code == 403
    assert call("get", "/api/v1/moderation/queue", editors_read)[0].status_code == 403
    assert call("get", "/api/v1/moderation/queue")[0].status_code == 401
    session = Client()
    session.force_login(editor)
    assert session.get("/api/v1/moderation/queue").status_code == 401
    assert call("post", f"/api/v1/moderation/comments/{comment.id}/spam", readers)[0].status_code == 403


def test_an_editors_token_works_the_queue(make_user, make_post, settings):
    settings.COMMENTS_MODERATION = ["all"]
    post = make_post()
    held = [services.post_comment(post=post, text=f"Held {n}", author=CommentAuthor(id=None, name="Rex"),
                                  ip="192.0.2.9").comment for n in range(3)]
    editor = make_user("eve", role="editor")
    _, secret = tokens.create_token(user_id=editor.pk, name="bot", scope=tokens.READ_WRITE, created_by="eve")
    response, data = call("get", "/api/v1/moderation/queue?tab=pending", secret)
    assert response.status_code == 200 and data["total"] == 3
    assert {e["slug"] for e in data["entries"]} == {c.slug for c in held}
    assert all(e["discussion"] == post.slug for e in data["entries"])
    response, data = call("post", f"/api/v1/moderation/comments/{held[0].id}/approve", secret)
    assert response.status_code == 200 and data["changed"] == 1
    assert get_store().find_by_ids(ids=[held[0].id])[0].status == "approved"
    response, data = call("post", f"/api/v1/moderation/comments/{held[1].id}/spam", secret)
    assert get_store().find_by_ids(ids=[held[1].id])[0].status == "spam"
    response, data = call("post", f"/api/v1/moderation/comments/{held[2].id}/ban", secret)
    assert response.status_code == 200 and ["ip", "192.0.2.9"] in data["banned"]
    assert call("get", "/api/v1/moderation/queue?tab=sideways", secret)[0].status_code == 400
    assert call("post", "/api/v1/moderation/comments/nonsense/approve", secret)[0].status_code == 404
    assert call("post", f"/api/v1/moderation/comments/{held[0].id}/explode", secret)[0].status_code == 404
