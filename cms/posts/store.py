"""The `posts` collection: its indexes, the `Post` it reads into, the rules a post's
fields keep, and the writes of a post's own fields (create, edit, publish, close its
comments). Documents go in as keyword arguments and come out as frozen dataclasses.

A post is a draft, scheduled (to be published at its `published` time by
`publish_scheduled`) or published. Readers only ever see what
`reading.published_filter` matches: published, with its time come.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timezone

from bson import ObjectId
from django.conf import settings
from django.urls import reverse
from pymongo import ASCENDING, DESCENDING, IndexModel
from pymongo.database import Database

from cms.posts.comment_summary import _latest_comment
from cms.posts.pictures import backfill_media, media_fields
from cms.posts.search import backfill_search_text, search_fields
from cms.posts.summaries import summarise
from comments.api import LatestComment
from infra.ids import parse_id
from infra.times import to_millisecond
from infra.markup import render_post
from infra.mongo import get_db

DRAFT, PUBLISHED = "draft", "published"
SCHEDULED = "scheduled"
# What the dashboard filters by: what readers see of a post right now.
STATES = (DRAFT, SCHEDULED, PUBLISHED)

INDEXES = [
    IndexModel([("slug", ASCENDING)], unique=True, name="slug_unique"),
    IndexModel([("status", ASCENDING), ("published", DESCENDING)], name="status_published"),
    IndexModel([("author.username", ASCENDING), ("created", DESCENDING)], name="author_created"),
    IndexModel([("tags", ASCENDING), ("published", DESCENDING)], name="tags_published"),
    # An author's own posts in the dashboard, and renames (`set_author`), by user id.
    IndexModel([("author.id", ASCENDING), ("created", DESCENDING)], name="author_id_created"),
    # The posts that show a library image (its content or cover): `using_media`.
    IndexModel([("media", ASCENDING)], name="media"),
]


def ensure_indexes(db: Database) -> list[str]:
    """Create the indexes, then fold the text of posts stored without (or with an
    older) `search_text` (`backfill_search_text`) and recount their pictures
    (`backfill_media`): the release step runs this."""
    names = db.posts.create_indexes(INDEXES)
    backfill_search_text(db)
    backfill_media(db)
    return names


# The rules a post's fields keep, whoever writes them (the dashboard's form, imports).
SLUG_MAX_LENGTH = 80
TAG_MAX_LENGTH = 40
TAG_PUNCTUATION = " .+#-"


def is_tag(text: str) -> bool:
    """Whether `text` is a tag: at most TAG_MAX_LENGTH letters and digits of any script
    (with their combining marks: Devanagari's vowel signs are marks, which regular
    expressions' \\w leaves out), spaces, dots, "+", "#" or "-", starting with a
    letter or digit."""
    return (
        0 < len(text) <= TAG_MAX_LENGTH
        and unicodedata.category(text[0])[0] in "LN"
        and all(unicodedata.category(ch)[0] in "LNM" or ch in TAG_PUNCTUATION for ch in text)
    )
MAX_TAGS = 10
EXCERPT_MAX_LENGTH = 300


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
    # When an editor last saved it, and how many saves it has had (lost-update guard).
    updated: datetime | None = None
    revision: int = 0
    # Closed by an editor: no new comments (see comments.services.comments_closed).
    comments_closed: bool = False
    # The author's own summary for lists; "" when they wrote none (and on older posts).
    excerpt: str = ""
    # The language it is written in (a code of settings.LANGUAGES): its `lang`.
    language: str = ""
    # Its cover image: a media library key, or "" (none; and on older posts).
    cover: str = ""

    @property
    def summary(self) -> str:
        """What lists show of it: its own excerpt, else its first paragraph as plain
        text, either cut at a word boundary to SUMMARY_LENGTH characters."""
        return summarise(excerpt=self.excerpt, content_html=self.content_html)

    @property
    def state(self) -> str:
        """What readers see of it now: draft, scheduled (not yet visible) or published."""
        if self.status == DRAFT:
            return DRAFT
        if self.status == SCHEDULED or self.published is None or self.published > datetime.now(timezone.utc):
            return SCHEDULED
        return PUBLISHED

    def get_absolute_url(self) -> str:
        """The post's page (Django's convention: the comments app links to its
        discussions this way, knowing no URL name of the blog's)."""
        return reverse("post", args=[self.slug])

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
            latest_comments=tuple(_latest_comment(c) for c in doc.get("latest_comments", ())),
            updated=doc.get("updated"),
            revision=doc.get("revision", 0),
            comments_closed=bool(doc.get("comments_closed")),
            excerpt=str(doc.get("excerpt") or ""),
            # Posts stored before posts had a language are in the site's.
            language=str(doc.get("language") or settings.LANGUAGE_CODE),
            cover=str(doc.get("cover") or ""),
        )


# What reads of whole posts fetch: all but `search_text`, which `Post` does not carry
# (a folded copy of the post's text, as long again, on every list page otherwise).
POST_FIELDS = {"search_text": 0}


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
    excerpt: str = "",
    language: str | None = None,
    cover: str = "",
) -> Post:
    """Insert a post (in the site's language unless given); a duplicate slug raises
    pymongo's DuplicateKeyError."""
    now = datetime.now(timezone.utc)
    published = published or (now if status == PUBLISHED else None)
    content_html = render_post(content)
    doc = {
        "title": title,
        "slug": slug,
        "content": content,
        "content_html": content_html,
        "excerpt": str(excerpt),
        "language": str(language or settings.LANGUAGE_CODE),
        "cover": str(cover),
        **media_fields(content=content, cover=str(cover)),
        **search_fields(title=title, excerpt=str(excerpt), content_html=content_html),
        "created": to_millisecond(created or now),
        "published": to_millisecond(published) if published else None,
        "status": status,
        "tags": list(tags),
        "author": author.as_doc(),
        "comment_count": 0,
        "latest_comments": [],
        "revision": 1,
    }
    doc["_id"] = get_db().posts.insert_one(doc).inserted_id
    return Post.from_doc(doc)


def get_by_id(post_id: ObjectId | str) -> Post | None:
    oid = parse_id(post_id)
    if oid is None:
        return None
    doc = get_db().posts.find_one({"_id": oid}, POST_FIELDS)
    return Post.from_doc(doc) if doc else None


def find_by_ids(*, ids) -> list[Post]:
    """The posts with these ids, in any state (the moderation queue names them)."""
    return [Post.from_doc(doc) for doc in get_db().posts.find({"_id": {"$in": list(ids)}}, POST_FIELDS)]


# How many of the posts that use an image the dashboard names.
USING_SHOWN = 50


def using_media(*, key: str, limit: int = USING_SHOWN) -> list[Post]:
    """The posts, in any state, whose content or cover shows library image `key`."""
    cursor = get_db().posts.find({"media": str(key)}, POST_FIELDS).sort("_id", DESCENDING).limit(limit)
    return [Post.from_doc(doc) for doc in cursor]


def get_by_slug(slug: str) -> Post | None:
    """The post with this slug in any state (the dashboard's filters)."""
    doc = get_db().posts.find_one({"slug": str(slug)}, POST_FIELDS)
    return Post.from_doc(doc) if doc else None


def set_comments_closed(*, post_id: ObjectId, closed: bool) -> bool:
    """Close a post's discussion to new comments, or open it again; whether it changed.

    Only the flag changes: not the post's revision, so an editor's open edit of the
    post is not refused as stale because someone closed its comments meanwhile.
    """
    result = get_db().posts.update_one({"_id": post_id}, {"$set": {"comments_closed": bool(closed)}})
    return result.modified_count == 1


def is_empty() -> bool:
    return get_db().posts.find_one({}, {"_id": 1}) is None


# Newest first by when a post was made: the dashboard's list and an author's page.
NEWEST_CREATED = [("created", DESCENDING), ("_id", DESCENDING)]


def find_page(query: dict, sort: list[tuple[str, int]], *, skip: int, limit: int,
              index: str | None = None) -> list[Post]:
    """A page of the posts `query` matches, in `sort` order (reading.py, dashboard.py),
    read from `index` when one is named (else the planner's choice)."""
    cursor = get_db().posts.find(query, POST_FIELDS).sort(sort).skip(skip).limit(limit)
    if index is not None:
        cursor = cursor.hint(index)
    return [Post.from_doc(doc) for doc in cursor]


def update_post(
    *,
    post_id: ObjectId,
    revision: int,
    title: str,
    slug: str,
    content: str,
    tags: tuple[str, ...] | list[str],
    status: str,
    published: datetime | None,
    now: datetime | None = None,
    excerpt: str = "",
    language: str | None = None,
    cover: str = "",
) -> Post | None:
    """Save an edit of the post as it was at `revision` (and its language, when
    given); the post after it, or None if
    it has been saved since (the edit would overwrite someone's work). A slug another
    post has raises DuplicateKeyError (the unique index).

    update_one, then a read by `_id`: FerretDB v2 answers a findAndModify that breaks
    a unique index with an InternalError rather than DuplicateKeyError (11000),
    while update_one gets 11000 from both servers.
    """
    # Posts stored before revisions existed have none: revision 0.
    query: dict = {"_id": post_id, "revision": revision if revision else {"$exists": False}}
    content_html = render_post(content)
    changes = {
        "title": title, "slug": slug, "content": content, "content_html": content_html,
        "excerpt": str(excerpt), "tags": list(tags), "status": status,
        "cover": str(cover), **media_fields(content=content, cover=str(cover)),
        "published": to_millisecond(published) if published else None,
        "updated": to_millisecond(now or datetime.now(timezone.utc)),
        **search_fields(title=title, excerpt=str(excerpt), content_html=content_html),
    }
    if language:
        changes["language"] = str(language)
    result = get_db().posts.update_one(query, {"$set": changes, "$inc": {"revision": 1}})
    return get_by_id(post_id) if result.modified_count == 1 else None


def publish_due(*, now: datetime | None = None) -> int:
    """Publish the scheduled posts whose time has come; return how many.

    One update_many whose filter names only what is still due, so running it again,
    or twice at once (cron overlap), publishes nothing twice and changes nothing else.
    """
    due = {"status": SCHEDULED, "published": {"$lte": now or datetime.now(timezone.utc)}}
    return get_db().posts.update_many(due, {"$set": {"status": PUBLISHED}}).modified_count
