"""The `posts` collection: the blog's posts, each embedding its author's summary
and a subset of its comments (count and latest few) for list pages.

This is the only module that touches `posts`. Documents go in as keyword
arguments and come out as frozen dataclasses.

A post is a draft, scheduled (to be published at its `published` time by
`publish_scheduled`) or published. Readers only ever see what `_published_filter`
matches: published, with its time come. Every reader-facing query below uses it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from html.parser import HTMLParser

from bson import ObjectId
from django.conf import settings
from django.urls import reverse
from pymongo import ASCENDING, DESCENDING, IndexModel, UpdateOne
from pymongo.database import Database
from pymongo.write_concern import WriteConcern

from comments.folding import fold
from comments.host import LatestComment
from comments.ids import parse_id
from infra.markup import render_post
from infra.mongo import get_db
from media.references import keys_in

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
    older) `search_text` (`backfill_search_text`): the release step runs this."""
    names = db.posts.create_indexes(INDEXES)
    backfill_search_text(db)
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


def _latest_comment(doc: dict) -> LatestComment:
    return LatestComment(
        slug=doc["slug"], author_name=doc["author_name"], posted=doc["posted"], excerpt=doc["excerpt"]
    )


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


# --- Summaries for lists: pure functions of a post's stored fields -------------------

SUMMARY_LENGTH = 280
ELLIPSIS = "\u2026"


class _Paragraphs(HTMLParser):
    """The plain text of the first `<p>` of sanitised HTML that has any, and the text
    of the whole (for HTML without one)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.first: str | None = None
        self.everything: list[str] = []
        self._open: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "p" and self._open is None:
            self._open = []
        elif tag == "br" and self._open is not None:
            self._open.append(" ")

    def handle_endtag(self, tag):
        if tag == "p" and self._open is not None:
            if self.first is None:
                self.first = plain("".join(self._open)) or None
            self._open = None

    def handle_data(self, data):
        self.everything.append(data)
        if self._open is not None:
            self._open.append(data)


def plain(text: str) -> str:
    """`text` with its runs of whitespace (line breaks too) made single spaces."""
    return " ".join(text.split())


# How much of a post's HTML is parsed at a time while looking for its first paragraph:
# lists summarise every post they show, and a long post need not be parsed whole.
_CHUNK = 1024


def first_paragraph(html: str) -> str:
    """The plain text of the first paragraph of `html` that has any (headings, images
    and code before it are passed over); without one, all of its text."""
    parser = _Paragraphs()
    for start in range(0, len(html), _CHUNK):
        parser.feed(html[start:start + _CHUNK])
        if parser.first is not None:
            return parser.first
    parser.close()
    return parser.first if parser.first is not None else plain("".join(parser.everything))


def shorten(text: str, *, limit: int = SUMMARY_LENGTH) -> str:
    """`text` as it is if it fits in `limit` characters, else cut at the last word
    boundary before it, with an ellipsis (a single word longer than that is cut)."""
    text = plain(text)
    if len(text) <= limit:
        return text
    cut = text[: limit + 1 - len(ELLIPSIS)]
    head = cut.rsplit(" ", 1)[0] if " " in cut else cut[:-1]
    return head.rstrip(" ,;:.-\u2013\u2014") + ELLIPSIS


def summarise(*, excerpt: str, content_html: str, limit: int = SUMMARY_LENGTH) -> str:
    """A post's summary on lists: its own excerpt, else its first paragraph."""
    return shorten(excerpt if excerpt.strip() else first_paragraph(content_html), limit=limit)


# --- Search: a folded copy of each post's text -------------------------------------
# `search_text` holds the post's title, excerpt and content as plain text folded by
# comments.folding.fold (no case, no Latin diacritics: "duong" finds "Đường"), written
# in the same update as the text; SEARCH_VERSION says which folding made it, so the
# release step refolds posts whose copy is missing or older (`backfill_search_text`).
SEARCH_VERSION = 1
# Posts folded per release run at most, and per bulk write: bounded, so a release
# never stalls on a large collection; the next run carries on where it stopped.
BACKFILL_LIMIT = 20_000
BACKFILL_BATCH = 200
# Inline elements: their text runs on into the words around them.
_INLINE = {"a", "abbr", "b", "code", "del", "em", "i", "ins", "kbd", "mark", "q", "s", "small", "span",
           "strong", "sub", "sup", "u"}


class _Text(HTMLParser):
    """All the text of sanitised HTML, with a space between blocks."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in _INLINE:
            self.parts.append(" ")

    def handle_endtag(self, tag):
        self.handle_starttag(tag, ())

    def handle_data(self, data):
        self.parts.append(data)


def search_text(*, title: str, excerpt: str, content_html: str) -> str:
    """What search matches a post by: its title, excerpt and text, folded."""
    parser = _Text()
    parser.feed(content_html)
    parser.close()
    return fold(" ".join([title, excerpt, "".join(parser.parts)]))


# What reads of whole posts fetch: all but `search_text`, which `Post` does not carry
# (a folded copy of the post's text, as long again, on every list page otherwise).
_POST_FIELDS = {"search_text": 0}


def _search_fields(*, title: str, excerpt: str, content_html: str) -> dict:
    return {
        "search_text": search_text(title=title, excerpt=excerpt, content_html=content_html),
        "search_version": SEARCH_VERSION,
    }


def backfill_search_text(db: Database, *, limit: int = BACKFILL_LIMIT) -> int:
    """Fold the text of up to `limit` posts whose `search_text` is missing or older
    than SEARCH_VERSION; how many were written. Safe to rerun: a folded post no
    longer matches, and an edit meanwhile (which writes its own) is not overwritten."""
    stale = {"search_version": {"$ne": SEARCH_VERSION}}
    fields = {"title": 1, "excerpt": 1, "content_html": 1, "revision": 1}
    written, batch = 0, []
    for doc in db.posts.find(stale, fields).limit(limit):
        folded = _search_fields(
            title=doc.get("title", ""), excerpt=doc.get("excerpt") or "", content_html=doc.get("content_html", "")
        )
        unchanged = {"_id": doc["_id"], "revision": doc.get("revision", {"$exists": False}), **stale}
        batch.append(UpdateOne(unchanged, {"$set": folded}))
        if len(batch) == BACKFILL_BATCH:
            written += db.posts.bulk_write(batch, ordered=False).modified_count
            batch = []
    if batch:
        written += db.posts.bulk_write(batch, ordered=False).modified_count
    return written


def media_keys(*, content: str, cover: str) -> list[str]:
    """The library images a post shows (`media`): those its Markdown names, and its cover."""
    return list(dict.fromkeys(keys_in(content) + ([cover] if cover else [])))


def to_millisecond(moment: datetime) -> datetime:
    """`moment` at BSON's precision, so what a function returns equals what is stored."""
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


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
        "media": media_keys(content=content, cover=str(cover)),
        **_search_fields(title=title, excerpt=str(excerpt), content_html=content_html),
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


def published_page(*, page: int, per_page: int) -> list[Post]:
    """Page `page` (1-based) of the published posts, newest first."""
    return newest_published(skip=(page - 1) * per_page, limit=per_page)


def newest_published(*, skip: int, limit: int) -> list[Post]:
    """`limit` published posts after the newest `skip`, newest first: any slice, also
    one that does not start on a page boundary (a paginator's last page)."""
    return _find(_published_filter(), NEWEST_PUBLISHED, skip=skip, limit=limit)


def count_published() -> int:
    return get_db().posts.count_documents(_published_filter())


def get_published(slug: str) -> Post | None:
    """The published post with this slug, or None (drafts are invisible to readers)."""
    doc = get_db().posts.find_one({"slug": str(slug), **_published_filter()}, _POST_FIELDS)
    return Post.from_doc(doc) if doc else None


def find_published_by_slugs(slugs: list[str]) -> list[Post]:
    """The published posts among `slugs`, in one query (the API's comment counts)."""
    wanted = [str(slug) for slug in slugs]
    return [Post.from_doc(doc) for doc in get_db().posts.find({"slug": {"$in": wanted}, **_published_filter()},
                                                                _POST_FIELDS)]


def get_by_id(post_id: ObjectId | str) -> Post | None:
    oid = parse_id(post_id)
    if oid is None:
        return None
    doc = get_db().posts.find_one({"_id": oid}, _POST_FIELDS)
    return Post.from_doc(doc) if doc else None


def find_by_ids(*, ids) -> list[Post]:
    """The posts with these ids, in any state (the moderation queue names them)."""
    return [Post.from_doc(doc) for doc in get_db().posts.find({"_id": {"$in": list(ids)}}, _POST_FIELDS)]


# How many of the posts that use an image the dashboard names.
USING_SHOWN = 50


def using_media(*, key: str, limit: int = USING_SHOWN) -> list[Post]:
    """The posts, in any state, whose content or cover shows library image `key`."""
    cursor = get_db().posts.find({"media": str(key)}, _POST_FIELDS).sort("_id", DESCENDING).limit(limit)
    return [Post.from_doc(doc) for doc in cursor]


def get_by_slug(slug: str) -> Post | None:
    """The post with this slug in any state (the dashboard's filters)."""
    doc = get_db().posts.find_one({"slug": str(slug)}, _POST_FIELDS)
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


def store_comment_summary(*, post_id: ObjectId, seq: int, count: int, latest: list[LatestComment]) -> bool:
    """Store a post's comment count and latest comments (the subset pattern) if `seq`,
    the comments app's change number they were read at, is newer than the one the
    post holds (`comment_summary_seq`); whether it was. So of two writers' summaries
    the older never overwrites the newer, whatever order they land in."""
    newer = {"$or": [{"comment_summary_seq": {"$lt": int(seq)}}, {"comment_summary_seq": {"$exists": False}}]}
    result = get_db().posts.update_one(
        {"_id": post_id, **newer},
        {"$set": {
            "comment_summary_seq": int(seq),
            "comment_count": int(count),
            "latest_comments": [
                {"slug": c.slug, "author_name": c.author_name, "posted": c.posted, "excerpt": c.excerpt}
                for c in latest
            ],
        }},
    )
    return result.matched_count == 1


# --- Lists for readers: each uses the one published filter -------------------------


def contains(text: str) -> dict:
    """A case-insensitive substring match of `text` as a MongoDB regex condition.

    The text is escaped, so what a reader or editor types is only ever matched
    literally and never becomes a pattern (or an operator: it is always a string).
    """
    return {"$regex": re.escape(str(text)), "$options": "i"}


def _find(query: dict, sort: list[tuple[str, int]], *, skip: int, limit: int) -> list[Post]:
    cursor = get_db().posts.find(query, _POST_FIELDS).sort(sort).skip(skip).limit(limit)
    return [Post.from_doc(doc) for doc in cursor]


NEWEST_PUBLISHED = [("published", DESCENDING), ("_id", DESCENDING)]


def _by_author(username: str) -> dict:
    return {"author.username": str(username), **_published_filter()}


def author_published_page(*, username: str, skip: int, limit: int) -> list[Post]:
    """An author's published posts, newest first (index `author_created`)."""
    return _find(_by_author(username), [("created", DESCENDING), ("_id", DESCENDING)], skip=skip, limit=limit)


def count_author_published(*, username: str) -> int:
    return get_db().posts.count_documents(_by_author(username))


def _by_tag(tag: str) -> dict:
    return {"tags": str(tag), **_published_filter()}


def tag_published_page(*, tag: str, skip: int, limit: int) -> list[Post]:
    """The published posts with this tag, newest first (index `tags_published`)."""
    return _find(_by_tag(tag), NEWEST_PUBLISHED, skip=skip, limit=limit)


def count_tag_published(*, tag: str) -> int:
    return get_db().posts.count_documents(_by_tag(tag))


def _search(text: str) -> dict:
    """Published posts whose folded text contains the folded `text`, matched literally
    (escaped: a reader's ".*" is two characters). The unanchored regex cannot use an
    index: `status_published` serves the filter and the order, and the regex is
    checked on the posts it yields."""
    folded = fold(str(text))
    if not folded:
        return {"_id": {"$in": []}}
    return {**_published_filter(), "search_text": {"$regex": re.escape(folded)}}


def search_published_page(*, text: str, skip: int, limit: int) -> list[Post]:
    """Published posts whose title, excerpt or text contains `text`, however cased
    and accented (comments.folding.fold), newest first."""
    return _find(_search(text), NEWEST_PUBLISHED, skip=skip, limit=limit)


def count_search_published(*, text: str) -> int:
    return get_db().posts.count_documents(_search(text))


@dataclass(frozen=True)
class PostLink:
    """What a sitemap needs of a published post."""

    slug: str
    lastmod: datetime


def published_links() -> list[PostLink]:
    """Every published post's slug and last change, newest first, for the sitemap."""
    fields = {"slug": 1, "published": 1, "updated": 1}
    cursor = get_db().posts.find(_published_filter(), fields).sort(NEWEST_PUBLISHED)
    return [
        PostLink(slug=d["slug"], lastmod=max(filter(None, [d["published"], d.get("updated")])))
        for d in cursor
    ]


def published_tags() -> list[str]:
    """The tags of published posts, sorted."""
    return sorted(get_db().posts.distinct("tags", _published_filter()))


def published_author_usernames() -> list[str]:
    """The usernames of authors with a published post, sorted."""
    return sorted(get_db().posts.distinct("author.username", _published_filter()))


# --- The dashboard -------------------------------------------------------------------


def _state_filter(state: str | None, now: datetime) -> dict:
    """Posts as readers see them now: the three states partition every post."""
    if state == DRAFT:
        return {"status": DRAFT}
    if state == SCHEDULED:
        return {"$or": [{"status": SCHEDULED}, {"status": PUBLISHED, "published": {"$gt": now}}]}
    if state == PUBLISHED:
        return _published_filter(now)
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
    return _find(query, [("created", DESCENDING), ("_id", DESCENDING)], skip=skip, limit=limit)


def count_dashboard(
    *, state: str | None = None, title: str | None = None, author_id: int | None = None
) -> int:
    return get_db().posts.count_documents(_dashboard_filter(state, title, author_id))


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
        "cover": str(cover), "media": media_keys(content=content, cover=str(cover)),
        "published": to_millisecond(published) if published else None,
        "updated": to_millisecond(now or datetime.now(timezone.utc)),
        **_search_fields(title=title, excerpt=str(excerpt), content_html=content_html),
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


# --- Author copies (renames) ----------------------------------------------------------


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


def find_comment_summaries(
    *, post_ids: list[ObjectId] | None = None
) -> Iterator[tuple[ObjectId, tuple[LatestComment, ...]]]:
    """(post id, latest comments) of the posts that have comments, all or `post_ids`."""
    query: dict = {"comment_count": {"$gt": 0}}
    if post_ids is not None:
        query["_id"] = {"$in": list(post_ids)}
    for doc in get_db().posts.find(query, {"latest_comments": 1}).sort("_id", ASCENDING):
        yield doc["_id"], tuple(_latest_comment(c) for c in doc.get("latest_comments", ()))
