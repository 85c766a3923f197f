"""Delivering the webhooks' outbox (webhooks/deliveries.py): what `send_webhooks`
runs, never a request. A round claims what is due, up to WEBHOOKS_CONCURRENCY at a
time, and POSTs each to its webhook's URL, checked again just before (webhooks/
targets.py: a name that now resolves to a private address is refused), signed with
the webhook's secret; each attempt is logged on its delivery."""

from __future__ import annotations

import logging
import time
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from webhooks import conf, deliveries, events, hooks, signing, targets, transport

logger = logging.getLogger(__name__)
GONE = "the webhook was removed or turned off"


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
    try:
        tried = attempt(delivery)
    except Exception as exc:  # A bug or an outage building the body: logged, retried.
        logger.exception("Webhook delivery %s failed before sending.", delivery.id)
        tried = deliveries.Attempt(at=datetime.now(UTC), code=None, error=exc.__class__.__name__, ms=0)
    return deliveries.record(delivery, tried, window=window)


def deliver_due(*, limit: int = 100) -> Round:
    """Send what is due, at most `limit` deliveries, WEBHOOKS_CONCURRENCY at once, each
    claimed just before it is sent (its lease runs from then); what happened."""
    settings = conf.get()
    window = timedelta(hours=settings.retry_hours)
    lock = threading.Lock()
    statuses: list[str] = []
    taken = 0

    def work() -> None:
        nonlocal taken
        while True:
            with lock:
                if taken >= limit:
                    return
                taken += 1
            delivery = deliveries.claim_next()
            if delivery is None:
                return
            status = _deliver(delivery, window)
            with lock:
                statuses.append(status)

    threads = [threading.Thread(target=work, daemon=True) for _ in range(min(settings.concurrency, limit))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    delivered = statuses.count(deliveries.DELIVERED)
    return Round(delivered=delivered, failed=len(statuses) - delivered)
