"""Benchmark: importing a large Disqus export (comments/transfer/disqus.py) in bounded memory.

Writes a generated export of --comments posts (default 100,000) over threads of
about --per-thread comments, each body padded to about --body-bytes bytes of HTML,
as Disqus lays them out (every <thread>, then every <post>); most are replies to a
recent comment of their thread and about one in twenty comes before its parent.
Then, in a scratch database with a post for each thread, it imports the file with
`disqus.run` into the store in use and prints the file's size, the time, comments per
second and the peak memory of the import: Python's allocations (tracemalloc) and
the process's peak resident size. Run it at two sizes (`--comments 20000` and
`--comments 200000`): the peak stays about the same while the file grows.
`--orphans N` adds N replies whose parent never appears (each names a parent of its
own that is not in the file): they wait for it until the end, then go to the top
level, and the peak must stay flat with them too (`--orphans 0` and `--orphans
250000`); `--one-thread` puts them all in one thread, whose recount at the end then
covers them all. The run checks every orphan was imported at the top level.

`--sweep 0,10000,50000` runs the import once per orphan count, each in a process of
its own (so that each peak resident size is its own), all orphans in one thread, and
prints one table: the first count is the baseline the others are compared with.

    MONGODB_URI=mongodb://127.0.0.1:<port>/ .venv/bin/python bench/imports.py --comments 100000
    MONGODB_URI=... .venv/bin/python bench/imports.py --comments 2000 --sweep 0,10000,50000

tracemalloc slows Python down; `--no-trace` gives the speed without it. Say which
server the figures came from whenever you quote them.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "slugline.settings")

import django

django.setup()

from django.conf import settings

from cms import posts
from comments import conf
from comments.stores import get_store
from comments.transfer import disqus
from infra import mongo

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--comments", type=int, default=100_000)
    parser.add_argument("--per-thread", type=int, default=200)
    parser.add_argument("--body-bytes", type=int, default=400)
    parser.add_argument("--orphans", type=int, default=0, help="replies whose parent is not in the file")
    parser.add_argument("--one-thread", action="store_true", help="every orphan in the first thread")
    parser.add_argument("--sweep", metavar="N,N,...",
                        help="one run per orphan count, all in one thread; the first is the baseline")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--no-trace", action="store_true", help="no tracemalloc (faster; peak RSS only)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # a sweep's run
    args = parser.parse_args()
    if args.sweep:
        sweep(args)
        return
    result = measure(args)
    if args.json:
        print(json.dumps(result))
        return
    print(f"Store {result['store']}; scratch database {result['database']}")
    print(f"Export: {result['megabytes']:.1f} MB, {args.comments} comments on {result['threads']} threads"
          + (", the orphans in one thread" if args.one_thread else ""))
    print(f"Imported {result['imported']} (refused {result['refused']}, orphans {result['orphans']}) in "
          f"{result['seconds']:.1f} s: {result['imported'] / result['seconds']:.0f} comments/s"
          + (" (under tracemalloc)" if result["traced"] is not None else ""))
    if result["traced"] is not None:
        print(f"Peak Python memory during the import: {result['traced']:.1f} MB")
    print(f"Orphans at the top level: {result['top']} of {args.orphans}"
          + ("" if result["top"] == args.orphans else " (WRONG: every orphan must be imported at the top level)"))
    print(f"Peak resident size of the process: {result['rss']:.0f} MB (before the import: {result['rss_before']:.0f} MB)")


def measure(args: argparse.Namespace) -> dict:
    """One import of a generated export into a scratch database (dropped after): its
    figures, sizes in MB."""
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
        if not args.no_trace:
            tracemalloc.start()
        began = time.perf_counter()
        report = disqus.run(path=path, stdout=io.StringIO())
        seconds = time.perf_counter() - began
        traced = tracemalloc.get_traced_memory()[1] if not args.no_trace else None
        tracemalloc.stop()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        top = sum(1 for document in get_store().iter_documents()
                  if int(document["imported"]["id"]) >= args.comments and document["parent_id"] is None)
        return {"store": conf.get().store, "database": settings.MONGODB_NAME, "threads": threads,
                "megabytes": os.path.getsize(path) / 1e6, "imported": report.imported,
                "refused": sum(report.refused.values()), "orphans": report.orphans_total, "top": top,
                "seconds": seconds, "traced": traced / 1e6 if traced is not None else None,
                "rss": rss / 1024, "rss_before": rss_before / 1024}
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)
        os.unlink(path)


def sweep(args: argparse.Namespace) -> None:
    """One run per orphan count, each in a process of its own, all orphans in one
    thread; a table of their peaks against the first run's (the baseline)."""
    counts = [int(n) for n in args.sweep.split(",")]
    common = ["--comments", str(args.comments), "--per-thread", str(args.per_thread), "--body-bytes",
              str(args.body_bytes), "--seed", str(args.seed), "--one-thread", "--json"]
    common += ["--no-trace"] if args.no_trace else []
    rows = []
    for orphans in counts:
        done = subprocess.run([sys.executable, __file__, *common, "--orphans", str(orphans)],
                              check=True, capture_output=True, text=True)
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        if rows[-1]["top"] != orphans:
            print(f"WRONG: {rows[-1]['top']} of {orphans} orphans at the top level")
    base = rows[0]
    print(f"Store {base['store']}; {args.comments} comments on {base['threads']} threads, then the orphans, "
          f"all in the first thread; one process per run; the first run is the baseline.")
    print(f"{'orphans':>8} {'file MB':>8} {'seconds':>8} {'traced MB':>10} {'(+base)':>8} "
          f"{'RSS MB':>8} {'(+base)':>8}")
    for orphans, row in zip(counts, rows, strict=True):
        traced = f"{row['traced']:10.1f} {row['traced'] - base['traced']:+8.1f}" if row["traced"] is not None \
            else f"{'-':>10} {'-':>8}"
        print(f"{orphans:>8} {row['megabytes']:8.1f} {row['seconds']:8.1f} {traced} "
              f"{row['rss']:8.0f} {row['rss'] - base['rss']:+8.0f}")


if __name__ == "__main__":
    main()
