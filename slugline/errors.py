"""The site's own 400, 403, 404 and 429 pages, in its layout.

Django's defaults show no reason for a 400 and the exception's class name for a
404 raised by URL resolution. These show the reason our own code gave (our
messages are written for readers) and a plain sentence otherwise.
"""

from django.core.exceptions import BadRequest, PermissionDenied
from django.http import Http404
from django.shortcuts import render
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

PAGES = {
    400: (_("Bad request"), _("That request could not be understood.")),
    403: (_("Not allowed"), _("You are not allowed to do that.")),
    404: (_("Page not found"), _("There is nothing at this address.")),
    429: (_("Too many tries"), _("Too many tries from here in a short time. Wait a few minutes, then try again.")),
}


def _reason(exception, kinds) -> str | None:
    if type(exception) in kinds and exception.args and isinstance(exception.args[0], str):
        return exception.args[0]
    return None


def _error_page(request, status, reason):
    title, default = PAGES[status]
    context = {"error_title": title, "error_text": reason or default, "status": status}
    return render(request, "error.html", context, status=status)


def bad_request(request, exception):
    return _error_page(request, 400, _reason(exception, (BadRequest,)))


def permission_denied(request, exception):
    return _error_page(request, 403, _reason(exception, (PermissionDenied,)))


def page_not_found(request, exception):
    return _error_page(request, 404, _reason(exception, (Http404,)))


def too_many_requests(request):
    """What django-allauth answers when one of its rate limits refuses a request
    (sign-up, codes by mail, password reset): it calls ROOT_URLCONF's handler429."""
    return _error_page(request, 429, None)


CSRF_FAILED = gettext_noop(
    "This form had expired or did not come from this site, so nothing was changed. "
    "Go back, reload the page and try again."
)


def csrf_failure(request, reason=""):
    """Django's CSRF_FAILURE_VIEW: a refused form post, explained in the site's layout."""
    return _error_page(request, 403, gettext(CSRF_FAILED))
