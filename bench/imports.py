"""Benchmark: importing a large Disqus export (comments/transfer/disqus.py) at the
database's pace, in bounded memory.

Writes a generated export of --comments posts (default 20,000) over threads of about
--per-thread comments, each body padded to about --body-bytes bytes of HTML, as Disqus
lays them out (every <thread>, then every <post>); most are replies to a recent comment
of their thread and about one in twenty comes before its parent. Then, in a scratch
database with a post for each thread, it imports the file with `disqus.run` into the
store in use and prints the file's size, the time, comments per second and the peak
memory of the import (the process's peak resident size and its render workers'
(comments/transfer/import_render.py; `--workers N` sets how many, 0 none); with
`--trace`, Python's allocations too, under tracemalloc, which slows Python down).

In the same run it measures the reference: the raw `insert_many` rate of the very
documents the import stored (the comments, or the embedded and buckets stores'
containers), read back and inserted in ordered batches into a scratch collection
with the store's own indexes (copied from its collection, whatever they are). It prints
the import's rate beside it, the ratio and the target: met or NOT met (>= 0.5 for the
documents store, >= 0.25 for embedded and buckets). It checks that every comment of
the file is stored exactly once (WRONG otherwise).

`--orphans N` adds N replies whose parent never appears (each names a parent of its
own that is not in the file): they wait for it until the end, then go to the top
level; `--one-thread` puts them all in one thread. The run checks every orphan was
imported at the top level, and that the import reported no other orphan.

`--memory 20000,200000` runs the import once per size, each in a process of its own
(so that each peak resident size is its own), then once more at the first size with
`--orphans` replies in one thread (50,000 unless `--orphans` says), and prints one
table and whether the peak is flat: every run's peak resident size within 15% of the
first's (the import's process, and its largest render worker). `--sweep 0,10000,50000` does the same for orphan counts at one size.

`--format jsonl` then exports what the Disqus import stored, clears it and times the
JSON Lines import of the file; `--migrate buckets,documents` then times
`comments_migrate` to each store named, in turn (bench/import_moves.py); each step is
judged against the raw rate of the documents it stored, measured right after it, and
checked: every comment stored once. `--repeat 5` runs all that five times, each in a
process of its own, and judges each target on the median of the five ratios (and says
in how many runs it was met): on this project's 2-core machine one run's ratio moves
by a tenth from one run to the next.

    MONGODB_URI=mongodb://127.0.0.1:<port>/ .venv/bin/python bench/imports.py --comments 20000
    MONGODB_URI=... .venv/bin/python bench/imports.py --memory 20000,200000
    MONGODB_URI=... .venv/bin/python bench/imports.py --comments 2000 --sweep 0,10000,50000
    MONGODB_URI=... .venv/bin/python bench/imports.py --format jsonl --migrate buckets,documents
    MONGODB_URI=... .venv/bin/python bench/imports.py --format jsonl --repeat 5

Say which server and how loaded the machine was (`uptime`) whenever you quote figures.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.django_setup import setup  # noqa: E402

setup()

from django.conf import settings

from cms import posts
from comments import conf
from comments.stores import CommentStore, get_store
from pymongo import IndexModel
from pymongo.collection import Collection
from comments.transfer import disqus, import_render
from infra import mongo

from bench import import_moves

START = datetime(2014, 1, 1, tzinfo=UTC)
HEAD = ('<?xml version="1.0" encoding="utf-8"?>\n<disqus xmlns="http://disqus.com" '
        'xmlns:dsq="http://disqus.com/disqus-internals">\n')
WORDS = ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do", "eiusmod", "tempor"]


def write_export(out, *, comments: int, per_thread: int, body_bytes: int, rng: random.Random,
                 orphans: int = 0, one_thread: bool = False) -> int:
    """Write the export; return how many threads it has."""
    threads = max(1, comments // per_thread)
    out.write(HEAD)
    for t in range(threads):
        out.write(f'  <thread dsq:id="{t}"><id>thread-{t}</id>'
                  f"<link>https://blog.example.com/posts/thread-{t}/</link><title>Thread {t}</title></thread>\n")
    recent: dict[int, list[int]] = {}
    held = None  # a reply written after the comment that follows it: out of order
    for k in range(comments):
        thread = rng.randrange(threads)
        earlier = recent.setdefault(thread, [])
        parent = rng.choice(earlier) if earlier and rng.random() < 0.7 else None
        post = _post(k, thread, parent, rng, body_bytes)
        earlier.append(k)
        del earlier[:-20]
        if held is None and parent is not None and rng.random() < 0.05:
            held = post
            continue
        out.write(post)
        if held is not None:
            out.write(held)
            held = None
    if held is not None:
        out.write(held)
    for k in range(comments, comments + orphans):
        out.write(_post(k, 0 if one_thread else rng.randrange(threads), f"gone-{k}", rng, body_bytes))
    out.write("</disqus>\n")
    return threads


def _post(k: int, thread: int, parent: int | str | None, rng: random.Random, body_bytes: int) -> str:
    words, size = [], 0
    while size < body_bytes:
        word = rng.choice(WORDS)
        words.append(f"<b>{word}</b>" if rng.random() < 0.05 else word)
        size += len(words[-1]) + 1
    body = f"<p>{' '.join(words)} &amp; <a href=\"https://example.org/{k}\">link</a></p>"
    status = "<isSpam>true</isSpam>" if rng.random() < 0.02 else "<isSpam>false</isSpam>"
    reply = f'<parent dsq:id="{parent}"/>' if parent is not None else ""
    posted = (START + timedelta(seconds=30 * k)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return (f'  <post dsq:id="{k}"><message><![CDATA[{body}]]></message><createdAt>{posted}</createdAt>'
            f"<isDeleted>false</isDeleted>{status}<author><name>Reader {k % 997}</name>"
            f"<email>r{k % 997}@example.com</email></author><ipAddress>192.0.2.{k % 250}</ipAddress>"
            f'<thread dsq:id="{thread}"/>{reply}</post>\n')


# The import's rate over the raw insert_many rate of the same documents, per store.
TARGETS = {"documents": 0.5, "embedded": 0.25, "buckets": 0.25}
# A peak is flat when it is within this fraction above the first run's.
FLAT = 0.15
REFERENCE_BATCH = 500


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--comments", type=int, default=20_000)
    parser.add_argument("--per-thread", type=int, default=200)
    parser.add_argument("--body-bytes", type=int, default=400)
    parser.add_argument("--orphans", type=int, default=None, help="replies whose parent is not in the file")
    parser.add_argument("--one-thread", action="store_true", help="every orphan in the first thread")
    parser.add_argument("--memory", metavar="N,N,...",
                        help="one run per size, then one with the orphans in one thread; is the peak flat?")
    parser.add_argument("--sweep", metavar="N,N,...",
                        help="one run per orphan count, all in one thread; the first is the baseline")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--workers", type=int, default=None,
                        help=f"render worker processes (default {import_render.RENDER_WORKERS}; 0: none)")
    parser.add_argument("--trace", action="store_true", help="tracemalloc too (slower: the ratio is not judged)")
    parser.add_argument("--format", choices=("disqus", "jsonl"), default="disqus",
                        help="jsonl: then export what the Disqus import stored and time importing it back")
    parser.add_argument("--migrate", metavar="STORE,STORE,...", default="",
                        help="then time comments_migrate to each store in turn (e.g. buckets,documents)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run the import this many times, each in a process of its own; judge the median")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one run of a table
    args = parser.parse_args()
    if args.repeat > 1 and (args.trace or args.memory or args.sweep):
        parser.error("--repeat judges the ratio: not with --trace (which slows the import) or a table")
    if args.memory or args.sweep:
        table(args)
        return
    args.orphans = args.orphans or 0
    if args.repeat > 1 and not args.json:
        repeated(args)
        return
    if args.workers is not None:
        import_render.RENDER_WORKERS = args.workers
    result = measure(args)
    if args.json:
        print(json.dumps(result))
        return
    print(f"Store {result['store']}; scratch database {result['database']}; load {os.getloadavg()[0]:.2f}")
    print(f"Export: {result['megabytes']:.1f} MB, {args.comments} comments on {result['threads']} threads"
          + (f", {args.orphans} orphans" if args.orphans else "")
          + (" (the orphans in one thread)" if args.one_thread else ""))
    print(f"Imported {result['imported']} (refused {result['refused']}, orphans {result['orphans']}) in "
          f"{result['seconds']:.1f} s: {result['rate']:.0f} comments/s"
          + (" (under tracemalloc)" if result["traced"] is not None else ""))
    print(f"Reference: insert_many of the same {result['stored_documents']} stored documents into a scratch "
          f"collection with the store's {result['indexes']} indexes: {result['raw_seconds']:.1f} s, "
          f"{result['raw_rate']:.0f} comments/s")
    for line in checks(result, args):
        print(line)
    if result["traced"] is not None:
        print(f"Peak Python memory during the import: {result['traced']:.1f} MB")
    print(f"Peak resident size of the process: {result['rss']:.0f} MB (before the import: {result['rss_before']:.0f} MB); "
          f"of a render worker: {result['worker_rss']:.0f} MB ({result['workers']} workers)")
    for step in result["steps"]:
        paused = (f"; comment writes paused {step['paused_seconds']:.1f} s (no other process to wait for)"
                  if "paused_seconds" in step else "")
        print(f"\n{step['what']}" + (f" ({step['megabytes']:.1f} MB)" if "megabytes" in step else "")
              + f": {step['imported']} comments in {step['seconds']:.1f} s: {step['rate']:.0f} comments/s{paused}")
        print(f"Reference: insert_many of the same {step['stored_documents']} stored documents ({step['store']} "
              f"store, {step['indexes']} indexes): {step['raw_seconds']:.1f} s, {step['raw_rate']:.0f} comments/s")
        for line in checks(step, args):
            print(line)
    print("\ntargets (figures, not tests):")
    for judged in (result, *result["steps"]):
        print(target(judged))


def target(result: dict, ratio: float | None = None, ratios: list[float] | None = None) -> str:
    """The line judging one step against its target: its own ratio, or `ratio` (the
    median) of `ratios` (several runs')."""
    goal = TARGETS[result["store"]]
    ratio = result["rate"] / result["raw_rate"] if ratio is None else ratio
    verdict = "not judged under tracemalloc" if result["traced"] is not None else ("met" if ratio >= goal else "NOT met")
    runs = f" ({', '.join(f'{r:.2f}' for r in ratios)})" if ratios else ""
    met_in = f"; met in {sum(r >= goal for r in ratios)} of {len(ratios)} runs" if ratios else ""
    return f"  {result['what']} >= {goal} x raw insert_many ({result['store']}): {ratio:.2f}x{runs}, {verdict}{met_in}"


def run_alone(args: argparse.Namespace, *, comments: int, orphans: int, one_thread: bool, steps: bool = False,
              ) -> dict:
    """One run of this script in a process of its own (so that its peak resident size
    is its own), with `args`' export, workers and tracing, and with its `--format` and
    `--migrate` steps when `steps`: its result."""
    command = [sys.executable, __file__, "--json", "--comments", str(comments), "--orphans", str(orphans),
               "--per-thread", str(args.per_thread), "--body-bytes", str(args.body_bytes), "--seed", str(args.seed),
               *(["--one-thread"] if one_thread else []), *(["--trace"] if args.trace else []),
               *(["--workers", str(args.workers)] if args.workers is not None else []),
               *(["--format", args.format, *(["--migrate", args.migrate] if args.migrate else [])] if steps else [])]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def repeated(args: argparse.Namespace) -> None:
    """`--repeat N`: the same import (and its `--format` and `--migrate` steps) N times,
    each in a process of its own; each run's rates and ratios, then each target judged
    on the median of its N ratios, and in how many runs it was met."""
    runs = []
    for n in range(args.repeat):
        result = run_alone(args, comments=args.comments, orphans=args.orphans, one_thread=args.one_thread, steps=True)
        runs.append([result, *result["steps"]])
        print(f"run {n + 1} of {args.repeat} (load {result['load']:.2f}): " + "; ".join(
            f"{judged['what']} {judged['rate']:.0f}/s against {judged['raw_rate']:.0f}/s raw, "
            f"{judged['rate'] / judged['raw_rate']:.2f}x" for judged in runs[-1]))
        for judged in runs[-1]:
            for line in checks(judged, args):
                print(line)
    print(f"\ntargets (figures, not tests), on the median of {args.repeat} runs:")
    for k, first in enumerate(runs[0]):
        ratios = [run[k]["rate"] / run[k]["raw_rate"] for run in runs]
        print(target(first, statistics.median(ratios), ratios))


def checks(result: dict, args: argparse.Namespace) -> list[str]:
    """Every comment of the file stored once; every orphan at the top level, and no
    other reply reported as one (its parent is in the file)."""
    wanted = args.comments + args.orphans
    once = result["stored"] == result["distinct"] == wanted
    lines = [f"Stored once: {result['distinct']} distinct of {result['stored']} stored, {wanted} in the file"
             + ("" if once else " (WRONG: every comment must be stored exactly once)")]
    if "orphans" not in result:  # a JSON Lines import or a migration: no threading of its own
        return lines
    right = result["top"] == result["orphans"] == args.orphans
    return lines + [f"Orphans at the top level: {result['top']} of {args.orphans}, {result['orphans']} reported"
                    + ("" if right else " (WRONG: every orphan, and only they, must be imported at the top level)")]


def measure(args: argparse.Namespace) -> dict:
    """One import of a generated export into a scratch database (dropped after), then
    the reference: its figures, sizes in MB."""
    with tempfile.NamedTemporaryFile("w", suffix=".xml", encoding="utf-8", delete=False) as out:
        threads = write_export(out, comments=args.comments, per_thread=args.per_thread,
                               body_bytes=args.body_bytes, rng=random.Random(args.seed), orphans=args.orphans,
                               one_thread=args.one_thread)
        path = out.name
    settings.MONGODB_NAME = f"slugline_bench_{uuid.uuid4().hex[:8]}"
    mongo.reset_client()
    try:
        mongo.ensure_all_indexes()
        author = posts.AuthorSummary(id=1, username="bench", name="Bench")
        for t in range(threads):
            posts.create_post(title=f"Thread {t}", slug=f"thread-{t}", content="", author=author,
                              status=posts.PUBLISHED)
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        if args.trace:
            tracemalloc.start()
        began = time.perf_counter()
        report = disqus.run(path=path, stdout=io.StringIO())
        seconds = time.perf_counter() - began
        traced = tracemalloc.get_traced_memory()[1] if args.trace else None
        tracemalloc.stop()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        found = import_moves.stored_once(get_store(), args.comments)
        raw_seconds, stored_documents, indexes = reference(get_store())
        result = {"what": "Disqus import", "store": conf.get().store, "database": settings.MONGODB_NAME,
                  "threads": threads, "megabytes": os.path.getsize(path) / 1e6, "imported": report.imported,
                  "refused": sum(report.refused.values()), "orphans": report.orphans_total, **found,
                  "seconds": seconds, "rate": report.imported / seconds, "raw_seconds": raw_seconds,
                  "raw_rate": found["stored"] / raw_seconds, "stored_documents": stored_documents,
                  "indexes": indexes, "traced": traced / 1e6 if traced is not None else None,
                  "rss": rss / 1024, "rss_before": rss_before / 1024, "load": os.getloadavg()[0],
                  "worker_rss": import_render.worker_peak_kb() / 1024, "workers": import_render.RENDER_WORKERS}
        steps = [import_moves.jsonl(args.comments, reference)] if args.format == "jsonl" else []
        steps += [import_moves.migrate(store, args.comments, reference) for store in args.migrate.split(",") if store]
        return {**result, "steps": steps}
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)
        os.unlink(path)


def reference(store: CommentStore) -> tuple[float, int, int]:
    """The raw rate's run: the store's documents as stored, read back, inserted by
    ordered insert_many of REFERENCE_BATCH into a scratch collection with the store's
    own indexes (dropped after). (seconds, documents, indexes besides _id)"""
    collection = store._collection()
    scratch = collection.database[f"{collection.name}_reference"]
    models = [IndexModel(list(spec["key"].items()), **{k: v for k, v in spec.items() if k not in ("key", "v", "ns")})
              for spec in collection.list_indexes() if spec["name"] != "_id_"]
    if models:
        scratch.create_indexes(models)
    seconds, count, batch = 0.0, 0, []
    for document in collection.find().sort("_id", 1).batch_size(REFERENCE_BATCH):  # reading it is not timed
        batch.append(document)
        if len(batch) == REFERENCE_BATCH:
            seconds, count, batch = seconds + _timed_insert(scratch, batch), count + len(batch), []
    if batch:
        seconds, count = seconds + _timed_insert(scratch, batch), count + len(batch)
    scratch.drop()
    return seconds, count, len(models)


def _timed_insert(collection: Collection, documents: list[dict]) -> float:
    began = time.perf_counter()
    collection.insert_many(documents, ordered=True)
    return time.perf_counter() - began


def table(args: argparse.Namespace) -> None:
    """`--memory`: one run per size, then one at the first size with the orphans in one
    thread; `--sweep`: one run per orphan count. Each in a process of its own; one
    table, the first run the baseline."""
    if args.memory:
        sizes = [int(n) for n in args.memory.split(",")]
        orphans = 50_000 if args.orphans is None else args.orphans
        runs = [(n, 0) for n in sizes] + ([(sizes[0], orphans)] if orphans else [])
    else:
        runs = [(args.comments, int(n)) for n in args.sweep.split(",")]
    rows = []
    for comments, orphans in runs:
        rows.append(run_alone(args, comments=comments, orphans=orphans, one_thread=True))
        wrong = [line for line in checks(rows[-1], argparse.Namespace(comments=comments, orphans=orphans))
                 if "WRONG" in line]
        for line in wrong:
            print(line)
    base = rows[0]
    print(f"Store {base['store']}; threads of about {args.per_thread} comments, orphans all in the first thread; "
          f"one process per run; the first run is the baseline.")
    print(f"{'comments':>9} {'orphans':>8} {'file MB':>8} {'seconds':>8} {'import/s':>9} {'raw/s':>8} {'ratio':>6} "
          f"{'traced MB':>10} {'RSS MB':>7} {'(+base)':>8} {'worker MB':>10} {'load':>5}")
    for (comments, orphans), row in zip(runs, rows, strict=True):
        traced = f"{row['traced']:10.1f}" if row["traced"] is not None else f"{'-':>10}"
        print(f"{comments:>9} {orphans:>8} {row['megabytes']:8.1f} {row['seconds']:8.1f} {row['rate']:9.0f} "
              f"{row['raw_rate']:8.0f} {row['rate'] / row['raw_rate']:6.2f} {traced} {row['rss']:7.0f} "
              f"{row['rss'] - base['rss']:+8.0f} {row['worker_rss']:10.0f} {row['load']:5.2f}")
    print("\ntargets (figures, not tests):")
    for row in rows:
        print(target(row) + f" at {row['imported']} comments")
    for key, what in (("rss", "the import's process"), ("worker_rss", "a render worker")):
        peak = max(row[key] for row in rows)
        print(f"  peak resident size of {what} flat (every run within {FLAT:.0%} of the first's {base[key]:.0f} MB): "
              f"{peak:.0f} MB at most, {'met' if peak <= base[key] * (1 + FLAT) else 'NOT met'}")


if __name__ == "__main__":
    main()
