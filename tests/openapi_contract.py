"""Answers checked against the API's OpenAPI document with jsonschema (Draft 2020-12,
the dialect of OpenAPI 3.1): the status is one the operation documents, the content
type is the documented one (none at all for an answer without a body), the body
validates against its schema, and every required header is there."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client
from jsonschema import Draft202012Validator

BASE = "urn:slugline:openapi"


def document() -> dict[str, Any]:
    response = Client().get("/api/v1/openapi.json")
    assert response.status_code == 200, response.status_code
    return json.loads(response.content)


class Contract:
    def __init__(self, doc: dict[str, Any] | None = None):
        self.doc = doc or document()
        # One validator per schema of the document (by identity; the document is not
        # changed): a new one per check would resolve its references anew each time.
        self._validators: dict[int, tuple[dict[str, Any], Draft202012Validator]] = {}

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        """`node`, or what its `$ref` names in the document."""
        ref = node.get("$ref", "")
        if not ref.startswith("#/"):
            return node
        found: Any = self.doc
        for part in ref[2:].split("/"):
            found = found[part]
        return found

    def validator(self, schema: dict[str, Any]) -> Draft202012Validator:
        """A validator of `schema` whose `#/components/...` references name the document's."""
        kept = self._validators.get(id(schema))
        if kept is None or kept[0] is not schema:
            kept = schema, Draft202012Validator({"$id": BASE, "components": self.doc["components"], "allOf": [schema]})
            self._validators[id(schema)] = kept
        return kept[1]

    def valid(self, schema: dict[str, Any], value: Any) -> bool:
        return self.validator(schema).is_valid(value)

    def operation(self, method: str, path: str) -> dict[str, Any]:
        return self.doc["paths"][path][method.lower()]

    def parameter(self, method: str, path: str, name: str) -> dict[str, Any]:
        (found,) = [p for p in self.operation(method, path).get("parameters", []) if p["name"] == name]
        return found

    def body_schema(self, method: str, path: str) -> dict[str, Any]:
        return self.operation(method, path)["requestBody"]["content"]["application/json"]["schema"]

    def check(self, response, *, method: str, path: str) -> None:
        """Fail unless `response` to `method` on the documented `path` is as the document says."""
        documented = self.operation(method, path)["responses"]
        status = str(response.status_code)
        assert status in documented, (method, path, status, response.content[:300])
        answer = self.resolve(documented[status])
        kind = response.get("Content-Type")
        content = answer.get("content")
        if not content:
            assert not response.content and kind is None, (method, path, status, kind, response.content[:100])
        else:
            media = (kind or "").split(";")[0].strip()
            assert media in content, (method, path, status, kind, list(content))
            body = json.loads(response.content)
            errors = [e.message for e in self.validator(content[media]["schema"]).iter_errors(body)]
            assert not errors, (method, path, status, errors[:3])
        for name, header in answer.get("headers", {}).items():
            if header.get("required"):
                assert response.get(name), (method, path, status, name)
                assert self.valid(header["schema"], int(response[name]) if header["schema"].get("type") == "integer"
                                  else response[name]), (method, path, status, name, response[name])
