"""The end of an import (comments/transfer/importing.py; the JSON Lines restore's too,
backup.py, whose comments bring their placeholders): once per discussion written
to, its placeholders (the importer's own `repair`), then its counters, recounted from
its comments as they now stand (`counters.recount`: the comments went in outside
`change`), then the host's summary of it (`summaries.read_summary`, `hand_over`), its
newest comments read from where the recount saw them begin (one window of `posted`).

Each discussion's placeholders, counters and summary are its own business, so
END_THREADS discussions are done at once, each by a thread, their queries overlapping
on the server (most of this time is waiting for round trips); each summary is handed
to the host in the caller's thread, in the discussions' order, since a host may keep
them in a database its threads should not share. Every step is idempotent: a run
stopped here is finished by the next, which comes back to the discussions it writes to.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from bson import ObjectId

from comments.stores import counters, get_store, summaries

END_THREADS = 4


def settle(discussion_ids: list[ObjectId], *, repair: Callable[[ObjectId], None] | None = None) -> None:
    """Bring each discussion's placeholders (`repair`; none when its comments brought
    theirs), counters and summary up to date."""
    store = get_store()

    def count(discussion_id: ObjectId) -> summaries.Summary:
        if repair is not None:
            repair(discussion_id)
        surveyed = counters.recount(discussion_id, store=store, newest=summaries.LATEST_COUNT)
        return summaries.read_summary(discussion_id, newest=surveyed.newest)

    with ThreadPoolExecutor(max_workers=END_THREADS, thread_name_prefix="import-end") as pool:
        for summary in pool.map(count, discussion_ids):  # the first error, if any, is raised here
            summaries.hand_over(summary)
