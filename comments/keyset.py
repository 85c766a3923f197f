"""Keyset ("cursor") pagination filters: pure functions, no I/O.

An order is a list of (field, direction) pairs whose last field makes every key
unique. The page after a key is what sorts strictly after it in that order; the
page before a key is read in the reversed order and flipped back. Deep pages then
cost as much as the first: no `skip`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Order = Sequence[tuple[str, int]]


def reverse(order: Order) -> list[tuple[str, int]]:
    """The same order, backwards."""
    return [(field, -direction) for field, direction in order]


def after(order: Order, key: Sequence[Any]) -> dict:
    """A filter for the documents that sort strictly after `key` in `order`."""
    if len(key) != len(order):
        raise ValueError("a key needs one value per field of the order")
    branches = []
    for i, (field, direction) in enumerate(order):
        branch = {f: v for (f, _), v in zip(order[:i], key[:i])}
        branch[field] = {"$gt" if direction > 0 else "$lt": key[i]}
        branches.append(branch)
    return branches[0] if len(branches) == 1 else {"$or": branches}


def before(order: Order, key: Sequence[Any]) -> dict:
    """A filter for the documents that sort strictly before `key` in `order`."""
    return after(reverse(order), key)
