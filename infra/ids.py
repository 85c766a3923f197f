"""The one parser of MongoDB ids that come from outside (URLs, forms, cookies,
cursors): `parse_id` gives the ObjectId a value spells, or None for anything else.

Only an ObjectId or its 24 hexadecimal digits is an id. bson's ObjectId() is not a
parser: given None it makes a fresh id, and any 12 bytes pass as one.
"""

from __future__ import annotations

import re

from bson import ObjectId

HEX_ID = re.compile(r"[0-9a-fA-F]{24}")


def parse_id(value: object) -> ObjectId | None:
    """The ObjectId `value` is or spells (24 hexadecimal digits, either case); None for
    anything else: another type, another length, other characters, None itself."""
    if isinstance(value, ObjectId):
        return value
    if isinstance(value, str) and HEX_ID.fullmatch(value):
        return ObjectId(value)
    return None
