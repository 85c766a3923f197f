"""Large discussions for the benchmarks, built as the flat comment documents every
store imports (`store.insert_documents`), in batches: 100,000 comments in a minute or
two instead of one `post_comment` round trip each."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta

from bson import ObjectId

from comments import slugs
from comments.records import APPROVED, CommentAuthor, new_document

NAMES = ("Ada", "Bruno", "Chen", "Dara", "Emil", "Farah", "Goran", "Hana")
BATCH = 2_000


def flat_discussion(*, discussion_id: ObjectId, count: int, rng: random.Random, start: datetime,
                    max_depth: int = 8) -> Iterator[dict]:
    """`count` threaded comments in posting order: mostly replies to recent comments,
    which makes deep threads, as cms.demo.seed_comments does."""
    recent: list[dict] = []
    moment = start
    for n in range(count):
        moment += timedelta(seconds=rng.choice([0, 1, 30, 120]) + rng.random())
        part = "".join(rng.choice(slugs.PART_ALPHABET) for _ in range(slugs.PART_LENGTH))
        parent = None
        if recent and rng.random() < 0.65:
            parent = recent[-1 - min(int(rng.expovariate(0.5)), len(recent) - 1)]
        if parent is not None and slugs.depth(parent["slug"]) < max_depth:
            slug, full_slug = slugs.child_slugs(parent_slug=parent["slug"], parent_full_slug=parent["full_slug"],
                                                posted=moment, part=part)
        else:
            parent = None
            slug, full_slug = slugs.root_slugs(posted=moment, part=part)
        name = rng.choice(NAMES)
        text = f"Comment {n} by {name}: a few words about the post."
        doc = new_document(
            discussion_id=discussion_id, parent=None, slug=slug, full_slug=full_slug, posted=moment,
            author=CommentAuthor(id=None, name=name, email=f"{name.lower()}@example.com"),
            text=text, html=f"<p>{text}</p>", form_key=None, status=APPROVED, ip=None,
        )
        doc["parent_id"] = parent["_id"] if parent else None
        recent = (recent + [doc])[-50:]
        yield doc


def insert_discussion(store_module, **fields) -> int:
    """Insert a flat discussion through the store (any store), BATCH at a time."""
    batch, total = [], 0
    for doc in flat_discussion(**fields):
        batch.append(doc)
        if len(batch) == BATCH:
            total += store_module.insert_documents(documents=batch)
            batch = []
    if batch:
        total += store_module.insert_documents(documents=batch)
    return total
