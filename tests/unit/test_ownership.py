"""comments/posting/ownership.py: the signed token naming the comments a browser posted."""

from bson import ObjectId
from django.http import HttpResponse
from django.test import RequestFactory

from comments.posting import ownership


def request_with(cookie: str | None = None):
    request = RequestFactory().get("/")
    if cookie is not None:
        request.COOKIES[ownership.COOKIE] = cookie
    return request


def test_remembered_comments_are_owned_by_the_browser():
    """Each remembered id comes back from the cookie the response set."""
    first, second = ObjectId(), ObjectId()
    response = HttpResponse()
    ownership.remember(request_with(), response, first)
    cookie = response.cookies[ownership.COOKIE]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"
    again = HttpResponse()
    ownership.remember(request_with(cookie.value), again, second)
    assert ownership.owned(request_with(again.cookies[ownership.COOKIE].value)) == {first, second}


def test_an_altered_or_foreign_token_owns_nothing():
    """A token that does not verify (altered, or signed for something else) names no comment."""
    response = HttpResponse()
    ownership.remember(request_with(), response, ObjectId())
    token = response.cookies[ownership.COOKIE].value
    assert ownership.owned(request_with(token[:-2] + "xx")) == frozenset()
    from django.core import signing

    foreign = signing.dumps([str(ObjectId())], salt="something.else")
    assert ownership.owned(request_with(foreign)) == frozenset()
    assert ownership.owned(request_with()) == frozenset()


def test_only_the_newest_comments_are_kept():
    """The token keeps the newest KEEP ids."""
    cookie, made = None, []
    for _ in range(ownership.KEEP + 3):
        made.append(ObjectId())
        response = HttpResponse()
        ownership.remember(request_with(cookie), response, made[-1])
        cookie = response.cookies[ownership.COOKIE].value
    assert ownership.owned(request_with(cookie)) == frozenset(made[-ownership.KEEP:])
