"""`evolved`: what `dataclasses.replace` returns for a frozen record, made cheaply;
`made`: what the record's class returns given every field, made as cheaply.

`replace` looks every field up again and runs the frozen `__init__`, which sets each
field through `object.__setattr__`: tens of microseconds for a record of twenty
fields. A reader's page of comments copies a record or two per comment (what it may
show, the name of the comment a reply answers, its collapsible replies), so those
copies were a large part of what placing a page cost; so were the records it reads
(`Comment.from_doc`, fifty-one a page). Pure.
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")


def evolved(record: T, **changes: Any) -> T:
    """`record` with `changes`, as `dataclasses.replace(record, **changes)` for a frozen
    dataclass with no `__post_init__` and no init-only fields: a copy of its fields
    (nothing else is run), TypeError for a name that is not one of its fields."""
    fields = getattr(type(record), "__dataclass_fields__")  # AttributeError: not a dataclass
    if not changes.keys() <= fields.keys():
        unknown = changes.keys() - fields.keys()
        raise TypeError(f"{type(record).__name__} has no field {', '.join(sorted(unknown))}")
    copy = object.__new__(type(record))
    # Set before anyone sees the copy, as the frozen __init__ itself sets its fields.
    copy.__dict__.update(record.__dict__, **changes)
    return copy


def made(kind: type[T], **fields: Any) -> T:
    """`kind(**fields)` for a frozen dataclass with no `__post_init__` and no init-only
    fields, given every one of its fields (its defaults are not filled in): their
    values set and nothing else run; TypeError unless `fields` names exactly its fields."""
    names = getattr(kind, "__dataclass_fields__")  # AttributeError: not a dataclass
    if fields.keys() != names.keys():
        wrong = sorted(fields.keys() ^ names.keys())
        raise TypeError(f"{kind.__name__} is made of every one of its fields: {', '.join(wrong)}")
    record = object.__new__(kind)
    record.__dict__.update(fields)
    return record
