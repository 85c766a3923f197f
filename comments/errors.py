"""The one error base class of the comments app, the blog and the dashboard: a request
the site refuses, with a message for the person who made it and a code that names
the reason (as Django's ValidationError has), for views, templates and tests."""

from __future__ import annotations


class Refused(Exception):
    """What was asked cannot be done as given. `message` is shown to the person who
    asked, in the site's layout, with what they typed kept; `code` says why."""

    def __init__(self, message: str, code: str):
        super().__init__(message)
        self.message, self.code = message, code
