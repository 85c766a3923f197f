"""The dashboard's lists: posts in any state, filtered by what readers see of them
now, title words and author."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from cms.posts.reading import published_filter
from cms.posts.store import DRAFT, NEWEST_CREATED, PUBLISHED, SCHEDULED, Post, find_page
from infra.mongo import get_db


def contains(text: str) -> dict:
    """A case-insensitive substring match of `text` as a MongoDB regex condition.

    The text is escaped, so what a reader or editor types is only ever matched
    literally and never becomes a pattern (or an operator: it is always a string).
    """
    return {"$regex": re.escape(str(text)), "$options": "i"}


def _state_filter(state: str | None, now: datetime) -> dict:
    """Posts as readers see them now: the three states partition every post."""
    if state == DRAFT:
        return {"status": DRAFT}
    if state == SCHEDULED:
        return {"$or": [{"status": SCHEDULED}, {"status": PUBLISHED, "published": {"$gt": now}}]}
    if state == PUBLISHED:
        return published_filter(now)
    return {}


def _dashboard_filter(state: str | None, title: str | None, author_id: int | None) -> dict:
    query = _state_filter(state, datetime.now(timezone.utc))
    if title:
        query["title"] = contains(title)
    if author_id is not None:
        query["author.id"] = int(author_id)
    return query


def dashboard_page(
    *, state: str | None = None, title: str | None = None, author_id: int | None = None, skip: int, limit: int
) -> list[Post]:
    """Posts in any state, newest first, filtered by state, title words and author."""
    query = _dashboard_filter(state, title, author_id)
    return find_page(query, NEWEST_CREATED, skip=skip, limit=limit)


def count_dashboard(
    *, state: str | None = None, title: str | None = None, author_id: int | None = None
) -> int:
    return get_db().posts.count_documents(_dashboard_filter(state, title, author_id))
