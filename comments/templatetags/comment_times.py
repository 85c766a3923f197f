"""`{{ moment|html_datetime }}`: a moment as HTML's `datetime` attribute takes it, in
UTC to the second with `Z` (a valid global date and time string). Django's `date:"c"`
is Python's isoformat, whose six-digit fractions HTML refuses (it allows three)."""

from datetime import datetime, timezone

from django import template

register = template.Library()


@register.filter
def html_datetime(moment: object) -> str:
    """`2026-12-02T06:41:34Z`; empty for anything that is not a datetime (a naive one
    is taken as UTC, as the stores keep every time)."""
    if not isinstance(moment, datetime):
        return ""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)
    return aware.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
