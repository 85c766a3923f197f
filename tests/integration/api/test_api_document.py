"""The OpenAPI document says what the server does (issue 36, items 22 and 23): errors
are problems in the document as on the wire, with 405 (and `Allow`), 413, 429 and
503 (with `Retry-After`) listed; the parameters and bodies it accepts are the ones
the server accepts; a 204 has no body and no type; writes to an address with no
endpoint are 404 problems, never the HTML CSRF page."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from api import tokens
from api.v1 import NO_ENDPOINT
from comments.moderation import flags
from tests.openapi_contract import Contract

PROBLEM = "application/problem+json"
POST = "/api/v1/posts/{post_slug}/"
COMMENTS = "/api/v1/posts/{post_slug}/comments/"
COMMENT = "/api/v1/posts/{post_slug}/comments/{comment_path}/"
FLAG = "/api/v1/posts/{post_slug}/comments/{comment_path}/flag/"
COUNTS = "/api/v1/counts"
QUEUE = "/api/v1/moderation/queue"


@pytest.fixture
def secret(make_user, settings):
    settings.COMMENTS_RATE_PER_IP = settings.COMMENTS_RATE_PER_USER = 0
    user = make_user("writer", role="editor")
    return tokens.create_token(user_id=user.pk, name="doc", scope=tokens.READ_WRITE, created_by="test")[1]


def send(method: str, url: str, body=None, *, secret: str | None = None, client: Client | None = None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {secret}"} if secret else {}
    kwargs = {"data": json.dumps(body), "content_type": "application/json"} if body is not None else {}
    return getattr(client or Client(enforce_csrf_checks=True), method)(url, **kwargs, **headers)


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete", "get"])
@pytest.mark.parametrize("who", ["anonymous", "token", "session"])
def test_any_method_to_an_address_without_an_endpoint_is_a_404_problem(method, who, make_user, secret):
    client = Client(enforce_csrf_checks=True)
    if who == "session":
        client.force_login(make_user("mia", role="reader"))
    for url in ["/api/nothing/", "/api/v1/nothing", "/api/v1/posts/a/b/c/"]:
        body = {"text": "x"} if method != "get" else None
        response = send(method, url, body, secret=secret if who == "token" else None, client=client)
        assert response.status_code == 404 and response["Content-Type"] == PROBLEM, (method, url, response.content)
        assert json.loads(response.content)["detail"] == NO_ENDPOINT


@pytest.mark.parametrize("method, url, allowed", [
    ("put", "/api/v1/posts/some-post/", {"GET"}),
    ("post", "/api/v1/counts", {"GET"}),
    ("put", "/api/v1/posts/some-post/comments/abcdefgh/", {"GET", "PATCH", "DELETE"}),
    ("post", "/api/v1/reference/", {"GET", "HEAD"}),
])
def test_a_method_an_address_does_not_take_is_a_405_problem_with_allow(method, url, allowed, secret):
    response = send(method, url, {}, secret=secret)
    assert response.status_code == 405 and response["Content-Type"] == PROBLEM
    assert {m.strip() for m in response["Allow"].split(",")} == allowed
    assert json.loads(response.content)["code"] == "method_not_allowed"


def test_every_read_answers_head_as_get_without_the_body(make_post):
    post = make_post()
    for url in [f"/api/v1/posts/{post.slug}/", f"/api/v1/posts/{post.slug}/comments/",
                f"/api/v1/counts?posts={post.slug}"]:
        whole, head = Client().get(url), Client().head(url)
        assert head.status_code == 200 and head["Content-Type"] == whole["Content-Type"], url
        assert head.get("ETag") == whole.get("ETag"), url
    assert Client().head("/api/v1/posts/no-such-post/").status_code == 404


def test_every_error_is_documented_as_the_problem_it_is_sent_as():
    doc = Contract().doc
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            assert {"405", "429", "503"} <= set(responses), (method, path)
            if method != "get":
                assert "413" in responses, (method, path)
            for status, response in responses.items():
                answer = Contract(doc).resolve(response)
                if int(status) >= 400:
                    assert list(answer["content"]) == [PROBLEM], (method, path, status)
                if status in ("429", "503"):
                    assert answer["headers"]["Retry-After"]["required"], (method, path, status)
                if status == "405":
                    assert answer["headers"]["Allow"]["required"]
                if status in ("204", "304"):
                    assert "content" not in answer, (method, path, status)
    reason = doc["components"]["schemas"]["FlagIn"]["properties"]["reason"]
    assert reason["enum"] == list(flags.REASONS) and all(key in reason["description"] for key in flags.REASONS)
    assert "enum" in Contract(doc).parameter("get", COMMENTS, "view")["schema"]


@pytest.mark.parametrize("method, path, name, refused, taken", [
    ("get", COUNTS, "posts", ["", ",", " , "], ["a", "a,b"]),
    ("get", COMMENTS, "page", ["", "0", "-1", "x", "1.5", "1234567890"], ["1", "2", "01"]),
    ("get", COMMENT, "page", ["", "0"], ["1"]),
    ("get", QUEUE, "page", ["", "0"], ["1"]),
    ("get", COMMENTS, "view", ["sideways"], ["threaded", "newest", ""]),
    ("get", QUEUE, "tab", ["", "sideways"], ["pending", "flagged"]),
])
def test_the_document_refuses_the_parameters_the_server_refuses(method, path, name, refused, taken, make_post,
                                                                 make_comment, secret):
    """The values the server refuses (400) fail the document's schema; values it
    takes pass it."""
    contract = Contract()
    schema = contract.parameter(method, path, name)["schema"]
    post = make_post()
    comment = make_comment(post)
    url = path.format(post_slug=post.slug, comment_path=comment.slug)
    for value in refused:
        assert not contract.valid(schema, value), (name, value)
        response = Client().get(url, {name: value}, HTTP_AUTHORIZATION=f"Bearer {secret}")
        assert response.status_code == 400, (name, value, response.status_code)
        contract.check(response, method=method, path=path)
    for value in taken:
        assert contract.valid(schema, value), (name, value)


@pytest.mark.parametrize("method, path, body", [
    ("post", COMMENTS, {"text": ""}),
    ("post", COMMENTS, {"text": " \n\t"}),
    ("patch", COMMENT, {"text": ""}),
    ("post", FLAG, {"reason": ""}),
    ("post", FLAG, {"reason": "boring"}),
    ("post", FLAG, {"reason": "spam", "note": "n" * 501}),
])
def test_the_document_refuses_the_bodies_the_server_refuses(method, path, body, make_post, make_comment, secret):
    contract = Contract()
    assert not contract.valid(contract.body_schema(method, path), body)
    post = make_post()
    comment = make_comment(post)
    response = send(method, path.format(post_slug=post.slug, comment_path=comment.slug), body, secret=secret)
    assert response.status_code == 400
    contract.check(response, method=method, path=path)


def test_a_null_parent_is_top_level(make_post, secret):
    contract = Contract()
    body = {"text": "At the top", "parent": None}
    assert contract.valid(contract.body_schema("post", COMMENTS), body)
    response = send("post", COMMENTS.format(post_slug=make_post().slug), body, secret=secret)
    assert response.status_code == 201 and json.loads(response.content)["comment"]["parent"] is None
    contract.check(response, method="post", path=COMMENTS)


def test_a_delete_answers_204_with_no_body_and_no_type(make_post, secret):
    post = make_post()
    made = json.loads(send("post", COMMENTS.format(post_slug=post.slug), {"text": "Gone soon"}, secret=secret).content)
    response = send("delete", COMMENT.format(post_slug=post.slug, comment_path=made["comment"]["slug"]), secret=secret)
    assert response.status_code == 204 and "Content-Type" not in response and response.content == b""
    Contract().check(response, method="delete", path=COMMENT)


def test_answers_of_every_kind_conform_to_the_document(rate_clock, make_post, make_comment, secret, settings):
    """One of each: reads, a 304, writes, each error status, checked against the document."""
    contract = Contract()
    post = make_post()
    first = make_comment(post)
    slug, path = post.slug, first.slug
    answers = [
        ("get", POST, f"/api/v1/posts/{slug}/", {}),
        ("get", POST, "/api/v1/posts/no-such-post/", {}),
        ("get", COMMENTS, f"/api/v1/posts/{slug}/comments/?view=newest", {}),
        ("get", COMMENTS, f"/api/v1/posts/{slug}/comments/?page=9", {}),
        ("get", COMMENT, f"/api/v1/posts/{slug}/comments/{path}/", {}),
        ("get", COUNTS, f"/api/v1/counts?posts={slug},nope", {}),
        ("get", QUEUE, "/api/v1/moderation/queue?tab=flagged", {"secret": secret}),
        ("get", QUEUE, "/api/v1/moderation/queue", {"secret": "slg_" + "x" * 43}),
        ("post", COMMENTS, f"/api/v1/posts/{slug}/comments/", {"body": {"text": "Hi", "parent": path}}),
        ("post", COMMENTS, f"/api/v1/posts/{slug}/comments/", {"body": {"text": "Hi"}}),
        ("post", FLAG, f"/api/v1/posts/{slug}/comments/{path}/flag/", {"body": {"reason": "spam"}, "secret": secret}),
        ("patch", COMMENT, f"/api/v1/posts/{slug}/comments/{path}/", {"body": {"text": "Not mine"}, "secret": secret}),
        ("post", COMMENTS, f"/api/v1/posts/{slug}/comments/", {"body": {"text": "x" * 70_000}, "secret": secret}),
    ]
    for method, template, url, options in answers:
        response = send(method, url, options.get("body"), secret=options.get("secret"))
        contract.check(response, method=method, path=template)
    tag = Client().get(f"/api/v1/posts/{slug}/")["ETag"]
    contract.check(Client().get(f"/api/v1/posts/{slug}/", HTTP_IF_NONE_MATCH=tag), method="get", path=POST)
    settings.API_RATE_PER_IP = 1
    Client().get(f"/api/v1/posts/{slug}/")
    limited = Client().get(f"/api/v1/posts/{slug}/")
    assert limited.status_code == 429
    contract.check(limited, method="get", path=POST)


def test_the_reference_page_describes_every_parameter_and_shows_examples():
    doc = Contract().doc
    operations = [(path, op) for path, item in doc["paths"].items() for op in item.values()]
    for path, operation in operations:
        for param in operation.get("parameters", []):
            assert param.get("description"), (path, param["name"])
    page = Client().get("/api/v1/reference/").content.decode()
    assert page.count('class="api-example"') >= len(operations) + 1
    assert "GET /api/v1/posts/hello-world/comments/k3x9q2ab/m4p7w1zc/?page=2" in page
    assert "&quot;reason&quot;: &quot;spam&quot;" in page and "<td data-label=\"Description\"></td>" not in page
