"""Search: a folded copy of each post's text (`search_text`), what makes it, and the
backfill that refolds posts stored without it or with an older folding. The reader's
search query itself is in reading.py."""

from __future__ import annotations

from pymongo.database import Database

from cms.posts.backfill import rewrite_stale
from infra.folding import fold_for_search
from infra.html_text import html_text

# `search_text` holds the post's title, excerpt and content as plain text folded by
# infra.folding.fold_for_search (no case, no Latin diacritics: "duong" finds "Đường"), written
# in the same update as the text; SEARCH_VERSION says which folding made it, so the
# release step refolds posts whose copy is missing or older (`backfill_search_text`).
SEARCH_VERSION = 1
# Posts folded per release run at most, and per bulk write: bounded, so a release
# never stalls on a large collection; the next run carries on where it stopped.
BACKFILL_LIMIT = 20_000
BACKFILL_BATCH = 200
def search_text(*, title: str, excerpt: str, content_html: str) -> str:
    """What search matches a post by: its title, excerpt and text, folded."""
    return fold_for_search(" ".join([title, excerpt, html_text(content_html)]))


def search_fields(*, title: str, excerpt: str, content_html: str) -> dict:
    return {
        "search_text": search_text(title=title, excerpt=excerpt, content_html=content_html),
        "search_version": SEARCH_VERSION,
    }


def backfill_search_text(db: Database, *, limit: int = BACKFILL_LIMIT) -> int:
    """Fold the text of up to `limit` posts whose `search_text` is missing or older
    than SEARCH_VERSION; how many were written. Safe to rerun: a folded post no
    longer matches, and an edit meanwhile (which writes its own) is not overwritten."""
    return rewrite_stale(
        db, stale={"search_version": {"$ne": SEARCH_VERSION}}, read={"title": 1, "excerpt": 1, "content_html": 1},
        make=lambda doc: search_fields(
            title=doc.get("title", ""), excerpt=doc.get("excerpt") or "", content_html=doc.get("content_html", "")
        ),
        limit=limit, batch_size=BACKFILL_BATCH,
    )
