"""The ranking keys that votes give a comment: pure arithmetic, no I/O.

The best view ranks by the lower bound of the Wilson score interval of a comment's
up and down votes (Evan Miller, "How Not To Sort By Average Rating"): the share of
readers who would vote it up, as low as it plausibly is given how few voted. One
up vote ranks below ninety up and ten down; no votes rank 0.
"""

from __future__ import annotations

import math

# The normal quantile of a 95% confidence interval.
Z = 1.959963984540054
VALUES = {"up": 1, "down": -1, "none": 0}


def wilson_lower_bound(up: int, down: int) -> float:
    """The lower bound of the 95% Wilson score interval of up / (up + down); 0 for none."""
    n = up + down
    if n <= 0 or up <= 0:
        return 0.0
    p = up / n
    z2 = Z * Z
    centre = p + z2 / (2 * n)
    spread = Z * math.sqrt((p * (1 - p) + z2 / (4 * n)) / n)
    return max(0.0, (centre - spread) / (1 + z2 / n))


def tallies_of(value: int) -> tuple[int, int]:
    """The (up, down) a single vote of `value` (1, -1 or 0) adds."""
    return (1 if value > 0 else 0, 1 if value < 0 else 0)


def change_of(before: int, after: int) -> tuple[int, int]:
    """How a reader's vote moving from `before` to `after` moves the (up, down) tallies."""
    old, new = tallies_of(before), tallies_of(after)
    return (new[0] - old[0], new[1] - old[1])
