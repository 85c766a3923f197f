"""What MongoDB did for a piece of work, for the benchmarks: pymongo's command
monitoring counts the commands sent, the documents and bytes their replies carried
and the time spent waiting for them."""

from __future__ import annotations

import statistics

import bson
from pymongo import monitoring


class Meter(monitoring.CommandListener):
    """Counts while `on` (from `start()`); register it once with `monitoring.register`."""

    def __init__(self, *, count_bytes: bool = False):
        self.count_bytes = count_bytes  # encodes every reply again: costs CPU in the timed work
        self.start()
        self.stop()

    def start(self) -> None:
        self.on, self.commands, self.documents, self.bytes, self.seconds = True, 0, 0, 0, 0.0

    def stop(self) -> None:
        self.on = False

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if self.on:
            self.commands += 1

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        if not self.on:
            return
        self.seconds += event.duration_micros / 1e6
        cursor = event.reply.get("cursor") if isinstance(event.reply, dict) else None
        if cursor:
            self.documents += len(cursor.get("firstBatch", cursor.get("nextBatch", [])))
        if self.count_bytes:
            self.bytes += len(bson.encode(event.reply))

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        if self.on:
            self.seconds += event.duration_micros / 1e6


def median_and_p95_ms(seconds: list[float]) -> tuple[float, float]:
    """The median and 95th percentile of durations, in milliseconds."""
    ordered = sorted(seconds)
    return statistics.median(ordered) * 1000, ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000
