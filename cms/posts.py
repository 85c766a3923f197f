"""The `posts` collection: the blog's posts, each embedding its author's summary
and a subset of its comments (count and latest few) for list pages.

This is the only module that touches `posts`. Documents go in as keyword
arguments and come out as frozen dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from bson import ObjectId
from bson.errors import InvalidId
from pymongo import ASCENDING, DESCENDING, IndexModel
from pymongo.database import Database

from cms.markup import render_post
from cms.mongo import create_indexes, get_db

DRAFT, PUBLISHED = "draft", "published"

INDEXES = [
    IndexModel([("slug", ASCENDING)], unique=True, name="slug_unique"),
    IndexModel([("status", ASCENDING), ("published", DESCENDING)], name="status_published"),
    IndexModel([("author.username", ASCENDING), ("created", DESCENDING)], name="author_created"),
    IndexModel([("tags", ASCENDING), ("published", DESCENDING)], name="tags_published"),
]


def ensure_indexes(db: Database) -> list[str]:
    return create_indexes(db.posts, INDEXES)


@dataclass(frozen=True)
class AuthorSummary:
    """The author fields a post embeds: enough to display it, not the profile."""

    id: int
    username: str
    name: str
    picture: str = ""

    def as_doc(self) -> dict:
        return {"id": self.id, "username": self.username, "name": self.name, "picture": self.picture}


@dataclass(frozen=True)
class LatestComment:
    """One of the few latest comments a post carries for list pages."""

    slug: str
    author_name: str
    posted: datetime
    excerpt: str


@dataclass(frozen=True)
class Post:
    id: ObjectId
    title: str
    slug: str
    content: str
    content_html: str
    created: datetime
    published: datetime | None
    status: str
    author: AuthorSummary
    tags: tuple[str, ...] = ()
    comment_count: int = 0
    latest_comments: tuple[LatestComment, ...] = field(default=())

    @classmethod
    def from_doc(cls, doc: dict) -> Post:
        return cls(
            id=doc["_id"],
            title=doc["title"],
            slug=doc["slug"],
            content=doc["content"],
            content_html=doc["content_html"],
            created=doc["created"],
            published=doc.get("published"),
            status=doc["status"],
            author=AuthorSummary(**doc["author"]),
            tags=tuple(doc.get("tags", ())),
            comment_count=doc.get("comment_count", 0),
            latest_comments=tuple(
                LatestComment(
                    slug=c["slug"], author_name=c["author_name"],
                    posted=c["posted"], excerpt=c["excerpt"],
                )
                for c in doc.get("latest_comments", ())
            ),
        )


def _published_filter(now: datetime | None = None) -> dict:
    return {"status": PUBLISHED, "published": {"$lte": now or datetime.now(timezone.utc)}}


def create_post(
    *,
    title: str,
    slug: str,
    content: str,
    author: AuthorSummary,
    tags: tuple[str, ...] | list[str] = (),
    status: str = DRAFT,
    published: datetime | None = None,
    created: datetime | None = None,
) -> Post:
    """Insert a post; a duplicate slug raises pymongo's DuplicateKeyError."""
    now = datetime.now(timezone.utc)
    doc = {
        "title": title,
        "slug": slug,
        "content": content,
        "content_html": render_post(content),
        "created": created or now,
        "published": published or (now if status == PUBLISHED else None),
        "status": status,
        "tags": list(tags),
        "author": author.as_doc(),
        "comment_count": 0,
        "latest_comments": [],
    }
    doc["_id"] = get_db().posts.insert_one(doc).inserted_id
    return Post.from_doc(doc)


def published_page(*, page: int, per_page: int) -> list[Post]:
    """Page `page` (1-based) of the published posts, newest first."""
    cursor = (
        get_db().posts.find(_published_filter())
        .sort([("published", DESCENDING), ("_id", DESCENDING)])
        .skip((page - 1) * per_page)
        .limit(per_page)
    )
    return [Post.from_doc(doc) for doc in cursor]


def count_published() -> int:
    return get_db().posts.count_documents(_published_filter())


def get_published(slug: str) -> Post | None:
    """The published post with this slug, or None (drafts are invisible to readers)."""
    doc = get_db().posts.find_one({"slug": str(slug), **_published_filter()})
    return Post.from_doc(doc) if doc else None


def get_by_id(post_id: ObjectId | str) -> Post | None:
    try:
        oid = ObjectId(post_id)
    except (InvalidId, TypeError):
        return None
    doc = get_db().posts.find_one({"_id": oid})
    return Post.from_doc(doc) if doc else None


def is_empty() -> bool:
    return get_db().posts.find_one({}, {"_id": 1}) is None


def set_comment_summary(
    *, post_id: ObjectId, count: int, latest: list[LatestComment]
) -> None:
    """Store a post's comment count and latest comments (the subset pattern)."""
    get_db().posts.update_one(
        {"_id": post_id},
        {"$set": {
            "comment_count": count,
            "latest_comments": [
                {"slug": c.slug, "author_name": c.author_name, "posted": c.posted, "excerpt": c.excerpt}
                for c in latest
            ],
        }},
    )
