"""A member's own API tokens (issue 37): made on their account page and shown once,
used to post, edit and vote as the member, one vote per member across a session and a
token, never an editor's powers, refused once revoked; strangers refused; every bad
vote a problem as the OpenAPI document says."""

from __future__ import annotations

import functools
import json
import re

import pytest
from django.test import Client

from accounts.api_tokens import TOO_MANY
from api import auth, token_forms, tokens
from api.v1 import SIGN_IN
from comments.stores import get_store
from comments.votes.rules import BAD_VOTE, OWN_COMMENT
from tests.openapi_contract import Contract

pytestmark = [pytest.mark.usefixtures("each_store"), pytest.mark.stores("documents"), pytest.mark.django_db]

PAGE = "/accounts/api-tokens/"
COMMENTS = "/api/v1/posts/{post_slug}/comments/"
COMMENT = "/api/v1/posts/{post_slug}/comments/{comment_path}/"
VOTE = "/api/v1/posts/{post_slug}/comments/{comment_path}/vote/"


@functools.cache
def contract() -> Contract:
    """The document, read once for the module's checks (no setting here changes it)."""
    return Contract()


def call(method: str, url: str, *, secret: str | None = None, body=None, client: Client | None = None,
         path: str | None = None):
    """`method` on `url` with a bearer token or a client's session (its CSRF header
    too); the answer and its JSON, checked against the document at `path`."""
    client = client or Client()
    headers = {"HTTP_AUTHORIZATION": f"Bearer {secret}"} if secret else {}
    if "csrftoken" in client.cookies:
        headers["HTTP_X_CSRFTOKEN"] = client.cookies["csrftoken"].value
    kwargs = {"data": json.dumps(body), "content_type": "application/json"} if body is not None else {}
    response = getattr(client, method)(url, **kwargs, **headers)
    if path is not None:
        contract().check(response, method=method, path=path)
    return response, (json.loads(response.content) if response.content else None)


@pytest.fixture
def member(make_verified_reader):
    """A verified member, "Mia Reader", and her browser, signed in, with CSRF checks on."""
    user = make_verified_reader("mia@example.com", name="Mia Reader", password=None)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    return user, browser


def make_token(browser: Client, name: str = "My script") -> str:
    """A token made on the account page, as the member does; its secret, read off the page."""
    page = browser.get(PAGE)
    token = page.context["csrf_token"]
    made = browser.post(PAGE, {"name": name, "lifetime": "30", "csrfmiddlewaretoken": token}, follow=True)
    assert made.redirect_chain == [(PAGE, 303)]
    return re.search(r'<code class="api-token">([^<]+)</code>', made.content.decode()).group(1)


def test_a_token_made_on_the_account_page_is_shown_once_and_stored_hashed(member, mongo_db):
    user, browser = member
    secret = make_token(browser)
    stored = mongo_db.api_tokens.find_one({"user_id": user.pk})
    assert stored["scope"] == tokens.MEMBER and stored["digest"] == tokens.digest(secret)
    assert secret not in json.dumps(stored, default=str)
    again = browser.get(PAGE)
    assert again["Cache-Control"].startswith("private") and "no-store" in again["Cache-Control"]
    assert secret not in again.content.decode() and secret[:tokens.SHOWN] in again.content.decode()
    assert "My script" in again.content.decode()


def test_a_members_token_posts_edits_and_votes_as_the_member_until_revoked(member, make_post, make_comment):
    user, browser = member
    secret = make_token(browser)
    post = make_post()
    response, data = call("post", f"/api/v1/posts/{post.slug}/comments/", secret=secret, body={"text": "By token"},
                          path=COMMENTS)
    assert response.status_code == 201 and data["comment"]["author"] == "Mia Reader"
    slug = data["comment"]["slug"]
    stored = get_store().find_by_slug(discussion_id=post.id, slug=slug)
    assert (stored.author.id, stored.author.name, stored.author.email) == (user.pk, "Mia Reader", "")
    response, data = call("patch", f"/api/v1/posts/{post.slug}/comments/{slug}/", secret=secret,
                          body={"text": "By token, edited"}, path=COMMENT)
    assert response.status_code == 200 and data["outcome"] == "edited"
    assert get_store().find_by_slug(discussion_id=post.id, slug=slug).text == "By token, edited"
    other = make_comment(post)
    response, data = call("post", f"/api/v1/posts/{post.slug}/comments/{other.slug}/vote/", secret=secret,
                          body={"vote": "up"}, path=VOTE)
    assert response.status_code == 200 and (data["vote"], data["up"], data["score"]) == ("up", 1, 1)
    refused, problem = call("patch", f"/api/v1/posts/{post.slug}/comments/{other.slug}/", secret=secret,
                            body={"text": "Not mine"}, path=COMMENT)
    assert refused.status_code == 403 and problem["code"] == "not_yours"
    stored_token = tokens.of_user(user_id=user.pk, scope=tokens.MEMBER)[0]
    revoked = browser.post(f"{PAGE}{stored_token.id}/revoke/", {"csrfmiddlewaretoken": browser.get(PAGE).context[
        "csrf_token"]}, follow=True)
    assert token_forms.REVOKED in revoked.content.decode() and secret[:tokens.SHOWN] not in revoked.content.decode()
    response, problem = call("post", f"/api/v1/posts/{post.slug}/comments/", secret=secret, body={"text": "Again"},
                             path=COMMENTS)
    assert response.status_code == 401 and (problem["code"], problem["detail"]) == ("bad_token", auth.BAD_TOKEN)


def test_a_member_votes_once_across_a_session_and_a_token(member, make_post, make_comment):
    _, browser = member
    secret = make_token(browser)
    post = make_post()
    other = make_comment(post)
    url = f"/api/v1/posts/{post.slug}/comments/{other.slug}/vote/"
    assert call("post", url, secret=secret, body={"vote": "up"})[1]["up"] == 1
    response, data = call("post", url, client=browser, body={"vote": "up"}, path=VOTE)
    assert response.status_code == 200 and (data["up"], data["down"]) == (1, 0)
    data = call("post", url, client=browser, body={"vote": "down"})[1]
    assert (data["vote"], data["up"], data["down"], data["score"]) == ("down", 0, 1, -1)
    response, data = call("delete", url, secret=secret, path=VOTE)
    assert response.status_code == 200 and (data["vote"], data["up"], data["down"]) == ("none", 0, 0)
    html_vote = browser.post(f"/posts/{post.slug}/comments/{other.slug}/vote/",
                             {"vote": "up", "csrfmiddlewaretoken": browser.cookies["csrftoken"].value})
    assert html_vote.status_code == 303
    assert call("post", url, secret=secret, body={"vote": "up"})[1]["up"] == 1


def test_a_members_token_has_no_editor_powers_even_an_editors(make_user, make_post, settings):
    settings.COMMENTS_MODERATION = ["all"]
    editor = make_user("eve", role="editor")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(editor)
    secret = make_token(browser, "Eve's own")
    post = make_post()
    response, data = call("post", f"/api/v1/posts/{post.slug}/comments/", secret=secret, body={"text": "Held"})
    assert response.status_code == 201 and data["outcome"] == "awaiting_moderation"
    response, problem = call("get", "/api/v1/moderation/queue", secret=secret)
    assert response.status_code == 403 and problem["code"] == "editors_only"


def test_bad_votes_are_problems_as_documented(member, make_post, make_comment, settings, rate_clock):
    user, browser = member
    secret = make_token(browser)
    post = make_post()
    other = make_comment(post)
    url = f"/api/v1/posts/{post.slug}/comments/{other.slug}/vote/"
    response, problem = call("post", url, secret=secret, body={"vote": "sideways"}, path=VOTE)
    assert (response.status_code, problem["code"], problem["detail"]) == (400, "bad_vote", BAD_VOTE)
    assert problem["errors"][0]["field"] == "vote"
    response, problem = call("post", url, secret=secret, body={"vote": 1}, path=VOTE)
    assert (response.status_code, problem["code"]) == (400, "invalid_body")
    own = call("post", f"/api/v1/posts/{post.slug}/comments/", secret=secret, body={"text": "Mine"})[1]
    response, problem = call("post", f"/api/v1/posts/{post.slug}/comments/{own['comment']['slug']}/vote/",
                             secret=secret, body={"vote": "up"}, path=VOTE)
    assert (response.status_code, problem["detail"]) == (403, OWN_COMMENT)
    response, problem = call("post", f"/api/v1/posts/{post.slug}/comments/zzzzzzzz/vote/", secret=secret,
                             body={"vote": "up"}, path=VOTE)
    assert response.status_code == 404
    settings.COMMENTS_VOTES_PER_IP_PER_COMMENT = 1
    call("post", url, secret=secret, body={"vote": "up"})
    response, problem = call("post", url, secret=secret, body={"vote": "down"}, path=VOTE)
    assert (response.status_code, problem["code"]) == (429, "too_many_votes") and int(response["Retry-After"]) > 0


def test_strangers_are_refused_where_members_only(member, make_verified_reader, make_post, make_comment):
    post = make_post()
    other = make_comment(post)
    response, problem = call("post", f"/api/v1/posts/{post.slug}/comments/{other.slug}/vote/", body={"vote": "up"},
                             path=VOTE)
    assert (response.status_code, problem["detail"]) == (401, SIGN_IN)
    assert Client().get(PAGE).status_code == 302
    _, browser = member
    secret = make_token(browser)
    stranger = Client()
    stranger.force_login(make_verified_reader("sam@example.com", name="Sam", password=None))
    token_id = tokens.find_active(secret).id
    refused = stranger.post(f"{PAGE}{token_id}/revoke/", follow=True)
    assert token_forms.NOT_REVOKED in refused.content.decode()
    assert tokens.find_active(secret) is not None


def test_a_member_holds_at_most_the_limit_of_tokens_and_names_each(member):
    user, browser = member
    csrf = browser.get(PAGE).context["csrf_token"]
    unnamed = browser.post(PAGE, {"name": "", "lifetime": "30", "csrfmiddlewaretoken": csrf})
    assert unnamed.status_code == 400 and 'class="field-error"' in unnamed.content.decode()
    for n in range(tokens.MEMBER_LIMIT):
        tokens.create_token(user_id=user.pk, name=f"t{n}", scope=tokens.MEMBER, created_by="mia")
    refused = browser.post(PAGE, {"name": "One more", "lifetime": "30", "csrfmiddlewaretoken": csrf})
    assert refused.status_code == 400
    assert TOO_MANY.format(limit=tokens.MEMBER_LIMIT) in refused.content.decode()
    assert len(tokens.of_user(user_id=user.pk, scope=tokens.MEMBER)) == tokens.MEMBER_LIMIT
