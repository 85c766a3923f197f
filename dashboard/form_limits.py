"""What the dashboard's forms share: the length of a search box, and the message of a
field given more characters than it takes (with its `max_length` error code)."""

from django.utils.translation import gettext_lazy as _

SEARCH_MAX_LENGTH = 100
TOO_LONG = _("This can be at most %(limit_value)d characters; it has %(show_value)d.")


def too_long() -> dict:
    """A field's `error_messages` for a value over its `max_length`."""
    return {"max_length": TOO_LONG}
