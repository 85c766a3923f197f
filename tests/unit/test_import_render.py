"""Imported bodies rendered by worker processes (comments/transfer/import_render.py):
batches come back in the order they were handed in, rendered as in this process,
whether they went to the pool or were small enough to render here, with no more
than `ahead` batches in the pool at once."""

import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from comments.transfer import import_render
from comments.transfer.import_records import SourceComment
from comments.transfer.import_render import Renderer, render

BODIES = ["<p>a *star* &amp; <a href=\"https://example.org/x y\">link</a></p>", "<p>1986. a year</p><p>two</p>",
          "<ul><li>one</li><li>two</li></ul>", "<pre><code>x = `1`</code></pre>", "<script>x</script><b>bold</b>"]


def comments(start: int, n: int) -> list[SourceComment]:
    return [SourceComment(source="t", id=str(k), thread="t", parent=None, posted=datetime(2020, 1, 1, tzinfo=UTC),
                          html=BODIES[k % len(BODIES)]) for k in range(start, start + n)]


def test_batches_come_back_in_order_rendered_as_here_and_bounded(monkeypatch):
    monkeypatch.setattr(import_render, "POOL_MINIMUM", 3)
    monkeypatch.setattr(import_render, "_worker_peak_kb", 0)
    renderer = Renderer(workers=1, ahead=1)
    sizes = [4, 1, 3, 5, 2, 4]  # the batches of 1 and 2 are rendered here
    given, out, start = [], [], 0
    try:
        for size in sizes:
            batch = comments(start, size)
            start += size
            given += batch
            out += [c for ready in renderer.submit(batch) for c in ready]
            assert renderer._in_pool() <= renderer.ahead
        out += [c for ready in renderer.drain() for c in ready]
    finally:
        renderer.close()
    assert [c.id for c in out] == [c.id for c in given]
    assert [c.body for c in out] == [render(c.html) for c in given]
    assert import_render.worker_peak_kb() > 0  # the pool rendered some


KILLED = """
import sys
from multiprocessing import forkserver
from comments.transfer import import_render
from tests.unit.test_import_render import comments
import_render.POOL_MINIMUM = 1
renderer = import_render.Renderer(workers=1)
list(renderer.submit(comments(0, 2)))
list(renderer.drain())
print(*renderer._pool._processes, forkserver._forkserver._forkserver_pid, flush=True)
sys.stdin.read()
"""


def test_the_workers_end_when_the_importer_is_killed():
    """kill -9 of the importer's process: its render worker and the fork server end too."""
    root = Path(__file__).resolve().parents[2]
    with subprocess.Popen([sys.executable, "-c", KILLED], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True, env={**os.environ, "PYTHONPATH": str(root)}) as importer:
        try:
            pids = [int(pid) for pid in importer.stdout.readline().split()]
        finally:
            importer.kill()  # SIGKILL: nothing of the importer's own runs after it
    assert len(pids) == 2
    deadline = time.monotonic() + 15
    while (left := [pid for pid in pids if Path(f"/proc/{pid}").exists()]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"still running: {left}"
