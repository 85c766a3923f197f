"""What the rules an editor set on branches (comments/moderation/branches.py) mean for
the comments on a page: each comment in a locked branch is marked `locked` (its page
says "Replies are closed in this thread" where Reply was, and hides nothing), each in
a slow one carries its `slow_seconds`. One query of the discussion's rules (a handful,
set by hand) per page, whatever its size, and none for a page that read the
discussion's state (a reader's: the state keeps a copy of the rules)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from bson import ObjectId

from comments.moderation import branches

if TYPE_CHECKING:
    from comments.reading.listings import Shown


def mark(shown: list[Shown], *, discussion_id: ObjectId, rules: list[branches.Rule] | None = None) -> list[Shown]:
    """`shown` with each comment's `locked` and `slow_seconds` as its branch's rules say
    (`rules`: the copy in the discussion's state when the page read it; else read here)."""
    if not shown:
        return shown
    if rules is None:
        rules = branches.rules_of(discussion_id)
    if not rules:
        return shown
    marked = []
    for item in shown:
        found = branches.effect(rules, item.comment.full_slug)
        marked.append(replace(item, locked=found.locked, slow_seconds=found.slow_seconds))
    return marked
