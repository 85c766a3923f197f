"""Request bodies that are not text: a lone surrogate in any string of a JSON body
(a value or a key, escaped or as UTF-8 bytes), bytes that are not UTF-8, and text
that is not JSON each answer a 400 problem (RFC 9457) that names the field, at every
endpoint that takes a body; nothing is stored and nothing answers 500."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from api.parsing import LONE_SURROGATE, NOT_JSON, NOT_UTF8
from comments.moderation import flags
from comments.records import CommentAuthor
from comments.stores import get_store

PROBLEM = "application/problem+json"


@pytest.fixture
def member(make_user):
    user = make_user("mia", role="reader")
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return user, client


def _send(client: Client, method: str, url: str, body: bytes):
    response = getattr(client, method)(url, data=body, content_type="application/json")
    assert response.status_code == 400, (response.status_code, response.content[:300])
    assert response["Content-Type"] == PROBLEM
    return json.loads(response.content)


def _refused_for(data: dict, field: str) -> None:
    assert data["code"] == "lone_surrogate"
    assert data["errors"] == [{"field": field, "message": data["detail"], "code": "lone_surrogate"}]
    assert data["detail"] == LONE_SURROGATE.format(field=field, code="U+D800")


@pytest.mark.parametrize(("body", "field"), [
    (rb'{"text": "half a \ud800 character"}', "text"),
    (b'{"text": "raw \xed\xa0\x80 bytes"}', "text"),
    (rb'{"text": "fine", "parent": "\ud800"}', "parent"),
    (rb'{"text": "fine", "\ud800": "a key"}', "\\ud800"),
    (rb'{"text": ["deep", {"x": "\ud800"}]}', "text.1.x"),
])
def test_a_new_comment_with_a_lone_surrogate_is_a_400_naming_its_field(make_post, member, body, field):
    post = make_post()
    data = _send(member[1], "post", f"/api/v1/posts/{post.slug}/comments/", body)
    _refused_for(data, field)
    assert list(get_store().iter_documents()) == []


def test_an_edit_with_a_lone_surrogate_is_a_400_and_changes_nothing(make_post, member, make_comment):
    post = make_post()
    user, client = member
    mine = make_comment(post, text="Kept as it was", author=CommentAuthor(id=user.pk, name="Mia"))
    data = _send(client, "patch", f"/api/v1/posts/{post.slug}/comments/{mine.slug}/", rb'{"text": "\ud800"}')
    _refused_for(data, "text")
    assert get_store().find_by_id(mine.id).text == "Kept as it was"


@pytest.mark.parametrize(("body", "field"), [
    (rb'{"reason": "spam", "note": "see \ud800"}', "note"),
    (rb'{"reason": "\ud800"}', "reason"),
])
def test_a_flag_with_a_lone_surrogate_is_a_400_and_counts_nothing(make_post, member, make_comment, body, field):
    post = make_post()
    comment = make_comment(post)
    data = _send(member[1], "post", f"/api/v1/posts/{post.slug}/comments/{comment.slug}/flag/", body)
    _refused_for(data, field)
    assert flags.flag_count(comment_id=comment.id) == 0


@pytest.mark.parametrize(("body", "code", "detail"), [
    (b'{"text": "caf\xe9"}', "not_utf8", NOT_UTF8.format(position=13)),
    (b'{"text": "unfinished', "not_json", NOT_JSON.format(line=1, column=10)),
])
def test_a_body_that_is_not_utf8_json_is_a_400_saying_where(make_post, member, body, code, detail):
    post = make_post()
    data = _send(member[1], "post", f"/api/v1/posts/{post.slug}/comments/", body)
    assert (data["code"], data["detail"]) == (code, detail)
    assert list(get_store().iter_documents()) == []


def test_a_lone_surrogate_is_refused_in_the_readers_language(make_post, member):
    post = make_post()
    response = member[1].post(f"/api/v1/posts/{post.slug}/comments/", data=rb'{"text": "\ud800"}',
                              content_type="application/json", HTTP_ACCEPT_LANGUAGE="vi")
    assert response.status_code == 400
    assert json.loads(response.content)["detail"] != LONE_SURROGATE.format(field="text", code="U+D800")
