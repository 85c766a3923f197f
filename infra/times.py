"""Times as MongoDB keeps them."""

from __future__ import annotations

from datetime import datetime


def to_millisecond(moment: datetime) -> datetime:
    """`moment` at BSON's millisecond precision (its microseconds cut to whole
    milliseconds), so that what a function returns equals what is stored."""
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)
