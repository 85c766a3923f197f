"""Small HTTP answers every app gives the same way, and what a form's raw body says."""

from urllib.parse import unquote_plus, unquote_to_bytes

from django.http import HttpRequest, HttpResponseRedirect


def see_other(url: str) -> HttpResponseRedirect:
    """303 See Other: after a POST, the browser GETs the result."""
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response


def undecodable_fields(request: HttpRequest) -> frozenset[str]:
    """The fields of a URL-encoded form body whose bytes are not UTF-8: Django puts
    U+FFFD in place of each bad byte, so the form would take damaged text as typed.
    Browsers send UTF-8; a client sending `%ED%A0%80` (a surrogate) or `%FF` is told."""
    if request.content_type != "application/x-www-form-urlencoded" or not request.body:
        return frozenset()
    damaged = set()
    for pair in request.body.split(b"&"):
        name, _, value = pair.partition(b"=")
        try:
            unquote_to_bytes(value.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            damaged.add(unquote_plus(name.decode("latin-1")))
    return frozenset(damaged)
