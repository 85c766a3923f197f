"""The API's reference page: the OpenAPI document rendered on the server, in the
site's layout and under its Content Security Policy (no script, no CDN)."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote, urlencode

from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from api.v1 import api
from comments.api import EMPTY_TEXT

METHODS = ("get", "post", "patch", "put", "delete")
# A problem as every error answers (the example the page shows once).
PROBLEM_EXAMPLE = {"type": "about:blank", "title": "Bad request", "status": 400,
                   "detail": EMPTY_TEXT, "code": "required",
                   "errors": [{"field": "text", "message": EMPTY_TEXT, "code": "required"}]}


def _resolved(document: dict, node: dict) -> dict:
    """`node`, or what its `$ref` names in `document`."""
    ref = node.get("$ref", "")
    if not ref.startswith("#/"):
        return node
    for part in ref[2:].split("/"):
        document = document.get(part, {})
    return document


def _example_request(method: str, path: str, parameters: list[dict]) -> str:
    """The operation's request line with each parameter's example filled in."""
    examples = {p["name"]: p["example"] for p in parameters if "example" in p}
    line = re.sub(r"{(\w+)}", lambda m: quote(str(examples.get(m.group(1), m.group(0))), safe="/"), path)
    query = [(p["name"], p["example"]) for p in parameters if p["in"] == "query" and "example" in p]
    return f"{method} {line}" + (f"?{urlencode(query)}" if query else "")


def _example_body(document: dict, operation: dict) -> str:
    content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    schema = _resolved(document, content.get("schema", {}))
    examples = schema.get("examples") or []
    return json.dumps(examples[0], indent=2, ensure_ascii=False) if examples else ""


def operations(document: dict) -> list[dict[str, Any]]:
    """Every operation of an OpenAPI document, in path order: method, path, summary,
    description, parameters, an example request and the statuses it answers with."""
    found = []
    for path, item in document.get("paths", {}).items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            parameters = operation.get("parameters", [])
            found.append({
                "method": method.upper(), "path": path, "summary": operation.get("summary", ""),
                "description": operation.get("description", ""),
                "parameters": [
                    {"name": p["name"], "in": p["in"], "required": p.get("required", False),
                     "description": p.get("description", ""), "example": p.get("example", "")}
                    for p in parameters
                ],
                "example": _example_request(method.upper(), path, parameters),
                "body": "requestBody" in operation,
                "body_example": _example_body(document, operation),
                "auth": bool(operation.get("security")),
                "statuses": sorted(operation.get("responses", {})),
            })
    return found


@csrf_exempt  # it only reads: a POST is a 405 problem, not the HTML CSRF page
@require_http_methods(["GET", "HEAD"])
def reference(request):
    root = reverse("api:api-root")
    document = api.get_openapi_schema(path_prefix=root)
    context = {"operations": operations(document), "openapi_url": reverse("api:openapi-json"),
               "version": document["info"]["version"], "openapi": document["openapi"],
               "problem_example": json.dumps(PROBLEM_EXAMPLE, indent=2)}
    return render(request, "api/reference.html", context)
