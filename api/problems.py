"""Errors as RFC 9457 problem details: `application/problem+json` with `status`,
`title`, `detail` (the very sentence the HTML forms and pages show, in the reader's
language), a machine-readable `code` and, for a refused field, `errors`."""

from __future__ import annotations

from typing import Any

from django.http import JsonResponse
from django.utils.translation import gettext_lazy as _

CONTENT_TYPE = "application/problem+json"
# The title of each status: short, the same for every problem of that status.
TITLES = {
    400: _("Bad request"),
    401: _("Not signed in"),
    403: _("Not allowed"),
    404: _("Not found"),
    405: _("Method not allowed"),
    413: _("Request too large"),
    429: _("Too many requests"),
    503: _("Unavailable"),
}


def problem(
    status: int, detail: str, *, code: str = "", errors: list[dict[str, str]] | None = None,
    retry_after: int | None = None,
) -> JsonResponse:
    """A problem details response; `Retry-After` for a 429 or 503 that will pass."""
    body: dict[str, Any] = {"type": "about:blank", "title": str(TITLES.get(status, "")), "status": status,
                            "detail": str(detail)}
    if code:
        body["code"] = code
    if errors:
        body["errors"] = errors
    response = JsonResponse(body, status=status, content_type=CONTENT_TYPE,
                            json_dumps_params={"ensure_ascii": False})
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


def form_errors(form) -> list[dict[str, str]]:
    """A refused Django form's errors, one entry per message, in the form's own words
    (`field` is null for the form as a whole)."""
    found = []
    for field, errors in form.errors.get_json_data().items():
        for error in errors:
            found.append({"field": None if field == "__all__" else field, "message": error["message"],
                          "code": error["code"] or "invalid"})
    return found


class Refused(Exception):
    """A request the forms, services or the API's checks refused: answered as a problem
    with their words."""

    def __init__(self, status: int, detail: str, *, code: str, errors: list | None = None,
                 retry_after: int | None = None):
        super().__init__(detail)
        self.status, self.detail, self.code, self.errors, self.retry_after = status, detail, code, errors, retry_after
