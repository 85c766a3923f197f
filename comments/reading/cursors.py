"""Signed page cursors: the key of a page's edge comment, for keyset paging.

A cursor names its view and discussion and is signed with the site's key, so a
tampered cursor, or one carried over from another discussion or view, is refused
instead of reaching a query. A listing that is no view of a discussion and numbers no
pages (a member's comments: comments/reading/members.py) signs its key the same way
(`encode_key`, `decode_key`), named by its own scope.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core import signing
from django.utils.translation import gettext, gettext_noop

from infra.ids import parse_id
from comments.records import ORDERS

SALT = "comments.cursor"
BAD_CURSOR = gettext_noop("This page link is damaged or belongs to another page. Start again from the first page.")


class BadCursor(Exception):
    pass


@dataclass(frozen=True)
class Cursor:
    key: tuple
    # The page number the cursor leads to, for the numbered page links.
    page: int


def _encode_value(field: str, value: Any) -> Any:
    if field == "_id":
        return str(value)
    if field == "posted":
        return value.isoformat()
    return value


def _decode_value(field: str, value: object) -> Any:
    if not isinstance(value, str):
        raise BadCursor(gettext(BAD_CURSOR))
    if field == "_id":
        oid = parse_id(value)
        if oid is None:
            raise BadCursor(gettext(BAD_CURSOR))
        return oid
    if field == "posted":
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            raise BadCursor(gettext(BAD_CURSOR)) from None
    return value


def _values(fields: list[str], key: tuple) -> list[Any]:
    return [_encode_value(f, v) for f, v in zip(fields, key)]


def _load(token: str, *, view: str | None, scope: str, fields: list[str]) -> dict:
    """The signed data in `token` if it is a cursor of `view` (None: of a listing that
    is no view) in `scope` with a value for each of `fields`; BadCursor otherwise."""
    try:
        data = signing.loads(token, salt=SALT)
    except signing.BadSignature:
        raise BadCursor(gettext(BAD_CURSOR)) from None
    if (
        not isinstance(data, dict) or data.get("v") != view or data.get("s") != scope
        or not isinstance(data.get("k"), list) or len(data["k"]) != len(fields)
    ):
        raise BadCursor(gettext(BAD_CURSOR))
    return data


def _key(fields: list[str], values: list[object]) -> tuple:
    return tuple(_decode_value(f, v) for f, v in zip(fields, values))


def encode(*, view: str, scope: str, key: tuple, page: int) -> str:
    """A URL-safe token for `key` in `view` of `scope` (a discussion or sub-thread)."""
    fields = [field for field, _ in ORDERS[view]]
    return signing.dumps({"v": view, "s": scope, "k": _values(fields, key), "p": page}, salt=SALT, compress=True)


def decode(token: str, *, view: str, scope: str) -> Cursor:
    """The cursor in `token`, or BadCursor if it was altered or is for another page."""
    fields = [field for field, _ in ORDERS[view]]
    data = _load(token, view=view, scope=scope, fields=fields)
    if type(data.get("p")) is not int or data["p"] < 1:
        raise BadCursor(gettext(BAD_CURSOR))
    return Cursor(key=_key(fields, data["k"]), page=data["p"])


def encode_key(*, order: Sequence[tuple[str, int]], scope: str, key: tuple) -> str:
    """A URL-safe token for `key` (of `order`) in a listing named `scope` that is no
    view of a discussion and numbers no pages."""
    fields = [field for field, _ in order]
    return signing.dumps({"s": scope, "k": _values(fields, key)}, salt=SALT, compress=True)


def decode_key(token: str, *, order: Sequence[tuple[str, int]], scope: str) -> tuple:
    """The key in a token of `encode_key`; BadCursor if it was altered or is another
    listing's (a view's cursor included)."""
    fields = [field for field, _ in order]
    return _key(fields, _load(token, view=None, scope=scope, fields=fields)["k"])
