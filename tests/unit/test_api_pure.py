"""The API's pure pieces: slug lists, entity tag matching, token forms, the
reference page's reading of an OpenAPI document, problem bodies."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bson import ObjectId
from django.test import RequestFactory
from hypothesis import given, strategies as st

from api import etags, problems, reading, reference, tokens
from api.token_forms import LIFETIMES, TokenForm
from comments.votes import voters


def test_counts_slugs_are_split_trimmed_and_deduplicated_in_order():
    assert reading.split_slugs(" b, a,,b ,c,") == ["b", "a", "c"]
    assert reading.split_slugs(None) == [] and reading.split_slugs(",,") == []


@given(st.lists(st.text(alphabet="abc-, ", max_size=6), max_size=8))
def test_split_slugs_never_gives_blanks_or_repeats(parts):
    found = reading.split_slugs(",".join(parts))
    assert all(slug and slug == slug.strip() for slug in found) and len(found) == len(set(found))


def test_if_none_match_matches_the_tag_weak_or_in_a_list():
    factory = RequestFactory()
    tag = '"abc"'
    assert etags.matches(factory.get("/", HTTP_IF_NONE_MATCH='"x", W/"abc"'), tag)
    assert etags.matches(factory.get("/", HTTP_IF_NONE_MATCH="*"), tag)
    assert not etags.matches(factory.get("/", HTTP_IF_NONE_MATCH='"abcd"'), tag)
    assert not etags.matches(factory.get("/"), tag)
    assert not etags.matches(factory.get("/", HTTP_IF_NONE_MATCH="*"), None)


@given(st.one_of(st.none(), st.integers(), st.text(max_size=60), st.dictionaries(st.text(), st.text())))
def test_anything_not_in_a_tokens_form_is_refused_before_any_query(value):
    """The unit tests' guard fails any MongoDB access: none happens for these."""
    if isinstance(value, str) and tokens.FORM.fullmatch(value):
        return
    assert tokens.find_active(value) is None


def test_a_new_tokens_form_is_what_the_check_accepts():
    secret = tokens.PREFIX + "A" * 43
    assert tokens.FORM.fullmatch(secret) and len(tokens.digest(secret)) == 64


def test_the_reference_lists_every_operation_of_a_document():
    document = {"paths": {
        "/a/{x}": {"get": {"summary": "A", "parameters": [{"name": "x", "in": "path", "required": True}],
                           "responses": {"200": {}, "404": {}}},
                   "patch": {"summary": "B", "requestBody": {}, "security": [{"t": []}], "responses": {"200": {}}}},
    }}
    found = reference.operations(document)
    assert [(op["method"], op["path"]) for op in found] == [("GET", "/a/{x}"), ("PATCH", "/a/{x}")]
    assert found[0]["parameters"][0]["required"] and found[0]["statuses"] == ["200", "404"]
    assert found[1]["body"] and found[1]["auth"]


def test_a_problem_is_rfc_9457_with_retry_after():
    response = problems.problem(429, "Slow down", code="rate_limited", retry_after=7)
    body = json.loads(response.content)
    assert response["Content-Type"] == "application/problem+json" and response["Retry-After"] == "7"
    assert body == {"type": "about:blank", "title": "Too many requests", "status": 429, "detail": "Slow down",
                    "code": "rate_limited"}


def _token(scope: str) -> tokens.ApiToken:
    return tokens.ApiToken(id=ObjectId(), user_id=1, name="x", scope=scope, prefix="slg_x", created=datetime.now(UTC),
                           created_by="x")


def test_a_members_own_token_writes_without_an_editors_powers():
    """The member scope posts and votes as its account, but never as an editor; the
    dashboard's scopes carry their account's powers, and only read-write writes."""
    scopes = {scope: (_token(scope).writes, _token(scope).editor_powers) for scope in tokens.SCOPES}
    assert scopes == {tokens.READ: (False, True), tokens.READ_WRITE: (True, True), tokens.MEMBER: (True, False)}


def test_a_token_forms_lifetime_is_days_or_none_until_revoked():
    for value, _ in LIFETIMES:
        form = TokenForm(data={"name": "script", "lifetime": value})
        assert form.is_valid() and form.cleaned_data["lifetime"] == (int(value) if value else None)
    assert not TokenForm(data={"name": "script", "lifetime": "7"}).is_valid()
    assert not TokenForm(data={"name": "", "lifetime": "30"}).is_valid()


def test_a_member_is_one_voter_whatever_sends_the_vote():
    assert voters.member_key(7) == voters.key_for(user_id=7, token="a" * 32) == "u:7"
