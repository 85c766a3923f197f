"""Small HTTP answers every app gives the same way."""

from django.http import HttpResponseRedirect


def see_other(url: str) -> HttpResponseRedirect:
    """303 See Other: after a POST, the browser GETs the result."""
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response
