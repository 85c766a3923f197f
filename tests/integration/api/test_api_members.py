"""A reader's account through the API's session, in every store: it posts as that
member (account id and display name) and an unverified one is refused as the form
refuses it, with where to verify."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from comments.stores import get_store

pytestmark = [pytest.mark.usefixtures("each_store"), pytest.mark.django_db]


@pytest.fixture
def signed_in(make_verified_reader):
    """`signed_in(username, verified=)`: a reader's account named "<Username> Reader"
    and a browser signed in to it."""

    def build(username: str, *, verified: bool) -> tuple:
        user = make_verified_reader(f"{username}@example.com", name=f"{username.capitalize()} Reader",
                                    verified=verified, password=None)
        browser = Client()
        browser.force_login(user)
        return user, browser

    return build


def post_json(browser: Client, post, body: dict):
    return browser.post(f"/api/v1/posts/{post.slug}/comments/", data=json.dumps(body),
                        content_type="application/json")


def test_a_members_session_posts_as_that_member(make_post, signed_in):
    post = make_post()
    user, browser = signed_in("mia", verified=True)
    response = post_json(browser, post, {"text": "Through the API"})
    assert response.status_code == 201
    data = json.loads(response.content)
    assert data["comment"]["author"] == "Mia Reader"
    stored = get_store().find_by_slug(discussion_id=post.id, slug=data["comment"]["slug"])
    assert (stored.author.id, stored.author.name) == (user.pk, "Mia Reader")


def test_an_unverified_members_session_is_refused_with_where_to_verify(make_post, signed_in):
    _, browser = signed_in("una", verified=False)
    problem = json.loads(post_json(browser, make_post(), {"text": "Let me in"}).content)
    assert (problem["status"], problem["code"]) == (403, "unverified")
    assert "Verify your account's e-mail address" in problem["detail"]
    assert problem["detail"].endswith("http://testserver/accounts/email/")
