"""Walking a discussion's buckets by position (comments/stores/buckets.py, whose
chronological page by position cuts each slice it takes with a `$slice` projection):
which slices the pattern's skip and limit take, and whether the buckets may be walked
at all. Pure functions of the buckets' heads."""

from __future__ import annotations

import itertools
from collections.abc import Sequence


def walk(*, counts: Sequence[int], skip: int, limit: int) -> list[tuple[int, int, int]]:
    """The pattern's skip/limit across buckets: walking the buckets in page order,
    each slice to take as (bucket index, start, stop). A bucket's count comes off
    `skip` (not below 0) and what is taken off `limit`, until `limit` is spent."""
    slices = []
    for index, count in enumerate(counts):
        if limit <= 0:
            break
        if skip >= count:
            skip -= count
            continue
        take = min(count - skip, limit)
        slices.append((index, skip, skip + take))
        skip, limit = 0, limit - take
    return slices


def in_posting_order(heads: Sequence[dict]) -> bool:
    """Whether buckets (their heads, in page order) hold the discussion's comments in
    posting order: each is `ordered` (kept sorted since it was created) and its last
    comment was posted strictly before the next bucket's first. An empty bucket (a
    page created a moment before its first push) holds nothing out of order."""
    heads = [h for h in heads if h.get("count")]
    if not all(h.get("ordered") is True and "first" in h and "last" in h for h in heads):
        return False
    return all(a["last"] < b["first"] for a, b in itertools.pairwise(heads))
