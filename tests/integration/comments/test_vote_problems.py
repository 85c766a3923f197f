"""Votes asked for as JSON (static/js/votes.js) answer every refusal as an RFC 9457
problem (issue 36, item 23): a post or comment that is not there is a 404 problem and
a database that is not answering a 503 problem with Retry-After, not the site's HTML
pages; without JavaScript those stay the site's pages."""

from __future__ import annotations

import json

from django.test import Client

from comments.views.common import NO_SUCH_COMMENT
from comments.views import votes as vote_views

JSON = {"HTTP_ACCEPT": "application/json"}
PROBLEM = "application/problem+json"


def problem_of(response) -> dict:
    assert response["Content-Type"] == PROBLEM, (response.status_code, response["Content-Type"])
    body = json.loads(response.content)
    assert body["status"] == response.status_code and body["detail"] == body["error"]
    return body


def test_a_vote_on_a_missing_post_or_comment_is_a_404_problem(make_post, make_comment):
    post = make_post()
    comment = make_comment(post)
    missing_comment = Client().post(f"/posts/{post.slug}/comments/zzzzzzzz/vote/", {"vote": "up"}, **JSON)
    assert missing_comment.status_code == 404
    assert problem_of(missing_comment)["detail"] == NO_SUCH_COMMENT
    missing_post = Client().post(f"/posts/no-such-post/comments/{comment.slug}/vote/", {"vote": "up"}, **JSON)
    assert missing_post.status_code == 404 and problem_of(missing_post)["code"] == "not_found"
    assert Client().get("/posts/no-such-post/comments/votes/", **JSON).status_code == 404
    page = Client().post(f"/posts/{post.slug}/comments/zzzzzzzz/vote/", {"vote": "up"})
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")


def test_a_vote_while_the_database_is_down_is_a_503_problem(make_post, make_comment, mongodb_outage):
    post = make_post()
    comment = make_comment(post)
    url = f"/posts/{post.slug}/comments/{comment.slug}/vote/"
    Client().get(f"/posts/{post.slug}/")  # the post is remembered, as a reader's page load does
    mongodb_outage()
    response = Client().post(url, {"vote": "up"}, **JSON)
    assert response.status_code == 503 and response["Retry-After"] == str(vote_views.UNAVAILABLE_RETRY_SECONDS)
    assert problem_of(response)["detail"] == vote_views.VOTES_UNAVAILABLE


def test_a_refused_vote_is_a_problem_too(make_post, make_comment):
    post = make_post()
    comment = make_comment(post)
    response = Client().post(f"/posts/{post.slug}/comments/{comment.slug}/vote/", {"vote": "sideways"}, **JSON)
    assert response.status_code == 400 and problem_of(response)["code"] == "bad_vote"
