"""The API's request bodies read as JSON text (django-ninja's parser, api/v1.py): UTF-8
that decodes, JSON that parses, and strings that are text. JSON's `\\ud800` escapes
(and UTF-8 bytes of a surrogate) carry half of a character, a lone surrogate, that
nothing after them can store or send; any string holding one, a value or a key at
any depth, is refused with a 400 problem naming its field, never a 500."""

from __future__ import annotations

import json
import re
from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext, gettext_noop
from ninja.parser import Parser

from api.problems import Refused

NOT_UTF8 = gettext_noop("The request body is not UTF-8 text (byte {position}).")
NOT_JSON = gettext_noop("The request body is not JSON (line {line}, column {column}).")
LONE_SURROGATE = gettext_noop(
    "{field} holds half of a character (the lone surrogate {code}), which is not text: send whole characters."
)
SURROGATE = re.compile("[\ud800-\udfff]")


class JsonParser(Parser):
    """django-ninja's JSON parser with its failures said (its own says "Cannot parse
    request body" for every one, and lets lone surrogates through)."""

    def parse_body(self, request: HttpRequest) -> Any:
        try:
            text = request.body.decode("utf-8", "surrogatepass")  # Surrogates are named below.
        except UnicodeDecodeError as exc:
            raise Refused(400, gettext(NOT_UTF8).format(position=exc.start), code="not_utf8") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise Refused(400, gettext(NOT_JSON).format(line=exc.lineno, column=exc.colno), code="not_json") from None
        found = lone_surrogate(data)
        if found is not None:
            field, code = found
            message = gettext(LONE_SURROGATE).format(field=field, code=code)
            raise Refused(400, message, code="lone_surrogate",
                          errors=[{"field": field, "message": message, "code": "lone_surrogate"}])
        return data


def lone_surrogate(value: Any, path: str = "") -> tuple[str, str] | None:
    """The first string of a parsed JSON document holding a surrogate: (its field, named
    as the API's problems name fields, "text" or "a.0.b", a key shown escaped; the
    surrogate, "U+D800"), or None when every string is text."""
    if isinstance(value, str):
        code = _surrogate(value)
        return (path or "body", code) if code else None
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        name = f"{path}.{_shown(key)}" if path else _shown(key)
        code = _surrogate(key) if isinstance(key, str) else None
        found = (name, code) if code else lone_surrogate(item, name)
        if found is not None:
            return found
    return None


def _surrogate(text: str) -> str | None:
    """The first surrogate in `text`, as "U+D800"."""
    found = SURROGATE.search(text)
    return f"U+{ord(found.group()):04X}" if found else None


def _shown(key: object) -> str:
    """A key as a field's name can show it: a surrogate written as its escape."""
    return str(key).encode("utf-8", "backslashreplace").decode("utf-8")
