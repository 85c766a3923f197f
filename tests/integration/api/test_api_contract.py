"""The contract: the OpenAPI document is well formed, and every documented endpoint
answers, for any parameters and bodies (hypothesis), as the document says (status,
content type, body schema, headers: tests/openapi_contract.py); never a 500."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings as hypothesis_settings, strategies as st

from api.reference import METHODS
from tests.openapi_contract import Contract

pytestmark = pytest.mark.usefixtures("each_store")

QUERY = st.one_of(st.none(), st.text(max_size=40), st.sampled_from(["threaded", "newest", "chronological", "1", "0",
                                                                    "-1", "99999999999999999999"]))


def document() -> dict:
    response = Client().get("/api/v1/openapi.json")
    assert response.status_code == 200
    return json.loads(response.content)


def refs(node) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [ref for value in node.values() for ref in refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in refs(value)]
    return []


def test_the_document_is_openapi_3_1_and_whole():
    doc = document()
    assert doc["openapi"].startswith("3.1")
    assert doc["info"]["title"] and doc["info"]["version"] == "1"
    for ref in refs(doc):
        kind, _, name = ref.removeprefix("#/components/").partition("/")
        assert ref.startswith("#/components/") and name in doc["components"][kind], ref
    ids = []
    for path, item in doc["paths"].items():
        assert path.startswith("/api/v1/")
        for name in re.findall(r"{(\w+)}", path):
            for method in METHODS:
                if method in item:
                    params = [p["name"] for p in item[method].get("parameters", []) if p["in"] == "path"]
                    assert name in params
        for method, operation in item.items():
            assert method in METHODS
            assert operation["responses"] and operation["summary"]
            ids.append(operation["operationId"])
    assert len(ids) == len(set(ids))
    reference = Client().get("/api/v1/reference/")
    assert reference.status_code == 200
    for path, item in doc["paths"].items():
        assert path.encode() in reference.content


@pytest.fixture
def contract() -> Contract:
    """The document as the server answers it now, fetched once for all of a test's
    examples (it is made anew on each request; no example changes a setting it reads)."""
    return Contract(document())


@pytest.fixture
def discussion(make_post, make_comment):
    """Made once for all of a test's examples (hypothesis runs them in one test)."""
    post = make_post()
    first = make_comment(post)
    make_comment(post, parent_slug=first.slug)
    return post, first


@hypothesis_settings(max_examples=20, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_every_read_answers_as_documented(discussion, contract, data):
    post, first = discussion
    doc = contract.doc
    for path, item in doc["paths"].items():
        operation = item.get("get")
        if operation is None:
            continue
        values = {"post_slug": data.draw(st.sampled_from([post.slug, "no-such-post", "x" * 300])),
                  "comment_path": data.draw(st.sampled_from([first.slug, "zzzzzzzz", "a/b", "%2e%2e"]))}
        url = re.sub(r"{(\w+)}", lambda m: values[m.group(1)], path)
        query = {}
        for param in operation.get("parameters", []):
            if param["in"] == "query":
                value = data.draw(QUERY)
                if value is not None:
                    query[param["name"]] = value
        response = Client().get(url, query)
        contract.check(response, method="get", path=path)
        if response.status_code >= 400:
            body = json.loads(response.content)
            assert body["status"] == response.status_code and body["detail"]


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=6)
BODY = st.one_of(JSON, st.fixed_dictionaries({}, optional={
    "text": JSON | st.text(max_size=30), "parent": JSON | st.just(""), "reason": st.sampled_from(["spam", "rude"]) | JSON,
    "note": JSON | st.text(max_size=10),
}))


@pytest.fixture
def writer(discussion, make_user, settings):
    from api import tokens

    settings.COMMENTS_RATE_PER_IP = settings.COMMENTS_RATE_PER_USER = 0
    settings.API_RATE_PER_IP = settings.API_RATE_PER_TOKEN = 0
    user = make_user("writer", role="reader")
    return tokens.create_token(user_id=user.pk, name="contract", scope=tokens.READ_WRITE, created_by="test")[1]


@hypothesis_settings(max_examples=20, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_every_write_answers_as_documented(discussion, writer, contract, data):
    """Any JSON body to every documented write: a documented status, a problem for a refusal."""
    post, first = discussion
    doc = contract.doc
    for path, item in doc["paths"].items():
        for method in ("post", "patch", "delete"):
            operation = item.get(method)
            if operation is None or "moderation" in path:
                continue
            url = re.sub(r"{(\w+)}", lambda m: {"post_slug": post.slug, "comment_path": first.slug}[m.group(1)], path)
            body = data.draw(BODY)
            response = getattr(Client(), method)(url, data=json.dumps(body), content_type="application/json",
                                                 HTTP_AUTHORIZATION=f"Bearer {writer}")
            contract.check(response, method=method, path=path)
