"""The server's plan and time for a reader's page, read as one query and in windows.

Builds one discussion of `--comments` comments (default 20,000) in a scratch MongoDB
database (dropped at the end) and, for page 1 and a cursor page of the threaded,
newest and chronological views, prints each query the documents store sends, the
server's `explain` of it (condensed: the plan's nodes, the index, its condition and
the rows the planner expects) and the median time of the page, first as one unbounded
query (infra/page_windows.py with MAX_WINDOWS 0, as pages were read before), then
in windows. docs/performance.md quotes it.

    MONGODB_URI=mongodb://127.0.0.1:<port>/ .venv/bin/python bench/page_plans.py
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.django_setup import setup  # noqa: E402

setup()

from bson import ObjectId  # noqa: E402
from django.conf import settings  # noqa: E402
from pymongo import monitoring  # noqa: E402

from infra import page_windows  # noqa: E402
from comments.benchmark import insert_discussion  # noqa: E402
from comments.stores import get_store  # noqa: E402
from infra import mongo  # noqa: E402

SKIPPED = {"lsid", "$db", "$clusterTime", "maxTimeMS", "$readPreference", "txnNumber"}


class Sent(monitoring.CommandListener):
    def __init__(self) -> None:
        self.finds: list[dict] = []

    def started(self, event):
        if event.command_name == "find":
            self.finds.append({k: v for k, v in dict(event.command).items() if k not in SKIPPED})

    def succeeded(self, event):
        pass

    def failed(self, event):
        pass


def condensed(plan, depth: int = 0) -> list[str]:
    """PostgreSQL's (or MongoDB's) plan tree, one line per node."""
    lines = []
    if isinstance(plan, dict):
        kind = plan.get("Node Type") or plan.get("stage")
        if kind:
            facts = [f"{k}={plan[k]}" for k in ("Index Name", "indexName", "Plan Rows") if k in plan]
            if "Index Cond" in plan:
                facts.append("Index Cond: " + decoded(plan["Index Cond"]))
            if "indexBounds" in plan:
                facts.append(f"bounds {plan['indexBounds']}")
            lines.append("  " * depth + f"{kind} " + " ".join(facts))
            depth += 1
        for value in plan.values():
            if isinstance(value, (dict, list)):
                lines += condensed(value, depth)
    elif isinstance(plan, list):
        for item in plan:
            lines += condensed(item, depth)
    return lines


def decoded(condition: str) -> str:
    """DocumentDB's index condition with its BSON operands shown as documents."""
    from bson import decode

    parts = []
    for piece in condition.split("'"):
        if piece.startswith("BSONHEX"):
            try:
                piece = str(decode(bytes.fromhex(piece[len("BSONHEX"):])))
            except Exception:  # not a whole document: leave it as the server wrote it
                pass
        parts.append(piece)
    return "'".join(parts)


def show(db, sent: Sent, label: str, read, repeat: int) -> None:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        read()
        times.append((time.perf_counter() - began) * 1000)
    sent.finds.clear()
    read()
    print(f"\n== {label}: median {statistics.median(times):.1f} ms over {repeat}, {len(sent.finds)} find(s)")
    for command in sent.finds:
        print(f"   filter {command.get('filter')}")
        plan = db.command("explain", command, verbosity="queryPlanner")["queryPlanner"]
        for line in condensed(plan):
            print("     " + line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--comments", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    settings.MONGODB_NAME = f"slugline_bench_{uuid.uuid4().hex[:8]}"
    sent = Sent()
    monitoring.register(sent)
    mongo.reset_client()
    store = get_store("documents")
    db = mongo.get_db()
    store.ensure_indexes(db)
    try:
        discussion_id = ObjectId()
        began = time.perf_counter()
        insert_discussion(store, discussion_id=discussion_id, count=args.comments, rng=random.Random(1),
                          start=datetime(2026, 1, 1, tzinfo=timezone.utc))
        server = mongo.get_client().server_info()
        print(f"{args.comments:,} comments in {time.perf_counter() - began:.0f} s; server MongoDB "
              f"{server.get('version')} (FerretDB {(server.get('ferretdb') or {}).get('version', '-')})")
        for view in ("threaded", "newest", "chronological"):
            key = store.find_page(discussion_id=discussion_id, order=view, limit=1, skip=5_000)[0].key(view)

            def first(view=view):
                return store.find_page(discussion_id=discussion_id, order=view, limit=51)

            def cursor(view=view, key=key):
                return store.find_page(discussion_id=discussion_id, order=view, limit=51, after=key)

            for windows in (0, page_windows.MAX_WINDOWS):
                saved, page_windows.MAX_WINDOWS = page_windows.MAX_WINDOWS, windows
                try:
                    how = "one query" if windows == 0 else "windows"
                    show(db, sent, f"{view} page 1, {how}", first, args.repeat)
                    show(db, sent, f"{view} page after comment 5,001, {how}", cursor, args.repeat)
                finally:
                    page_windows.MAX_WINDOWS = saved
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)
    return 0


if __name__ == "__main__":
    sys.exit(main())
