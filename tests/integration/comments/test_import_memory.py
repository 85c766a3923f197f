"""The import's memory stays flat with replies whose parent never comes, all in one
thread (issue 36, item 30): measured with tracemalloc, at two sizes five times apart,
each past the engine's memory bounds and batches (shrunk here so that a small run
crosses them as a file of 50,000 orphans crosses the real ones). bench/imports.py
measures the real sizes."""

import tracemalloc
from datetime import UTC, datetime, timedelta

import pytest

from comments.stores import counters, get_store
from comments.transfer import import_waiting, importing
from comments.transfer.import_records import SourceComment, SourceThread
from comments.transfer.importing import Importer
from tests import database

START = datetime(2016, 3, 1, tzinfo=UTC)
BODY = "<p>" + "orphaned words " * 70 + "</p>"  # about 1 KB, as a real comment's
SMALL, LARGE = 200, 1_000
BOUND = 50  # every bound and batch of the engine, the waiting replies and the recount
# What the larger run may take above the smaller one. When the end's recount read the
# discussion whole, 800 more orphans took 5.5 MB more (6.3 MB on the buckets store); a
# flat import takes 0.3 to 0.6 MB more, Python's free lists filling up.
ALLOWED_GROWTH = 1_500_000


def peak_importing_orphans(post, n: int) -> int:
    """The peak of Python's allocations (bytes) while `n` orphans are imported onto
    `post`, each naming a parent that never comes; the comments are made as they are
    handed in, so the input itself is not counted."""
    source = f"orphans{n}"
    importer = Importer(source=source, batch_size=BOUND, waiting_limit=BOUND)
    importer.add_thread(SourceThread(source=source, key="t1"), post_id=post.id)
    tracemalloc.start()
    try:
        for k in range(n):
            importer.add(SourceComment(source=source, id=f"o{k}", thread="t1", parent=f"gone{k}",
                                       posted=START + timedelta(seconds=k), html=BODY, author_name="R"))
        report = importer.finish()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.orphans_total == report.imported == n
    return peak


@pytest.mark.usefixtures("each_store")
@pytest.mark.stores("documents", "buckets")  # embedded: a discussion is one document, read whole anyway
def test_orphans_in_one_thread_keep_the_import_memory_flat(make_post, monkeypatch):
    for module, bound in [(importing, "KNOWN_LIMIT"), (import_waiting, "QUERY_BATCH"), (counters, "SCAN_BATCH")]:
        monkeypatch.setattr(module, bound, BOUND)
    # The suite's command counter keeps every command sent (each batch's documents).
    monkeypatch.setattr(database.COUNTER, "started", lambda event: None)
    small, large = make_post(), make_post()
    grown = peak_importing_orphans(large, LARGE) - peak_importing_orphans(small, SMALL)
    assert len(list(get_store().iter_documents(discussion_id=large.id))) == LARGE
    assert grown < ALLOWED_GROWTH, f"{LARGE} orphans took {grown / 1e6:.1f} MB more than {SMALL}"
