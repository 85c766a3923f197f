"""Benchmark: what the documents store's indexes cost a write (issue 39, "every index
earns its keep").

Makes --comments stored comments (default 20,000) with the store's own code path
(`comments.benchmark.discussion_documents`, which builds each with
`records.new_document`), over discussions of about --per-discussion comments, from a
pool of commenters (a share of them members) and addresses, with a realistic share
held (pending, spam or deleted), flagged and down-voted (--share each, default 1%).
Then it inserts the same documents, `insert_many` in unordered batches of --batch
(as `DocumentsStore._insert_documents` does), into three scratch collections:

  seeds   the pattern's three indexes (storage-patterns.md) and `_id`
  main    the store's indexes before issue 39 (13 and `_id`), listed here
  store   the store's indexes now (comments/stores/documents.py INDEXES)

The batches are interleaved (batch 1 into each collection, then batch 2, each round
in a rotated order), so a shared, loaded machine slows every set alike and the ratios
compare. It prints each set's rate, the ratios to the seeds' rate, and the target
(store / seeds >= 0.8) as met or not; with --repeat, one line per pass and the median.
With --each, every pass also fills one collection per index of the store beyond the
seeds' (the seeds and that index alone) and prints what each index costs a write:
its rate as a ratio to the seeds' (median of the passes), which says where the rest
of the gap to the target is. With --parts, it also takes the seeds' own cost apart:
`_id` alone, and `_id` with each of the seeds' three alone. With --without NAME,...
it also fills a collection with the store's indexes less those named (what leaving
them out, or folding them into others, would gain a write at most). With
--term-per-key (DocumentDB only: MongoDB refuses the option), it also fills one with
the seeds and `queue_recent` made with `enableCompositeTerm: false`, a term per key
rather than one composite term a document, beside the seeds and `queue_recent` as the
store makes it (docs/deploy.md says why a FerretDB server needs its setting).

    MONGODB_URI=mongodb://127.0.0.1:<port>/ .venv/bin/python bench/indexes.py

Everything happens in a scratch database, dropped at the end. Say which server the
figures came from (the first line prints what it reports) and the machine's load
(printed before and after) whenever you quote them.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.django_setup import setup  # noqa: E402

setup()

from bson import ObjectId
from pymongo import ASCENDING, DESCENDING, IndexModel
from pymongo.database import Database

from comments import scores
from comments.benchmark import discussion_documents
from comments.records import DELETED, PENDING, SPAM
from comments.stores.documents import INDEXES
from infra import mongo

TARGET = 0.8
START = datetime(2026, 1, 1, tzinfo=UTC)
# The pattern's three (storage-patterns.md), by their names in the store.
SEEDS = ("discussion_slug", "discussion_full_slug", "discussion_posted")
# The index --term-per-key makes both ways (one that holds every comment).
RECENT = "queue_recent"
# The store's indexes before issue 39 (comments/stores/documents.py at the time): the
# "before" of this benchmark, built in the same run as the store's indexes now.
MAIN = [
    IndexModel([("discussion_id", ASCENDING), ("slug", ASCENDING)], unique=True, name="discussion_slug"),
    IndexModel([("discussion_id", ASCENDING), ("full_slug", ASCENDING)], name="discussion_full_slug"),
    IndexModel([("discussion_id", ASCENDING), ("posted", ASCENDING), ("_id", ASCENDING)], name="discussion_posted"),
    IndexModel([("discussion_id", ASCENDING), ("thread", DESCENDING), ("full_slug", ASCENDING)],
               name="discussion_thread_newest"),
    IndexModel([("discussion_id", ASCENDING), ("parent_id", ASCENDING), ("picked", DESCENDING), ("rank", DESCENDING),
                ("posted", DESCENDING), ("_id", DESCENDING)], name="discussion_best"),
    IndexModel([("discussion_id", ASCENDING), ("parent_id", ASCENDING), ("score", DESCENDING), ("posted", DESCENDING),
                ("_id", DESCENDING)], name="discussion_top"),
    IndexModel([("status", ASCENDING), ("posted", DESCENDING)], name="status_posted"),
    IndexModel([("posted", DESCENDING)], name="posted"),
    IndexModel([("flag_count", DESCENDING), ("posted", DESCENDING)], name="flagged"),
    IndexModel([("score", ASCENDING), ("posted", DESCENDING)], name="downvoted"),
    IndexModel([("author.email", ASCENDING), ("posted", DESCENDING)], name="author_email"),
    IndexModel([("author.id", ASCENDING), ("posted", DESCENDING)], name="author_id"),
    IndexModel([("ip", ASCENDING), ("posted", DESCENDING)], name="ip"),
]


def index_sets(*, each: bool = False, parts: bool = False, without: tuple[str, ...] = (),
               term_per_key: bool = False) -> dict[str, list[IndexModel]]:
    """The three sets the benchmark compares; with `each` the seeds plus one other
    index of the store's, under that index's name (`+name`); with `parts`, `_id`
    alone (`=_id`) and with each seed alone (`=name`); with `without`, the store's
    indexes less those (`-`); with `term_per_key`, the seeds plus `queue_recent` as
    the store makes it (`+queue_recent`) and with a term per key (`*queue_recent`)
    (module docstring)."""
    seeds = [model for model in INDEXES if model.document["name"] in SEEDS]
    sets = {"seeds": seeds, "main": MAIN, "store": list(INDEXES)}
    if each:
        sets |= {f"+{model.document['name']}": seeds + [model] for model in INDEXES if model not in seeds}
    if parts:
        sets |= {"=_id": []} | {f"={model.document['name']}": [model] for model in seeds}
    if without:
        unknown = set(without) - {model.document["name"] for model in INDEXES}
        if unknown:
            raise SystemExit(f"--without: the store has no index {', '.join(sorted(unknown))}")
        sets["-"] = [model for model in INDEXES if model.document["name"] not in without]
    if term_per_key:
        (recent,) = (model for model in INDEXES if model.document["name"] == RECENT)
        sets[f"+{RECENT}"] = seeds + [recent]
        sets[f"*{RECENT}"] = seeds + [IndexModel(list(recent.document["key"].items()), name=RECENT,
                                                 enableCompositeTerm=False)]
    return sets


def stored_comments(*, count: int, per_discussion: int, share: float, members: float, rng: random.Random) -> list[dict]:
    """`count` stored comments as the store writes them, over discussions of about
    `per_discussion`, by a pool of commenters (`members` of them logged in), with
    `share` of them held, `share` flagged and `share` down-voted."""
    documents: list[dict] = []
    while len(documents) < count:
        documents += discussion_documents(discussion_id=ObjectId(), count=min(per_discussion, count - len(documents)),
                                          rng=rng, start=START + timedelta(days=len(documents) // per_discussion))
    commenters = max(10, count // 10)
    for document in documents:
        who = rng.randrange(commenters)
        document["author"] = {"id": who + 1 if who < commenters * members else None, "name": f"Reader {who}",
                              "email": f"reader{who}@example.com"}
        document["ip"] = f"198.51.{who // 250 % 256}.{who % 250}"
        draw = rng.random()
        if draw < share:
            document["status"] = rng.choice([PENDING, SPAM, DELETED])
        elif draw < 2 * share:
            document["flag_count"] = rng.randint(1, 3)
        elif draw < 3 * share:
            up, down = rng.randint(0, 3), rng.randint(4, 9)
            document.update(votes={"up": up, "down": down}, score=up - down, rank=scores.wilson_lower_bound(up, down))
    return documents


def one_pass(db: Database, documents: list[dict], *, batch: int, **kinds: Any) -> dict[str, float]:
    """Insert `documents` into one fresh collection per index set (`index_sets` of
    `kinds`), batch by batch in rotated order; each set's rate in comments per second."""
    sets = index_sets(**kinds)
    collections = {}
    for name, models in sets.items():
        collection = db[f"comments_{name.lstrip('+=-*') or 'without'}_{uuid.uuid4().hex[:6]}"]
        if models:
            collection.create_indexes(models)
        else:
            db.create_collection(collection.name)
        collections[name] = collection
    seconds = dict.fromkeys(sets, 0.0)
    names = list(sets)
    for round_, start in enumerate(range(0, len(documents), batch)):
        chunk = documents[start:start + batch]
        for name in names[round_ % len(names):] + names[:round_ % len(names)]:
            began = time.perf_counter()
            collections[name].insert_many(chunk, ordered=False)
            seconds[name] += time.perf_counter() - began
    for collection in collections.values():
        if collection.count_documents({}) != len(documents):
            raise AssertionError(f"{collection.name} holds {collection.count_documents({})} of {len(documents)}")
        collection.drop()
    return {name: len(documents) / spent for name, spent in seconds.items()}


def describe(documents: list[dict]) -> str:
    held = sum(d["status"] in (PENDING, SPAM, DELETED) for d in documents)
    flagged = sum(d.get("flag_count", 0) > 0 for d in documents)
    down = sum(d["score"] < 0 for d in documents)
    roots = sum(d["parent_id"] is None for d in documents)
    members = sum(d["author"]["id"] is not None for d in documents)
    n = len(documents)
    return (f"{n:,} comments on {len({d['discussion_id'] for d in documents}):,} discussions: "
            f"{roots / n:.0%} top-level, {members / n:.0%} by members, {held / n:.1%} held, "
            f"{flagged / n:.1%} flagged, {down / n:.1%} down-voted")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--comments", type=int, default=20_000)
    parser.add_argument("--per-discussion", type=int, default=200)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--share", type=float, default=0.01, help="held, flagged and down-voted, each")
    parser.add_argument("--members", type=float, default=0.3, help="share of commenters logged in")
    parser.add_argument("--repeat", type=int, default=1, help="passes, each into fresh collections")
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--each", action="store_true", help="also each index of the store alone with the seeds")
    parser.add_argument("--parts", action="store_true", help="also _id alone and each of the seeds alone")
    parser.add_argument("--without", default="", help="also the store's indexes less these (names, comma-separated)")
    parser.add_argument("--term-per-key", action="store_true",
                        help=f"also {RECENT} with a term per key (DocumentDB only)")
    args = parser.parse_args()
    kinds = dict(each=args.each, parts=args.parts, without=tuple(name for name in args.without.split(",") if name),
                 term_per_key=args.term_per_key)
    index_sets(**kinds)  # an unknown name stops here, before the comments are made
    documents = stored_comments(count=args.comments, per_discussion=args.per_discussion, share=args.share,
                                members=args.members, rng=random.Random(args.seed))
    facts = mongo.server_facts()
    ferretdb = facts.get("ferretdb", {}).get("version")
    print(f"Server: reports MongoDB {facts.get('version', '?')}" + (f", FerretDB {ferretdb}" if ferretdb else ""))
    print(describe(documents))
    print(f"Indexes: seeds {len(index_sets()['seeds']) + 1}, main {len(MAIN) + 1}, store {len(INDEXES) + 1} "
          "(with _id); insert_many, unordered batches of " f"{args.batch:,}, interleaved")
    print(f"Load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    db = mongo.get_client()[f"slugline_bench_{uuid.uuid4().hex[:8]}"]
    ratios: dict[str, list[float]] = {name: [] for name in index_sets(**kinds) if name != "seeds"}
    try:
        print(f"{'pass':>4} {'seeds /s':>10} {'main /s':>10} {'store /s':>10} {'main/seeds':>11} {'store/seeds':>12}")
        for n in range(1, args.repeat + 1):
            rates = one_pass(db, documents, batch=args.batch, **kinds)
            for name in ratios:
                ratios[name].append(rates[name] / rates["seeds"])
            print(f"{n:>4} {rates['seeds']:>10,.0f} {rates['main']:>10,.0f} {rates['store']:>10,.0f} "
                  f"{ratios['main'][-1]:>11.2f} {ratios['store'][-1]:>12.2f}")
    finally:
        mongo.get_client().drop_database(db.name)
    print(f"Load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if args.each:
        print("\nEach index alone with the seeds' three (median ratio to the seeds'; 1.00: free):")
        for name in (name for name in ratios if name.startswith("+")):
            print(f"  {name[1:]:<26} {statistics.median(ratios[name]):.2f}")
    if args.parts:
        print("\nThe seeds' parts (median ratio to the seeds' three; above 1: cheaper):")
        for name in (name for name in ratios if name.startswith("=")):
            print(f"  {name[1:] if name == '=_id' else '_id + ' + name[1:]:<32} {statistics.median(ratios[name]):.2f}")
    if args.term_per_key:
        print(f"\n{RECENT} with the seeds' three (median ratio to the seeds'): one composite term a document "
              f"{statistics.median(ratios['+' + RECENT]):.2f}, a term per key {statistics.median(ratios['*' + RECENT]):.2f}")
    if kinds["without"]:
        print(f"\nThe store's indexes without {', '.join(kinds['without'])} (median ratio to the seeds'): "
              f"{statistics.median(ratios['-']):.2f}")
    before, after = statistics.median(ratios["main"]), statistics.median(ratios["store"])
    print("\ntarget (a figure, not a test):")
    print(f"  insert_many with the store's indexes >= {TARGET}x the seeds' three: {after:.2f}x, "
          f"{'met' if after >= TARGET else 'NOT met'} (before, main's indexes: {before:.2f}x)")


if __name__ == "__main__":
    main()
