"""Delivering the outbox (comments/notifications/outbox.py) through Django's e-mail backend: what
`send_notifications` runs. Each batch is claimed, composed (comments/notifications/mail.py), sent,
then marked sent; a failed send puts the batch back with a back-off and ends the
round (the server is likely down for the rest too)."""

from __future__ import annotations

import logging
import smtplib
from dataclasses import dataclass
from datetime import datetime

from django.core.mail import get_connection

from comments.notifications import mail, outbox

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Delivery:
    sent: int = 0
    dropped: int = 0
    failed: int = 0
    # When the failed batch is due again.
    retry_at: datetime | None = None


def deliver_due(*, now: datetime | None = None, limit: int | None = None) -> Delivery:
    """Send every batch that is due (at most `limit`); what happened."""
    sent = dropped = 0
    connection = get_connection()
    try:
        while limit is None or sent + dropped < limit:
            claimed = outbox.claim_next(now=now)
            if claimed is None:
                break
            message = mail.compose(claimed.items)
            if message is None:
                outbox.drop(claimed, now=now)
                dropped += 1
                continue
            message.connection = connection
            try:
                message.send()
            except (OSError, smtplib.SMTPException) as exc:
                retry_at = outbox.retry_later(claimed, now=now)
                logger.warning("Mail to the outbox's batch %s not sent (%s); trying again at %s.",
                               claimed.items[0].batch, exc.__class__.__name__, f"{retry_at:%H:%M:%S}")
                return Delivery(sent=sent, dropped=dropped, failed=1, retry_at=retry_at)
            outbox.mark_sent(claimed, now=now)
            sent += 1
    finally:
        try:
            connection.close()
        except (OSError, smtplib.SMTPException):
            pass
    return Delivery(sent=sent, dropped=dropped)
