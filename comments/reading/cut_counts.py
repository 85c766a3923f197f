"""How many replies wait behind a "Continue this thread" link, counted among the
comments a page read anyway: a comment's replies follow it in every view that cuts
threads, so they are all on the page when the comment after the page is not one of
them, and the page's link says how many without a query (comments/reading/
thread_cuts.py asks the store about the others). Pure: records in, a number out."""

from __future__ import annotations

from comments.records import Comment, Viewer
from comments.slugs import SEPARATOR


def replies_on_page(slug: str, comments: list[Comment], *, next_slug: str | None, viewer: Viewer) -> int:
    """The replies below the comment `slug` among a page's `comments` (drawn or not),
    as the store's tally below it counts them for `viewer` (placeholders left out), if
    they are all there: the comment after the page (`next_slug`; None: there is none)
    is not one of them. 0 when some may lie beyond (the store counts those)."""
    prefix = slug + SEPARATOR
    if next_slug is not None and next_slug.startswith(prefix):
        return 0
    return sum(1 for c in comments
               if c.slug.startswith(prefix) and not viewer.sees_placeholder(status=c.status, placeholder=c.placeholder))
