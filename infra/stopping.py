"""A loop that SIGTERM and SIGINT end after the work in progress (the Procfile's
background processes, a terminal's Ctrl-C), without a lock in a signal handler.

`stop_on_signals()` gives a `threading.Event` that those signals set. A handler that
called `Event.set()` itself could hang the process for good: Python runs a handler
between two bytecodes of the main thread, and when the main thread is inside the
event's own lock (in `wait` or in a first handler's `set`, when a platform's SIGTERM
and a terminal's SIGINT come together) the handler waits for a lock its own thread
holds. Here the handlers do nothing: the signal's number reaches a pipe
(`signal.set_wakeup_fd`, written by the interpreter outside any lock) and a thread of
its own sets the event. Pure; no Django.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from types import FrameType

STOPPING = (signal.SIGTERM, signal.SIGINT)


def _noted(signum: int, frame: FrameType | None) -> None:
    """The handler: the wakeup pipe carries the news (a Python handler must be set, or
    the signal's default action would end the process at once)."""


@contextmanager
def stop_on_signals(signums: tuple[signal.Signals, ...] = STOPPING) -> Iterator[threading.Event]:
    """An event set once any of `signums` arrives, while the block runs; the handlers
    and wakeup descriptor that were there before are put back after it. From the main
    thread only (as `signal.signal` requires)."""
    stop = threading.Event()
    wanted = {int(signum) for signum in signums}
    read_end, write_end = os.pipe()
    watcher = threading.Thread(target=_watch, args=(read_end, wanted, stop), name="stop-on-signals", daemon=True)
    # Undone in the reverse order, also when a step fails (off the main thread,
    # set_wakeup_fd raises): the handlers and the descriptor put back, then the write end
    # closed, which ends the watcher's read, then the read end.
    with ExitStack() as undo:
        undo.callback(os.close, read_end)
        watcher.start()
        undo.callback(watcher.join)
        undo.callback(os.close, write_end)
        os.set_blocking(write_end, False)
        undo.callback(signal.set_wakeup_fd, signal.set_wakeup_fd(write_end, warn_on_full_buffer=False))
        for signum in signums:
            undo.callback(signal.signal, signum, signal.signal(signum, _noted))
        yield stop


def _watch(read_end: int, wanted: set[int], stop: threading.Event) -> None:
    """Set `stop` when the pipe brings one of the `wanted` signals' numbers; return
    once the write end is closed."""
    while data := os.read(read_end, 64):
        if wanted.intersection(data):
            stop.set()
