"""Benchmark: importing a large Disqus export (comments/disqus.py) in bounded memory.

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
250000`). The run checks every orphan was imported at the top level.

    MONGODB_URI=mongodb://127.0.0.1:<port>/ .venv/bin/python bench/imports.py --comments 100000

tracemalloc slows Python down; `--no-trace` gives the speed without it. Say which
server the figures came from whenever you quote them.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import resource
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
from comments import conf, disqus
from comments.stores import get_store
from infra import mongo

START = datetime(2014, 1, 1, tzinfo=UTC)
HEAD = ('<?xml version="1.0" encoding="utf-8"?>\n<disqus xmlns="http://disqus.com" '
        'xmlns:dsq="http://disqus.com/disqus-internals">\n')
WORDS = ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do", "eiusmod", "tempor"]


def write_export(out, *, comments: int, per_thread: int, body_bytes: int, rng: random.Random,
                 orphans: int = 0) -> int:
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
        out.write(_post(k, rng.randrange(threads), f"gone-{k}", rng, body_bytes))
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
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--no-trace", action="store_true", help="no tracemalloc (faster; peak RSS only)")
    args = parser.parse_args()
    with tempfile.NamedTemporaryFile("w", suffix=".xml", encoding="utf-8", delete=False) as out:
        threads = write_export(out, comments=args.comments, per_thread=args.per_thread,
                               body_bytes=args.body_bytes, rng=random.Random(args.seed), orphans=args.orphans)
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
        size = os.path.getsize(path)
        print(f"Store {conf.get().store}; scratch database {settings.MONGODB_NAME}")
        print(f"Export: {size / 1e6:.1f} MB, {args.comments} comments on {threads} threads")
        print(f"Imported {report.imported} (refused {sum(report.refused.values())}, "
              f"orphans {report.orphans_total}) in {seconds:.1f} s: {report.imported / seconds:.0f} comments/s"
              + (" (under tracemalloc)" if traced is not None else ""))
        if traced is not None:
            print(f"Peak Python memory during the import: {traced / 1e6:.1f} MB")
        top = sum(1 for document in get_store().iter_documents()
                  if int(document["imported"]["id"]) >= args.comments and document["parent_id"] is None)
        print(f"Orphans at the top level: {top} of {args.orphans}"
              + ("" if top == args.orphans else " (WRONG: every orphan must be imported at the top level)"))
        print(f"Peak resident size of the process: {rss / 1024:.0f} MB (before the import: {rss_before / 1024:.0f} MB)")
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)
        os.unlink(path)


if __name__ == "__main__":
    main()
