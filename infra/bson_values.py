"""BSON values as the server compares them: type classes (brackets), equality and
milliseconds. Pure: no I/O; infra/matching.py's filters are built on it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from bson import ObjectId

# A path that reaches nothing (sorted and compared as null).
MISSING = object()

_EPOCH = datetime(1970, 1, 1)
_EPOCH_UTC = _EPOCH.replace(tzinfo=UTC)
_MILLISECOND = timedelta(milliseconds=1)
NULL, NUMBER, STRING, DOCUMENT, ARRAY, OBJECT_ID, BOOLEAN, DATE, OTHER = range(9)


def bracket(value: Any) -> int:
    """The BSON type class of a value (what may be compared with what)."""
    known = _BRACKETS.get(type(value))
    if known is not None:
        return known
    if value is MISSING:
        return NULL
    return next((kind for kind, of in _SUBCLASSES if isinstance(value, of)), OTHER)


# Subclasses (Int64, a Mapping that is not a dict), in the order that tells bool from int.
_SUBCLASSES: tuple[tuple[int, type | tuple[type, ...]], ...] = (
    (BOOLEAN, bool), (NUMBER, (int, float)), (STRING, str), (DOCUMENT, Mapping), (ARRAY, (list, tuple)),
    (OBJECT_ID, ObjectId), (DATE, datetime))
_BRACKETS = {type(None): NULL, bool: BOOLEAN, int: NUMBER, float: NUMBER, str: STRING, dict: DOCUMENT,
             list: ARRAY, tuple: ARRAY, ObjectId: OBJECT_ID, datetime: DATE}


def millis(value: datetime) -> int:
    """A datetime as BSON keeps it: UTC (a naive one taken as UTC), to the millisecond."""
    return (value - (_EPOCH if value.tzinfo is None else _EPOCH_UTC)) // _MILLISECOND


def same(a: Any, b: Any) -> bool:
    """BSON equality: same type class and value; documents field by field in order."""
    kind = bracket(a)
    if kind != bracket(b) or kind == OTHER:
        return False
    if kind == NULL:
        return a is None and b is None
    if kind == NUMBER:
        return (math.isnan(a) and math.isnan(b)) if is_nan(a) or is_nan(b) else a == b
    if kind == DATE:
        return millis(a) == millis(b)
    if kind == DOCUMENT:
        return len(a) == len(b) and all(
            ka == kb and same(va, vb) for (ka, va), (kb, vb) in zip(a.items(), b.items()))
    if kind == ARRAY:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)
