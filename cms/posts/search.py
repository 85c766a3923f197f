"""Search: a folded copy of each post's text (`search_text`), what makes it, and the
backfill that refolds posts stored without it or with an older folding. The reader's
search query itself is in reading.py."""

from __future__ import annotations

from html.parser import HTMLParser

from pymongo import UpdateOne
from pymongo.database import Database

from comments.folding import fold

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


def search_fields(*, title: str, excerpt: str, content_html: str) -> dict:
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
        folded = search_fields(
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
