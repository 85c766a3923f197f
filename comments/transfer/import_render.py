"""Imported bodies rendered on other cores: each comment's HTML as the Markdown it keeps
(comments/transfer/import_text.py) and that Markdown's HTML (infra.markup.render_comment),
a large part of an import's Python time, done by worker processes while the
importer (comments/transfer/importing.py) reads the file, places comments and its
writer thread stores them.

`Renderer` takes the importer's batches in order and hands them back in the same
order, rendered: a batch of at least POOL_MINIMUM comments goes to the pool (started
at the first such batch), a smaller one is rendered in the importer's process when
its turn comes. At most `ahead` batches are in the pool at once: handing in one more
waits for the oldest, so memory stays bounded whatever the file's size.

The workers are forked from a server process of their own (multiprocessing's
"forkserver", which imports this module once), not from the importer, which holds
threads and database connections; each ends itself once the process that started it
is gone (an import killed with kill -9 leaves none behind). They render only: nothing
they do touches a database, so a run stopped at any point is resumed as before
(comments/transfer/import_ledger.py).
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from concurrent.futures import Future, ProcessPoolExecutor

from comments.transfer.import_records import SourceComment
from comments.transfer.import_text import comment_text
from infra.frozen import evolved
from infra.markup import render_comment

# Worker processes: the cores besides the importer's own (it parses and places, and
# the database server needs one too), at least one.
RENDER_WORKERS = max(1, min(4, (os.cpu_count() or 1) - 1))
POOL_MINIMUM = 100  # a smaller batch is rendered in the importer's process
AHEAD = 2  # batches given to the pool per worker before the oldest is waited for
PARENT_CHECK_SECONDS = 1.0
_worker_peak_kb = 0  # the largest peak resident size a worker reported in this process


def worker_peak_kb() -> int:
    """The largest peak resident size (kB) any render worker of this process reported:
    what an import's memory is, besides this process's own (bench/imports.py)."""
    return _worker_peak_kb


def render(html: str) -> tuple[str, str]:
    """A source's HTML body as (the Markdown kept as `text`, its rendered `html`)."""
    text = comment_text(html)
    return text, render_comment(text)


def body_of(comment: SourceComment) -> tuple[str, str]:
    """`comment`'s body rendered: (text, html)."""
    return comment.body if comment.body is not None else render(comment.html)


def _render_all(bodies: list[str]) -> tuple[list[tuple[str, str]], int]:
    """In a worker: every body rendered, and the worker's peak resident size (kB)."""
    out = [render(html) for html in bodies]
    return out, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _start_worker(importer: int) -> None:
    """In a worker: end it once the importer's process (`importer`, its pid) is gone.
    (Its parent is the fork server, which lives as long as any worker does.)"""
    def watch() -> None:
        while True:
            time.sleep(PARENT_CHECK_SECONDS)
            try:
                os.kill(importer, 0)  # signal 0: only whether it is there
            except (ProcessLookupError, PermissionError):  # gone (its pid another user's since)
                os._exit(0)

    threading.Thread(target=watch, name="import-render-watch", daemon=True).start()


@contextmanager
def _main_left_out() -> Iterator[None]:
    """While workers are started: they need this module alone, so the importer's main
    script (manage.py, a benchmark) is not run again in each, as multiprocessing would."""
    main = sys.modules["__main__"]
    names = ("__file__", "__spec__")
    saved: dict[str, object] = {name: main.__dict__[name] for name in names if name in main.__dict__}
    main.__dict__.pop("__file__", None)
    main.__spec__ = None
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(saved)


class Renderer:
    """Renders batches of comments in worker processes, handing them back in order
    (module docstring). `workers` 0: all in this process."""

    def __init__(self, *, workers: int = RENDER_WORKERS, ahead: int = AHEAD):
        self.workers, self.ahead = workers, ahead * max(1, workers)
        self._pool: ProcessPoolExecutor | None = None
        self._queue: deque[tuple[list[SourceComment], Future | None]] = deque()

    def submit(self, batch: list[SourceComment]) -> Iterator[list[SourceComment]]:
        """Hand in `batch`; the batches (this one too, if rendered here) that are
        ready to go on, in order, rendered."""
        future = None
        if self.workers and len(batch) >= POOL_MINIMUM:
            with _main_left_out():  # a worker may be started
                future = self._start().submit(_render_all, [c.html for c in batch if c.body is None])
        self._queue.append((batch, future))
        while self._queue and (self._queue[0][1] is None or self._in_pool() > self.ahead):
            yield self._next()

    def drain(self) -> Iterator[list[SourceComment]]:
        """Every batch handed in and not yet handed back, in order, rendered."""
        while self._queue:
            yield self._next()

    def _in_pool(self) -> int:
        return sum(future is not None for _, future in self._queue)

    def _next(self) -> list[SourceComment]:
        batch, future = self._queue.popleft()
        if future is None:
            return [evolved(c, body=body_of(c)) for c in batch]
        global _worker_peak_kb
        bodies, peak = future.result()
        _worker_peak_kb = max(_worker_peak_kb, peak)
        given = iter(bodies)
        return [c if c.body is not None else evolved(c, body=next(given)) for c in batch]

    def _start(self) -> ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload([__name__])
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=context,
                                             initializer=_start_worker, initargs=(os.getpid(),))
        return self._pool

    def close(self) -> None:
        """Drop what is still in the pool and end the workers."""
        self._queue.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
