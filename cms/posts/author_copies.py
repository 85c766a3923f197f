"""Author copies: every post embeds its author's summary (`author`), and a rename
rewrites the copies (`set_author`, run by cms.authors and `sync_authors`)."""

from __future__ import annotations

from pymongo.write_concern import WriteConcern

from cms.posts.store import AuthorSummary
from infra.mongo import get_db


def _majority():
    """`posts` with a majority write concern: a rename's copies must not roll back."""
    return get_db().posts.with_options(write_concern=WriteConcern(w="majority"))


def set_author(*, author: AuthorSummary) -> int:
    """Make every post by `author.id` embed exactly `author`; return how many changed.

    The filter only matches copies that disagree, so rerunning it writes nothing.
    """
    disagrees = [{f"author.{key}": {"$ne": value}} for key, value in author.as_doc().items() if key != "id"]
    result = _majority().update_many(
        {"author.id": author.id, "$or": disagrees}, {"$set": {"author": author.as_doc()}}
    )
    return result.modified_count


def distinct_authors() -> list[AuthorSummary]:
    """Every distinct author copy embedded in posts (one per author when in sync)."""
    return [AuthorSummary(**doc) for doc in get_db().posts.distinct("author")]
