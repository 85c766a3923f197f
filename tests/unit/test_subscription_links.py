"""Where the subscription pages are and where mail links to them
(comments/notifications/links.py): at the host's site-wide mount when it has one
(Slugline's /notifications/), else under a discussion's prefix in comments.urls.
This module is also a host's URLconf with nothing but the five lines' include."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from bson import ObjectId
from django.test import RequestFactory
from django.urls import include, path, resolve

from comments import slugs
from comments.host import BaseHost
from comments.notifications import links, subscriptions, views

# The five lines' URL: the subscription pages only under each recipe's prefix.
urlpatterns = [path("recipes/<slug:discussion>/comments/", include("comments.urls"))]

FIVE_LINES = __name__
PAGES = [("ask", None, ""), ("confirm", "tok", "confirm/tok/"), ("unsubscribe", "tok", "unsubscribe/tok/"),
         ("manage", "tok", "manage/tok/")]
T0 = datetime(2026, 12, 1, tzinfo=UTC)
SOUP, STEW, GONE = ObjectId(), ObjectId(), ObjectId()


def made(discussion_id, *, created=T0, confirmed=None, requested=None) -> subscriptions.Subscription:
    return subscriptions.Subscription(
        id=ObjectId().binary.hex(), email="rosa@example.com", user_id=None, kind=subscriptions.DISCUSSION,
        target=discussion_id, discussion_id=discussion_id, created=created, active=requested is None,
        confirmed=confirmed, requested=requested)


class Kitchen(BaseHost):
    """A host whose discussions are two recipes (GONE was deleted)."""

    def get(self, discussion_id):
        return {SOUP: SimpleNamespace(slug="soup"), STEW: SimpleNamespace(slug="stew")}.get(discussion_id)


@pytest.fixture
def five_lines(settings, monkeypatch):
    settings.ROOT_URLCONF = FIVE_LINES
    monkeypatch.setattr(links, "get_host", Kitchen)


@pytest.mark.parametrize("name,token,tail", PAGES)
def test_mail_links_to_the_site_wide_mount_when_the_host_has_one(name, token, tail):
    """Slugline's /notifications/: links already mailed keep their address."""
    assert links.in_discussion(name, token=token, discussion_slug="soup") == f"/notifications/{tail}"
    assert links.for_address(name, token=token, about=[made(GONE)]) == f"/notifications/{tail}"


@pytest.mark.parametrize("name,token,tail", PAGES)
def test_without_a_site_wide_mount_mail_links_under_the_discussions_prefix(five_lines, name, token, tail):
    expected = f"/recipes/soup/comments/notifications/{tail}"
    assert links.in_discussion(name, token=token, discussion_slug="soup") == expected


@pytest.mark.parametrize("name,token,tail", PAGES)
def test_each_page_answers_under_a_discussions_prefix(five_lines, name, token, tail):
    match = resolve(f"/recipes/soup/comments/notifications/{tail}")
    assert match.func is getattr(views, name)
    assert match.namespace == links.IN_DISCUSSION
    assert match.kwargs == {"discussion": "soup", **({"token": token} if token else {})}


@pytest.mark.parametrize("token", ["vote", "edit", "delete", "flag", "abcdefgh"])
def test_a_token_spelled_like_an_action_or_a_slug_part_still_opens_the_subscription_page(five_lines, token):
    assert resolve(f"/recipes/soup/comments/notifications/confirm/{token}/").func is views.confirm
    assert resolve(f"/recipes/soup/comments/notifications/unsubscribe/{token}/").func is views.unsubscribe


def test_the_pages_take_no_comment_permalink(five_lines):
    """No comment's path is "notifications" (slug parts are 8 characters), and the
    permalinks and their actions answer as before."""
    assert not slugs.SLUG_PATH_RE.fullmatch("notifications")
    assert resolve("/recipes/soup/comments/abcdefgh/").url_name == "permalink"
    assert resolve("/recipes/soup/comments/abcdefgh/ijklmnop/vote/").url_name == "vote"


def test_an_address_mail_links_under_the_discussion_asked_for_last(five_lines):
    """A confirmation or manage mail spans the address's subscriptions: the discussion
    of the one asked for or confirmed last that the host still has."""
    older = made(SOUP, created=T0, requested=T0 + timedelta(hours=1))
    newer = made(STEW, created=T0 - timedelta(days=9), requested=T0 + timedelta(hours=2))
    assert links.for_address("confirm", token="tok", about=[older, newer]) == \
        "/recipes/stew/comments/notifications/confirm/tok/"
    confirmed_last = made(SOUP, created=T0 - timedelta(days=30), confirmed=T0 + timedelta(days=1))
    assert links.for_address("manage", token="tok", about=[newer, confirmed_last]) == \
        "/recipes/soup/comments/notifications/manage/tok/"


def test_a_discussion_that_is_gone_is_passed_over_and_none_left_is_no_link(five_lines):
    gone = made(GONE, requested=T0 + timedelta(days=3))
    assert links.for_address("confirm", token="tok", about=[made(SOUP), gone]) == \
        "/recipes/soup/comments/notifications/confirm/tok/"
    assert links.for_address("confirm", token="tok", about=[gone]) is None
    assert links.for_address("confirm", token="tok", about=[]) is None


def test_newest_first_names_each_discussion_once_latest_touch_first():
    found = [made(SOUP, created=T0), made(STEW, created=T0 + timedelta(minutes=1)),
             made(SOUP, created=T0 - timedelta(days=1), confirmed=T0 + timedelta(minutes=2))]
    assert links.newest_first(found) == [SOUP, STEW]
    assert links.newest_first([]) == []


@pytest.mark.parametrize("opened,expected", [
    ("/notifications/confirm/old/", "/notifications/manage/new/"),
    ("/posts/hello-world/comments/notifications/confirm/old/", "/posts/hello-world/comments/notifications/manage/new/"),
])
def test_a_page_links_to_its_neighbours_on_the_mount_it_was_opened_on(opened, expected):
    request = RequestFactory().get(opened)
    request.resolver_match = resolve(opened)
    assert links.here(request, "manage", token="new") == expected
    assert links.here(request, "ask") == expected.split("manage/")[0]


def test_under_the_five_lines_a_page_links_to_its_neighbours_under_the_same_recipe(five_lines):
    opened = "/recipes/soup/comments/notifications/unsubscribe/tok/"
    request = RequestFactory().post(opened)
    request.resolver_match = resolve(opened)
    assert links.here(request, "ask") == "/recipes/soup/comments/notifications/"
