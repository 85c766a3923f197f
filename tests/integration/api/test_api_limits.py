"""The API's limits: per-IP rate limits counted in MongoDB (shared by every worker),
bounded bodies, CORS only for the allowed origins and only for reads."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from api import middleware
from tests.threads import at_once


def test_requests_past_the_ip_limit_are_429_with_retry_after(settings, make_post, rate_clock):
    settings.API_RATE_PER_IP, settings.API_RATE_WINDOW = 3, 60
    post = make_post()
    client = Client()
    assert [client.get(f"/api/v1/posts/{post.slug}/").status_code for _ in range(3)] == [200] * 3
    refused = client.get(f"/api/v1/posts/{post.slug}/")
    assert refused.status_code == 429 and refused["Retry-After"] == "61"
    assert json.loads(refused.content)["code"] == "rate_limited"
    rate_clock.now += 60
    assert client.get(f"/api/v1/posts/{post.slug}/").status_code == 200
    # Another address has its own count.
    assert client.get(f"/api/v1/posts/{post.slug}/", REMOTE_ADDR="198.51.100.9").status_code == 200


def test_the_ip_limit_holds_for_requests_at_once(settings, make_post, rate_clock):
    """Ten requests at the same moment (threads, as workers would be): exactly the limit get through."""
    settings.API_RATE_PER_IP, settings.API_RATE_WINDOW = 4, 60
    admitted = at_once([lambda: middleware.admitted(ip="203.0.113.5")] * 10)
    assert sum(1 for wait in admitted if wait is None) == 4


def test_a_body_over_the_limit_is_413(settings, make_post, make_user):
    settings.API_MAX_BODY_BYTES = 2048
    post = make_post()
    client = Client()
    client.force_login(make_user("mia", role="reader"))
    response = client.post(f"/api/v1/posts/{post.slug}/comments/", data=json.dumps({"text": "x" * 4000}),
                           content_type="application/json")
    assert response.status_code == 413 and response["Content-Type"] == "application/problem+json"


@pytest.mark.parametrize("origin, allowed", [("https://friends.example", True), ("https://other.example", False)])
def test_cors_only_for_allowed_origins_and_reads(settings, make_post, origin, allowed):
    settings.API_CORS_ORIGINS = ["https://friends.example"]
    post = make_post()
    client = Client()
    response = client.get(f"/api/v1/counts?posts={post.slug}", HTTP_ORIGIN=origin)
    assert response.status_code == 200
    assert response.get("Access-Control-Allow-Origin") == (origin if allowed else None)
    assert "Access-Control-Allow-Credentials" not in response
    preflight = client.options(f"/api/v1/posts/{post.slug}/comments/", HTTP_ORIGIN=origin,
                               HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET")
    assert preflight.status_code == 204
    assert preflight.get("Access-Control-Allow-Origin") == (origin if allowed else None)
    write = client.options(f"/api/v1/posts/{post.slug}/comments/", HTTP_ORIGIN=origin,
                           HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST")
    assert "Access-Control-Allow-Origin" not in write


def test_cors_is_off_by_default(make_post):
    post = make_post()
    response = Client().get(f"/api/v1/posts/{post.slug}/", HTTP_ORIGIN="https://friends.example")
    assert "Access-Control-Allow-Origin" not in response


def test_an_outage_is_a_503_problem_with_retry_after(make_post, make_comment, mongodb_outage, settings):
    """With MongoDB unreachable, a page of comments (the post read before, as a last good
    copy) and the counts answer 503 problems, never a 500; rate limits let requests through."""
    settings.COMMENTS_CACHE_SECONDS = 0
    post = make_post()
    make_comment(post)
    client = Client()
    assert client.get(f"/posts/{post.slug}/").status_code == 200  # the post's last good copy
    mongodb_outage()
    for url in (f"/api/v1/posts/{post.slug}/comments/", f"/api/v1/counts?posts={post.slug}"):
        response = client.get(url)
        assert response.status_code == 503, url
        assert response["Content-Type"] == "application/problem+json" and response["Retry-After"]
