"""The one error base class of the comments app, the blog and the dashboard: a request
the site refuses, with a message for the person who made it and a code that names
the reason (as Django's ValidationError has), for views, templates and tests."""

from __future__ import annotations


class Refused(Exception):
    """What was asked cannot be done as given. `message` is shown to the person who
    asked, in the site's layout, with what they typed kept; `code` says why;
    `retry_after`, when it will pass: the seconds to wait (0: it will not by waiting)."""

    def __init__(self, message: str, code: str, retry_after: int = 0):
        super().__init__(message)
        self.message, self.code, self.retry_after = message, code, retry_after
