"""The `post_versions` collection: what a post was before each edit.

An edit (or a restore) first saves the post as it stands, then changes it, so the
dashboard can show what changed and put an earlier version back. Without
transactions a crash between the two leaves one extra version equal to the
current post, which is harmless. This is the only module that touches
`post_versions`:

    {_id, post_id, saved, saved_by, title, slug, content, excerpt, tags, status, published, language,
     cover}

(`excerpt` is "" and `language` and `cover` missing on versions kept before posts had them; a
version without a language reads as the site's LANGUAGE_CODE.)

Index `{post_id: 1, saved: -1}`: a post's versions, newest first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from bson import ObjectId
from django.conf import settings
from pymongo import ASCENDING, DESCENDING, IndexModel
from pymongo.database import Database

from cms.posts import Post
from infra.ids import parse_id
from infra.mongo import get_db
from infra.times import to_millisecond

INDEXES = [IndexModel([("post_id", ASCENDING), ("saved", DESCENDING)], name="post_saved")]
# The dashboard lists this many of a post's versions (older ones stay stored).
SHOWN = 50


def ensure_indexes(db: Database) -> list[str]:
    return db.post_versions.create_indexes(INDEXES)


@dataclass(frozen=True)
class Version:
    id: ObjectId
    post_id: ObjectId
    saved: datetime
    saved_by: str
    title: str
    slug: str
    content: str
    tags: tuple[str, ...]
    status: str
    published: datetime | None
    excerpt: str = ""
    language: str = ""
    cover: str = ""

    @classmethod
    def from_doc(cls, doc: dict) -> Version:
        return cls(
            id=doc["_id"],
            post_id=doc["post_id"],
            saved=doc["saved"],
            saved_by=doc["saved_by"],
            title=doc["title"],
            slug=doc["slug"],
            content=doc["content"],
            tags=tuple(doc.get("tags", ())),
            status=doc["status"],
            published=doc.get("published"),
            excerpt=str(doc.get("excerpt") or ""),
            language=str(doc.get("language") or settings.LANGUAGE_CODE),
            cover=str(doc.get("cover") or ""),
        )


def save_version(*, post: Post, saved_by: str, at: datetime | None = None) -> Version:
    """Keep `post` as it stands now, before someone changes it."""
    doc = {
        "post_id": post.id,
        "saved": to_millisecond(at or datetime.now(timezone.utc)),
        "saved_by": saved_by,
        "title": post.title,
        "slug": post.slug,
        "content": post.content,
        "excerpt": post.excerpt,
        "tags": list(post.tags),
        "status": post.status,
        "published": post.published,
        "language": post.language,
        "cover": post.cover,
    }
    doc["_id"] = get_db().post_versions.insert_one(doc).inserted_id
    return Version.from_doc(doc)


def drop_version(*, version_id: ObjectId) -> None:
    """Forget a version kept for a save that was then refused (stale, or its slug
    taken): it would be a copy of the post as it still stands."""
    get_db().post_versions.delete_one({"_id": version_id})


def find_versions(*, post_id: ObjectId, limit: int = SHOWN) -> list[Version]:
    """A post's latest versions, newest first."""
    cursor = (
        get_db()
        .post_versions.find({"post_id": post_id})
        .sort([("saved", DESCENDING), ("_id", DESCENDING)])
        .limit(limit)
    )
    return [Version.from_doc(doc) for doc in cursor]


def get_version(*, post_id: ObjectId, version_id: ObjectId | str) -> Version | None:
    """One version of this post, or None (also for a malformed id or another post's)."""
    oid = parse_id(version_id)
    if oid is None:
        return None
    doc = get_db().post_versions.find_one({"_id": oid, "post_id": post_id})
    return Version.from_doc(doc) if doc else None
