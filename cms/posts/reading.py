"""Lists for readers: every query here uses the one published filter
(`published_filter`: published, with its time come), so drafts and scheduled posts
never reach a reader.

Each query reads the index that bounds it to what it shows (checked against the
server's own plans: tests/integration/cms/test_post_query_plans.py). Given the
published filter beside a slug or an author, a planner may read `status_published`
instead, every published post's entry, as DocumentDB's does once the table has
statistics: so a post is found by its slug alone and the filter applied to it here
(`infra.matching`: the server's semantics), and an author's posts are read through
`author_created`, named."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

from pymongo import DESCENDING

from cms.posts.store import NEWEST_CREATED, POST_FIELDS, PUBLISHED, Post, find_page
from infra import page_windows
from infra.folding import fold_for_search
from infra.matching import compile_filter, matches
from infra.mongo import get_db


def published_filter(now: datetime | None = None) -> dict:
    """What readers may see: published posts whose time has come (at `now`)."""
    return {"status": PUBLISHED, "published": {"$lte": now or datetime.now(timezone.utc)}}


NEWEST_PUBLISHED = [("published", DESCENDING), ("_id", DESCENDING)]


def published_page(*, page: int, per_page: int) -> list[Post]:
    """Page `page` (1-based) of the published posts, newest first."""
    return newest_published(skip=(page - 1) * per_page, limit=per_page)


# Lists of posts, newest first, are read in windows of their order's date
# (infra/page_windows.py), as far as the first WINDOWED_REACH posts; a slice beyond is
# one query that the server skips through (every post before it would otherwise come
# to the site).
WINDOWED_REACH = 100


def newest_published(*, skip: int, limit: int) -> list[Post]:
    """`limit` published posts after the newest `skip`, newest first: any slice, also
    one that does not start on a page boundary (a paginator's last page). In windows
    (`_newest`) through `status_published`."""
    return _newest(published_filter, NEWEST_PUBLISHED, skip=skip, limit=limit, hint="newest")


def _newest(query: Callable[[datetime], dict], order: list[tuple[str, int]], *, skip: int, limit: int,
            hint: str, index: str | None = None) -> list[Post]:
    """A slice of the posts `query(now)` matches in `order` (newest first by a date),
    read in windows of that date: DocumentDB sorts whatever an index range holds, so
    one query would sort every post the range holds (every published post, for the
    home page). The first window ends where the first `limit` ended the last time they
    were read (a hint in the cache per list and `limit`, kept only from a full first
    page; with none, one query), so a page costs what it shows; the same posts as one
    query. Past WINDOWED_REACH, one query."""
    now = datetime.now(timezone.utc)
    if skip + limit > WINDOWED_REACH:
        return find_page(query(now), order, skip=skip, limit=limit, index=index)
    key = page_windows.TimeKey(order[0][0])
    name = f"posts:page-hint:{hint}:{limit}"
    previous = page_windows.get_hint(name)

    def window(condition: dict, count: int) -> list[Post]:
        return find_page({"$and": [query(now), condition]} if condition else query(now), order,
                         skip=0, limit=count, index=index)

    found = page_windows.read(key=key, direction=-1, wanted=skip + limit, hint=previous, fetch=window)
    first = found[:limit]
    if first:
        learnt = page_windows.observed(key, count=len(first), first=getattr(first[0], key.field),
                                       last=getattr(first[-1], key.field), wanted=limit, first_page=True,
                                       hint=previous)
        page_windows.set_hint(name, previous=previous, hint=learnt)
    return found[skip:]


def count_published() -> int:
    return get_db().posts.count_documents(published_filter())


def get_published(slug: str) -> Post | None:
    """The published post with this slug, or None (drafts are invisible to readers):
    the post with the slug (index `slug_unique`), kept if the published filter holds."""
    doc = get_db().posts.find_one({"slug": str(slug)}, POST_FIELDS)
    return Post.from_doc(doc) if doc and matches(published_filter(), doc) else None


def find_published_by_slugs(slugs: list[str]) -> list[Post]:
    """The published posts among `slugs`, in one query (the API's comment counts): the
    posts with those slugs (index `slug_unique`), those the published filter holds for."""
    wanted = [str(slug) for slug in slugs]
    published = compile_filter(published_filter())
    return [Post.from_doc(doc) for doc in get_db().posts.find({"slug": {"$in": wanted}}, POST_FIELDS)
            if published(doc)]


AUTHOR_INDEX = "author_created"


def _by_author(username: str, now: datetime | None = None) -> dict:
    return {"author.username": str(username), **published_filter(now)}


def _hint_of(kind: str, name: str) -> str:
    """The windows' hint of an author's or a tag's list (a digest: the name is the reader's)."""
    return f"{kind}:{hashlib.sha256(name.encode()).hexdigest()[:24]}"


def author_published_page(*, username: str, skip: int, limit: int) -> list[Post]:
    """An author's published posts, newest first, in windows (`_newest`) of their
    entries of `author_created`."""
    return _newest(lambda now: _by_author(username, now), NEWEST_CREATED, skip=skip, limit=limit,
                   hint=_hint_of("author", str(username)), index=AUTHOR_INDEX)


def count_author_published(*, username: str) -> int:
    return get_db().posts.count_documents(_by_author(username), hint=AUTHOR_INDEX)


def _by_tag(tag: str, now: datetime | None = None) -> dict:
    return {"tags": str(tag), **published_filter(now)}


def tag_published_page(*, tag: str, skip: int, limit: int) -> list[Post]:
    """The published posts with this tag, newest first, in windows (`_newest`) of
    their entries of `tags_published`."""
    return _newest(lambda now: _by_tag(tag, now), NEWEST_PUBLISHED, skip=skip, limit=limit,
                   hint=_hint_of("tag", str(tag)))


def count_tag_published(*, tag: str) -> int:
    return get_db().posts.count_documents(_by_tag(tag))


def _search(text: str) -> dict:
    """Published posts whose folded text contains the folded `text`, matched literally
    (escaped: a reader's ".*" is two characters). The unanchored regex cannot use an
    index: `status_published` serves the filter and the order, and the regex is
    checked on the posts it yields."""
    folded = fold_for_search(str(text))
    if not folded:
        return {"_id": {"$in": []}}
    return {**published_filter(), "search_text": {"$regex": re.escape(folded)}}


def search_published_page(*, text: str, skip: int, limit: int) -> list[Post]:
    """Published posts whose title, excerpt or text contains `text`, however cased
    and accented (infra.folding.fold_for_search), newest first."""
    return find_page(_search(text), NEWEST_PUBLISHED, skip=skip, limit=limit)


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
    cursor = get_db().posts.find(published_filter(), fields).sort(NEWEST_PUBLISHED)
    return [
        PostLink(slug=d["slug"], lastmod=max(filter(None, [d["published"], d.get("updated")])))
        for d in cursor
    ]


def published_tags() -> list[str]:
    """The tags of published posts, sorted."""
    return sorted(get_db().posts.distinct("tags", published_filter()))


def published_author_usernames() -> list[str]:
    """The usernames of authors with a published post, sorted."""
    return sorted(get_db().posts.distinct("author.username", published_filter()))
