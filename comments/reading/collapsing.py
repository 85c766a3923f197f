"""Which comments of a page can be collapsed with their replies: each comment whose
replies follow it on the page gets a control (a `<details>` around those replies,
comments/templates/comments/includes/list.html) saying how many it hides, and the
page closes each such group after its last reply. The count is of the replies drawn
on this page below the comment, at every depth (a reply on another page or behind
"Continue this thread" is not counted). Pure functions; no store, no request."""

from __future__ import annotations

from comments import slugs
from comments.reading.listings import Shown
from infra.frozen import evolved


def mark_branches(shown: list[Shown], *, view: str) -> list[Shown]:
    """`shown` with each comment's `replies_here` (its replies that follow it on the
    page, at every depth) and `closes` (how many such groups end after it). The
    chronological view draws no threads: nothing to collapse."""
    if view == "chronological":
        return shown
    counts = [0] * len(shown)
    closes = [0] * len(shown)
    for index, item in enumerate(shown):
        prefix = item.comment.slug + slugs.SEPARATOR
        end = index
        while end + 1 < len(shown) and shown[end + 1].comment.slug.startswith(prefix):
            end += 1
        if end > index:
            counts[index] = end - index
            closes[end] += 1
    return [evolved(item, replies_here=count, closes=close) if count or close else item
            for item, count, close in zip(shown, counts, closes)]
