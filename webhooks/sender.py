"""Delivering the webhooks' outbox (webhooks/deliveries.py): what `send_webhooks`
runs, never a request. One thread claims what is due, oldest first, and hands each
delivery to a pool of WEBHOOKS_CONCURRENCY senders, which POST it to its webhook's
URL, checked again just before (webhooks/targets.py: a name that now resolves to a
private address is refused), signed with the webhook's secret, and log the attempt
on its delivery. One webhook has at most half the pool in flight (`Slots`): the
claim passes over a webhook that has its share, so a slow or hanging receiver with
a burst waiting never holds up the other webhooks' deliveries. With --loop the pool
keeps going: a delivery that falls due is claimed as soon as a sender is free,
not after the burst before it is through."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bson import ObjectId
from pymongo.errors import PyMongoError

from webhooks import conf, deliveries, events, hooks, signing, targets, transport

logger = logging.getLogger(__name__)
GONE = "the webhook was removed or turned off"
# Tries at logging an attempt (the database may refuse one write, e.g. a deadlock it
# broke); past them the delivery keeps its lease and is taken over when it runs out.
RECORD_TRIES = 3
# With --loop, the counts are reported every this many deliveries, and when nothing is
# due or in flight (not after each one a slow webhook's share ends: one line per burst).
REPORT_EVERY = 100


@dataclass(frozen=True)
class Round:
    delivered: int = 0
    failed: int = 0  # attempts that failed (retried later or given up)


def attempt(delivery: deliveries.Delivery, *, now: datetime | None = None) -> deliveries.Attempt:
    """One POST of a claimed delivery to its webhook, bounded in time and bytes."""
    settings = conf.get()
    started = time.monotonic()
    at = now or datetime.now(UTC)
    hook = hooks.get_hook(delivery.hook)
    if hook is None or (not hook.active and delivery.event != hooks.TEST_EVENT):
        return deliveries.Attempt(at=at, code=None, error=GONE, ms=0)
    body = (delivery.body if delivery.body is not None
            else deliveries.keep_body(delivery, events.body_for(delivery))).encode("utf-8")
    try:
        target = targets.check(hook.url, allow_private=settings.allow_private)
    except targets.BadTarget as exc:
        return deliveries.Attempt(at=at, code=None, error=exc.message, ms=0)
    timestamp = int(at.timestamp())
    headers = {signing.EVENT_HEADER: delivery.event,
               signing.HEADER: signing.header(secret=hook.secret, timestamp=timestamp, body=body)}
    answer = transport.post(target, body=body, headers=headers, timeout=settings.timeout_seconds,
                            max_bytes=settings.max_answer_bytes)
    return deliveries.Attempt(at=at, code=answer.code, error=answer.error,
                              ms=int((time.monotonic() - started) * 1000))


def _deliver(delivery: deliveries.Delivery, window: timedelta) -> str:
    """Attempt a claimed delivery and log it; its status now."""
    try:
        tried = attempt(delivery)
    except Exception as exc:  # A bug or an outage building the body: logged, retried.
        logger.exception("Webhook delivery %s failed before sending.", delivery.id)
        tried = deliveries.Attempt(at=datetime.now(UTC), code=None, error=exc.__class__.__name__, ms=0)
    for left in range(RECORD_TRIES - 1, -1, -1):
        try:  # Safe to repeat: the update is conditioned on the claim it clears.
            return deliveries.record(delivery, tried, window=window)
        except PyMongoError:
            if not left:
                logger.exception("Webhook delivery %s was sent but not logged; its lease will run out.",
                                 delivery.id)
            else:
                time.sleep(0.5)
    return deliveries.SENDING


class Slots:
    """The deliveries in flight in one sender: at most `total`, and `per_hook` for one
    webhook. `changed` is notified whenever one ends."""

    def __init__(self, *, total: int, per_hook: int) -> None:
        self.total, self.per_hook = total, per_hook
        self.busy: Counter[ObjectId] = Counter()
        self.ended = 0  # how many have ended: a waiter sees whether one ended since it looked
        self.changed = threading.Condition()

    def in_flight(self) -> int:
        with self.changed:
            return sum(self.busy.values())

    def full_hooks(self) -> list[ObjectId]:
        """The webhooks that have their share in flight (the claim passes over them)."""
        with self.changed:
            return [hook for hook, count in self.busy.items() if count >= self.per_hook]

    def take(self, hook: ObjectId) -> None:
        with self.changed:
            self.busy[hook] += 1

    def give_back(self, hook: ObjectId) -> None:
        with self.changed:
            self.busy[hook] -= 1
            if self.busy[hook] <= 0:
                del self.busy[hook]
            self.ended += 1
            self.changed.notify_all()

    def wait(self, *, since: int, timeout: float) -> None:
        """Until one more delivery ends than `since` counted, or `timeout` seconds."""
        with self.changed:
            self.changed.wait_for(lambda: self.ended != since, timeout=timeout)


def per_hook_share(concurrency: int) -> int:
    """What one webhook may have in flight: half the pool (at least one)."""
    return max(1, concurrency // 2)


def _round(statuses: Counter[str]) -> Round:
    delivered = statuses[deliveries.DELIVERED]
    return Round(delivered=delivered, failed=sum(statuses.values()) - delivered)


def _send(*, stop: threading.Event, every: float | None, limit: int | None,
          report: Callable[[Round], None] | None = None) -> Round:
    """Claim and send until `stop`, or `limit` deliveries, or (without `every`) until
    nothing more is due and nothing is in flight; with `every`, wait that long when
    nothing is due. What happened, and (with `report`) reported as it goes."""
    settings = conf.get()
    window = timedelta(hours=settings.retry_hours)
    slots = Slots(total=settings.concurrency, per_hook=per_hook_share(settings.concurrency))
    lock = threading.Lock()
    tally: Counter[str] = Counter()
    unreported: Counter[str] = Counter()

    def send(delivery: deliveries.Delivery) -> None:
        try:
            status = _deliver(delivery, window)
        finally:
            slots.give_back(delivery.hook)
        with lock:
            tally[status] += 1
            unreported[status] += 1

    def flush(*, at_least: int) -> None:
        with lock:
            if report is None or sum(unreported.values()) < at_least:
                return
            done = _round(unreported)
            unreported.clear()
        report(done)

    taken = 0
    with ThreadPoolExecutor(max_workers=settings.concurrency, thread_name_prefix="send_webhooks") as pool:
        while not stop.is_set() and (limit is None or taken < limit):
            since = slots.ended
            if slots.in_flight() >= slots.total:
                slots.wait(since=since, timeout=1.0)
                continue
            delivery = deliveries.claim_next(skip_hooks=slots.full_hooks())
            if delivery is None:
                idle = slots.in_flight() == 0
                if every is None and idle:
                    break
                if idle:  # Nothing due, nothing in flight: what happened since the last report.
                    flush(at_least=1)
                # One ending may free a webhook's share; else what falls due meanwhile.
                slots.wait(since=since, timeout=every if every is not None else 1.0)
                continue
            slots.take(delivery.hook)
            taken += 1
            pool.submit(send, delivery)
            flush(at_least=REPORT_EVERY)
    flush(at_least=1)
    return _round(tally)


def deliver_due(*, limit: int = 100) -> Round:
    """Send what is due, at most `limit` deliveries, WEBHOOKS_CONCURRENCY at once (half
    of them at most for one webhook), each claimed just before it is sent (its lease
    runs from then), then return once they are all answered; what happened."""
    return _send(stop=threading.Event(), every=None, limit=limit)


def run(*, stop: threading.Event, every: float, report: Callable[[Round], None]) -> None:
    """Send what falls due until `stop` is set (then finish what is in flight),
    looking again every `every` seconds when nothing is due; `report` hears the
    counts every REPORT_EVERY deliveries and whenever the outbox is empty. A database
    error claiming stops it (PyMongoError)."""
    _send(stop=stop, every=every, limit=None, report=report)
