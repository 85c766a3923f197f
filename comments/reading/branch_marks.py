"""What the rules an editor set on branches (comments/moderation/branches.py) mean for
the comments on a page: each comment in a locked branch is marked `locked` (its page
says "Replies are closed in this thread" where Reply was, and hides nothing), each in
a slow one carries its `slow_seconds` (comments/reading/listings.py `with_branch_rules`).
One query of the discussion's rules (a handful, set by hand) per page, whatever its
size, and none for a page that read the discussion's state (a reader's: the state
keeps a copy of the rules)."""

from __future__ import annotations

from bson import ObjectId

from comments.moderation import branches


def effects(full_slugs: list[str], *, discussion_id: ObjectId,
            rules: list[branches.Rule] | None = None) -> list[branches.Effect] | None:
    """What the branch rules do below each of these comments (by full_slug), in their
    order; None when the discussion has none (`rules`: the copy in its state when the
    page read it; else read here)."""
    if not full_slugs:
        return None
    if rules is None:
        rules = branches.rules_of(discussion_id)
    if not rules:
        return None
    return [branches.effect(rules, full_slug) for full_slug in full_slugs]
