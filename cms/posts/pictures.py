"""The library pictures a post shows (`media`: what `using_media` finds and what keeps a
picture from being deleted), what makes the list, and the backfill that recounts posts
counted before or by an older count.

`media` holds the keys of the pictures the post's rendered content shows or links
(media/references.py reads them from the HTML, whatever the Markdown's spelling) and
its cover; MEDIA_VERSION says which count made it, so the release step recounts posts
whose list is missing or older (`backfill_media`): a picture an older count missed is
protected once the release has run, not only after its post's next edit.
"""

from __future__ import annotations

from pymongo.database import Database

from cms.posts.backfill import rewrite_stale
from media.references import keys_in

# 1: one Markdown spelling, by a regular expression; 2: what the post renders.
MEDIA_VERSION = 2
# Posts recounted per release run at most, and per bulk write (as search's backfill).
BACKFILL_LIMIT = 20_000
BACKFILL_BATCH = 200


def media_keys(*, content: str, cover: str) -> list[str]:
    """The library images a post shows: those its content shows or links, and its cover."""
    return list(dict.fromkeys(keys_in(content) + ([cover] if cover else [])))


def media_fields(*, content: str, cover: str) -> dict:
    return {"media": media_keys(content=content, cover=cover), "media_version": MEDIA_VERSION}


def backfill_media(db: Database, *, limit: int = BACKFILL_LIMIT) -> int:
    """Recount the pictures of up to `limit` posts counted before MEDIA_VERSION; how
    many were written (cms/posts/backfill.py)."""
    return rewrite_stale(
        db, stale={"media_version": {"$ne": MEDIA_VERSION}}, read={"content": 1, "cover": 1},
        make=lambda doc: media_fields(content=doc.get("content", ""), cover=str(doc.get("cover") or "")),
        limit=limit, batch_size=BACKFILL_BATCH,
    )
