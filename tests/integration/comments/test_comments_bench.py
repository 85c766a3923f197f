"""comments_bench (comments/benchmark.py): the data it builds and the table it prints."""

from __future__ import annotations

import random
from datetime import datetime, timezone
from io import StringIO

from bson import ObjectId
from django.core.management import call_command

from comments import benchmark as bench, slugs
from comments.stores import STORES
from infra import mongo


def test_sizes_form_a_long_tail_from_the_largest_discussion():
    assert bench.sizes(discussions=4, max_comments=1000, tail=1.0) == [1000, 500, 333, 250]
    assert bench.sizes(discussions=3, max_comments=2, tail=2.0) == [2, 1, 1]


def test_generated_discussions_are_threaded_like_the_site_threads_them(settings):
    """Every reply follows its parent, keeps its path and stays under the depth cap."""
    settings.COMMENTS_MAX_DEPTH = 4
    discussion_id = ObjectId()
    docs = bench.discussion_documents(discussion_id=discussion_id, count=500, rng=random.Random(3),
                                      start=datetime(2026, 1, 1, tzinfo=timezone.utc))
    seen = {}
    for doc in docs:
        parent = slugs.parent_slug(doc["slug"])
        assert parent is None or seen[parent]["full_slug"] == doc["full_slug"].rsplit("/", 1)[0]
        assert slugs.depth(doc["slug"]) < 4 and doc["discussion_id"] == discussion_id
        seen[doc["slug"]] = doc
    assert len(seen) == 500 and any(slugs.depth(s) >= 2 for s in seen)


def test_comments_bench_prints_one_row_per_operation_and_one_column_per_store():
    """A small run measures every operation in every store and drops its scratch database."""
    before = set(mongo.get_client().list_database_names())
    out = StringIO()
    call_command("comments_bench", "--discussions", "3", "--max-comments", "30", "--repeat", "2",
                 "--deep-page", "2", stdout=out)
    text = out.getvalue()
    assert f"| operation | {' | '.join(STORES)} |" in text
    for operation in bench.OPERATIONS:
        row = next(line for line in text.splitlines() if line.startswith(f"| {operation} |"))
        assert row.count(" / ") == 3 * len(STORES), row
    assert "3 discussions, 55 comments per store (largest 30" in text
    assert set(mongo.get_client().list_database_names()) <= before
