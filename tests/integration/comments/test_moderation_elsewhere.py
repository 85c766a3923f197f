"""The comments app's moderation pages in a host without Slugline's dashboard: mounted
with include("comments.moderation.urls") at an address of the host's choosing, in
the app's own minimal layout; and the admin page of comments for a staff user."""

from __future__ import annotations

import pytest
from django.test import Client

from comments.records import APPROVED, PENDING, CommentAuthor
from comments.stores import get_store

pytestmark = [pytest.mark.usefixtures("each_store"),
              pytest.mark.urls("tests.integration.comments.moderation_host_urls")]

ROSA = CommentAuthor(id=None, name="Rosa Diaz", email="rosa@example.org")


@pytest.fixture
def held(make_post, make_comment):
    comment = make_comment(make_post(title="A post"), author=ROSA, text="Rosa waits", ip="192.0.2.1")
    get_store().set_status(ids=[comment.id], status=PENDING)
    return comment


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_queue_works_mounted_by_a_host_without_the_dashboard(make_user, held, settings):
    del settings.COMMENTS_MODERATION_BASE_TEMPLATE  # the app's own minimal layout
    editor = client_of(make_user("bruno", role="editor"))
    shown = editor.get("/moderate/")
    body = shown.content.decode()
    assert shown.status_code == 200 and "Rosa waits" in body
    assert 'class="site-header"' not in body
    assert '<main id="main" class="comments-moderation">' in body
    # The minimal layout links the app's stylesheet in its <head>, once.
    head = body.split("</head>")[0]
    assert body.count("comments/comments.") == 1
    assert 'rel="stylesheet" href="/static/comments/comments.' in head
    assert 'action="/moderate/actions/"' in body and 'href="/moderate/blocklist/"' in body
    done = editor.post("/moderate/actions/",
                       {"action": "approve", "ids": [str(held.id)], "next": "/moderate/"})
    assert done.status_code == 303 and done["Location"] == "/moderate/"
    assert get_store().find_by_id(held.id).status == APPROVED


def test_who_the_host_does_not_let_moderate_is_refused(make_user, held):
    author = client_of(make_user("chen", role="author"))
    refused = author.get("/moderate/")
    assert refused.status_code == 403
    assert author.post("/moderate/actions/", {"action": "approve", "ids": [str(held.id)]}).status_code == 403
    assert get_store().find_by_id(held.id).status == PENDING
    assert Client().get("/moderate/")["Location"].startswith("/accounts/login/")


def test_the_admin_page_lists_held_comments_with_a_link_to_act(make_user, held):
    staff = client_of(make_user("ada", role="editor"))
    shown = staff.get("/admin/comments/")
    body = shown.content.decode()
    assert shown.status_code == 200 and "Rosa waits" in body and 'id="site-name"' in body
    assert 'href="/admin/comments/moderation/?tab=pending"' in body
    assert staff.get("/admin/comments/moderation/?tab=pending").status_code == 200
    assert Client().get("/admin/comments/")["Location"].startswith("/admin/login/")
