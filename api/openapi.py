"""The OpenAPI document as the server answers, not only as the type hints say.

django-ninja describes each endpoint from its signature and schemas; `finish` adds
what hints cannot say and the server does: errors are `application/problem+json`
(one shared response per status, 429 and 503 with `Retry-After`, 405 with `Allow`,
413 on writes), a 204 has no body, each parameter has its description, example and
the bounds its check holds it to (an empty `posts=`, `page=` or `text` is refused, so
the document refuses it too), and the enums the registry holds now (views, flag
reasons, tabs). Made on each request for the document: a setting or a view added
shows at once.
"""

from __future__ import annotations

from typing import Any

from api import conf as api_conf
from comments.rest import FLAG_REASONS, NOTE_MAX_LENGTH, QUEUE_TABS, VIEWS, VOTE_CHOICES, comment_settings

PROBLEM = "application/problem+json"
METHODS = ("get", "post", "patch", "put", "delete")
WRITES = ("post", "patch", "put", "delete")
# A page number as infra.pagination reads it: 1 to 9 digits, not zero.
PAGE_PATTERN = "^0*[1-9][0-9]{0,8}$"
# At least one character that is not white space (the forms strip it, then refuse an empty value).
NOT_BLANK = r"\S"
# The moderation actions of /moderation/comments/{id}/{action} (api/moderating.py).
ACTIONS = ("approve", "spam", "delete")

STATUSES = {
    400: "Refused: the detail says why (a form's message, a malformed page or cursor).",
    401: "Not signed in, or the API token is unknown, revoked or expired.",
    403: "Not allowed: a read-only token, another's comment, a closed discussion, a ban, a vote on your own comment.",
    404: "No such post, comment, page or address.",
    405: "This address does not take this method: `Allow` lists those it takes.",
    413: "The request body is larger than API_MAX_BODY_BYTES.",
    429: "Too many requests: wait `Retry-After` seconds.",
    503: "The database is not answering, or comments are moving between stores: try again after `Retry-After` seconds.",
}
RETRY_AFTER = {"description": "Seconds to wait before trying again.", "required": True,
               "schema": {"type": "integer", "minimum": 0}}
ALLOW = {"description": "The methods this address takes.", "required": True, "schema": {"type": "string"}}


def parameters() -> dict[str, dict[str, Any]]:
    """What each parameter means, by name (the same name means the same everywhere):
    its description, example and the bounds the server holds it to."""
    cursor = {"type": "string"}
    return {
        "post_slug": {"description": "The post's slug, as in its address on the site.",
                      "schema": {"type": "string", "minLength": 1, "maxLength": 80, "pattern": "^[^/]+$"},
                      "example": "hello-world"},
        "comment_path": {"description": "The comment's slug path: its slug after each ancestor's, joined by '/'.",
                         "schema": {"type": "string", "minLength": 1}, "example": "k3x9q2ab/m4p7w1zc"},
        "view": {"description": "The order to list in: one of the discussion's `views` (empty: the site's default).",
                 "schema": {"type": "string", "enum": ["", *VIEWS]}, "example": "threaded"},
        "page": {"description": "The page number, from 1 (1 when absent). Past the last page: 404.",
                 "schema": {"type": "string", "pattern": PAGE_PATTERN}, "example": "2"},
        "after": {"description": "The page after the one whose `next` cursor this is (empty: as if absent).",
                  "schema": cursor},
        "before": {"description": "The page before the one whose `prev` cursor this is (empty: as if absent).",
                   "schema": cursor},
        "posts": {"description": "Post slugs separated by commas, at most API_COUNTS_MAX of them.",
                  "schema": {"type": "string", "minLength": 1, "pattern": "[^,\\s]"},
                  "example": "hello-world,second-post"},
        "tab": {"description": "The queue's tab, as on the dashboard.", "schema": {"type": "string", "enum":
                list(QUEUE_TABS)}, "example": "pending"},
        "comment_id": {"description": "The comment's id (24 hexadecimal digits), as the queue lists it.",
                       "schema": {"type": "string"}, "example": "6650b1f0c0ffee0000000001"},
        "action": {"description": "What the queue's button does: approve (also clears its flags), spam or delete.",
                   "schema": {"type": "string", "enum": list(ACTIONS)}, "example": "approve"},
    }


def _bodies(schemas: dict[str, Any]) -> None:
    """The request bodies' bounds that settings decide, and the flag reasons."""
    limit = comment_settings().max_length
    for name in ("NewComment", "CommentEdit"):
        text = schemas.get(name, {}).get("properties", {}).get("text")
        if text is not None:
            text.update(minLength=1, maxLength=limit, pattern=NOT_BLANK)
    flag = schemas.get("FlagIn", {}).get("properties", {})
    if "reason" in flag:
        flag["reason"].update(enum=list(FLAG_REASONS), description="Why: " + "; ".join(
            f"{key}: {label}" for key, label in FLAG_REASONS.items()) + ".")
    if "note" in flag:
        flag["note"]["maxLength"] = NOTE_MAX_LENGTH
    vote = schemas.get("VoteIn", {}).get("properties", {}).get("vote")
    if vote is not None:
        vote["enum"] = list(VOTE_CHOICES)
    cast = schemas.get("VoteOut", {}).get("properties", {}).get("vote")
    if cast is not None:
        cast["enum"] = list(VOTE_CHOICES)
    for name in ("ViewOut", "PageOut"):
        field = schemas.get(name, {}).get("properties", {}).get("name" if name == "ViewOut" else "view")
        if field is not None:
            field["enum"] = list(VIEWS)


def _shared_responses() -> dict[str, Any]:
    """One problem response per error status, for every operation to refer to."""
    found = {}
    for status, text in STATUSES.items():
        response: dict[str, Any] = {"description": text, "content": {
            PROBLEM: {"schema": {"$ref": "#/components/schemas/ProblemOut"}}}}
        if status in (429, 503):
            response["headers"] = {"Retry-After": RETRY_AFTER}
        if status == 405:
            response["headers"] = {"Allow": ALLOW}
        found[f"Problem{status}"] = response
    return found


def _operation(method: str, operation: dict[str, Any], known: dict[str, dict[str, Any]]) -> None:
    responses = {str(status): response for status, response in operation["responses"].items()}
    for status in list(responses):
        if int(status) >= 400:
            responses[status] = {"$ref": f"#/components/responses/Problem{status}"}
        elif int(status) in (204, 304):
            responses[status].pop("content", None)
    extra = [405, 429, 503] + ([413] if method in WRITES else [])
    for status in extra:
        responses.setdefault(str(status), {"$ref": f"#/components/responses/Problem{status}"})
    operation["responses"] = dict(sorted(responses.items()))
    for param in operation.get("parameters", []):
        meaning = known.get(param["name"])
        if meaning is not None:
            param.update(description=meaning["description"], schema=dict(meaning["schema"]))
            if "example" in meaning:
                param["example"] = meaning["example"]


def finish(document: dict[str, Any]) -> dict[str, Any]:
    """`document` (ninja's) made to say what the server does."""
    known = parameters()
    for item in document.get("paths", {}).values():
        for method, operation in item.items():
            if method in METHODS:
                _operation(method, operation, known)
    components = document.setdefault("components", {})
    _bodies(components.setdefault("schemas", {}))
    components["responses"] = _shared_responses()
    document["info"]["description"] += (
        f" Errors are RFC 9457 problems ({PROBLEM}). A request body larger than "
        f"{api_conf.get().max_body_bytes} bytes is refused with 413 before it is read."
    )
    return document
