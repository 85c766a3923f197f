"""The API's reference page: the OpenAPI document rendered on the server, in the
site's layout and under its Content Security Policy (no script, no CDN)."""

from __future__ import annotations

from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from api.v1 import api

METHODS = ("get", "post", "patch", "put", "delete")


def operations(document: dict) -> list[dict]:
    """Every operation of an OpenAPI document, in path order: method, path, summary,
    description, parameters and the statuses it answers with."""
    found = []
    for path, item in document.get("paths", {}).items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            found.append({
                "method": method.upper(), "path": path, "summary": operation.get("summary", ""),
                "description": operation.get("description", ""),
                "parameters": [
                    {"name": p["name"], "in": p["in"], "required": p.get("required", False),
                     "description": p.get("description", "")}
                    for p in operation.get("parameters", [])
                ],
                "body": "requestBody" in operation,
                "auth": bool(operation.get("security")),
                "statuses": sorted(operation.get("responses", {})),
            })
    return found


@require_http_methods(["GET", "HEAD"])
def reference(request):
    root = reverse("api:api-root")
    document = api.get_openapi_schema(path_prefix=root)
    context = {"operations": operations(document), "openapi_url": reverse("api:openapi-json"),
               "version": document["info"]["version"], "openapi": document["openapi"]}
    return render(request, "api/reference.html", context)
