"""Benchmark: what selecting comments in Python costs the embedded store, which
evaluates each `Query`'s MongoDB filter on every comment it unpacks
(comments/stores/queries.py with infra/matching.py). Pure: no database.

Builds one discussion of each size in `--sizes` (default 1,000 and 10,000 comments,
about a fifth of them replies, a tenth pending, spam or deleted, some placeholders,
flags and votes) as the embedded store unpacks it (Comment records), and times, per
size, what a page and a count of that discussion do in Python:

- a reader's threaded page 1 (50 comments: the filter of what a reader sees, the
  threaded order, the slice);
- a reader's count of the listing (`tally`);
- the moderation queue's "recent" tab filtered by a name typed without diacritics
  ("nguyen"), first 50, newest first;
- a later chronological page after a cursor (the keyset condition evaluated too).

Each answer is checked against the same selection written out by hand here (not
with the matcher): the page's comments, the count and the queue's comments must be
the ones the rules say. Prints the median and p95 over `--runs` runs and the cost
per comment read.

    .venv/bin/python bench/matching.py [--sizes 1000,10000] [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "slugline.settings")

from bson import ObjectId  # noqa: E402

from infra import folding  # noqa: E402
from comments.records import (  # noqa: E402
    APPROVED,
    DELETED,
    HIDDEN,
    ORDERS,
    PENDING,
    READERS,
    SPAM,
    Comment,
    CommentAuthor,
    QueueFilter,
    queue_order,
)
from comments.stores import Query  # noqa: E402
from comments.stores.containers import in_python, sort, tally_of  # noqa: E402

START = datetime(2026, 1, 1, tzinfo=UTC)
NAMES = ["Nguyễn Văn An", "Trần Thị Bình", "Ada", "Rosa", "Priya Sharma", "Budi Santoso"]


def discussion(size: int, seed: int = 7) -> list[Comment]:
    """`size` comments of one discussion, as the embedded store unpacks them."""
    rng = random.Random(seed)
    discussion_id = ObjectId()
    comments: list[Comment] = []
    for n in range(size):
        parent = rng.choice(comments) if comments and rng.random() < 0.2 and comments[-1].slug.count("/") < 4 else None
        part = f"{n:06d}"
        slug = f"{parent.slug}/{part}" if parent else part
        full_slug = f"{parent.full_slug}/{part}" if parent else f"{n:06d}:{part}"
        status = rng.choices([APPROVED, PENDING, SPAM, DELETED], weights=[90, 4, 3, 3])[0]
        up, down = rng.randint(0, 5), rng.randint(0, 3)
        comments.append(Comment(
            id=ObjectId(), discussion_id=discussion_id, parent_id=parent.id if parent else None, slug=slug,
            full_slug=full_slug, thread=full_slug.split("/")[0], posted=START + timedelta(seconds=n),
            author=CommentAuthor(id=rng.choice([None, 1, 2, 3]), name=rng.choice(NAMES), email="a@example.com"),
            text="x" * 200, html="<p>" + "x" * 200 + "</p>", status=status,
            placeholder=status != APPROVED and rng.random() < 0.3, ip="192.0.2.1", flag_count=rng.choice([0, 0, 1]),
            votes_up=up, votes_down=down, score=up - down,
        ))
    return comments


def timed(work: Callable[[], object], runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.95))]


def seen_by_readers(c: Comment) -> bool:
    return c.status not in HIDDEN or c.placeholder


def run(size: int, runs: int) -> None:
    comments = discussion(size)
    threaded = tuple(ORDERS["threaded"])
    page = Query(discussion_id=comments[0].discussion_id, viewer=READERS, order=threaded, limit=50)
    expected_page = sort([c for c in comments if seen_by_readers(c)], threaded)[:50]
    assert in_python(comments, page) == expected_page, "the reader's page is not the threaded first 50"
    listing = Query(discussion_id=comments[0].discussion_id, viewer=READERS)
    assert tally_of(comments, listing).total == sum(map(seen_by_readers, comments)), "the count is wrong"
    queue = Query(tab="recent", filters=QueueFilter(name="nguyen"), order=tuple(queue_order("recent")), limit=50)
    expected_queue = sort([c for c in comments if folding.contains(c.author.name, "nguyen")],
                          queue_order("recent"))[:50]
    assert in_python(comments, queue) == expected_queue, "the queue's name filter found other comments"
    chronological = tuple(ORDERS["chronological"])
    middle = comments[size // 2]
    later = Query(discussion_id=middle.discussion_id, viewer=READERS, order=chronological, limit=50,
                  after=middle.key("chronological"))
    assert in_python(comments, later) == [c for c in comments[size // 2 + 1:] if seen_by_readers(c)][:50]
    for name, work in [("reader's threaded page 1", lambda: in_python(comments, page)),
                       ("reader's count", lambda: tally_of(comments, listing)),
                       ("queue, name filter", lambda: in_python(comments, queue)),
                       ("chronological page after a cursor", lambda: in_python(comments, later))]:
        median, p95 = timed(work, runs)
        print(f"{size:>7} comments  {name:<36} median {median:8.2f} ms  p95 {p95:8.2f} ms  "
              f"{median * 1000 / size:6.2f} µs per comment")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        run(size, args.runs)


if __name__ == "__main__":
    main()
