"""The dashboard's webhooks pages: editors only; making one shows its secret once;
a bad or private URL is refused in the page; "send a test event" stores a delivery
that the sender sends, and the log shows its answer; removing one removes its log."""

from __future__ import annotations

import re
import time

from django.test import Client

from dashboard.permissions import EDITORS_ONLY
from webhooks import deliveries, hooks, sender, signing, targets


def signed_in(make_user, role: str = "editor") -> Client:
    client = Client()
    client.force_login(make_user(f"{role}1", role=role))
    return client


def test_an_editor_makes_a_webhook_and_sees_its_secret_once(receiver, make_user):
    client = signed_in(make_user)
    made = client.post("/dashboard/webhooks/", {"url": receiver.base + "/ok", "events": ["comment.posted"],
                                                "active": "on"}, follow=True)
    [(location, status)] = made.redirect_chain
    [hook] = hooks.all_hooks()
    assert status == 303 and location == f"/dashboard/webhooks/{hook.id}/"
    assert hook.events == ("comment.posted",) and hook.active and hook.secret in made.content.decode()
    again = client.get(location).content.decode()
    assert hook.secret not in again and hook.url in again
    assert hook.url in client.get("/dashboard/webhooks/").content.decode()


def test_a_bad_or_private_url_is_refused_in_the_page(receiver, make_user, settings):
    client = signed_in(make_user)
    bad = client.post("/dashboard/webhooks/", {"url": "ftp://example.com/", "events": ["comment.posted"]})
    assert bad.status_code == 400 and targets.BAD_URL in bad.content.decode()
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    private = client.post("/dashboard/webhooks/", {"url": receiver.base + "/ok",
                                                   "events": ["comment.posted"]})
    assert private.status_code == 400 and "loopback, private or link-local" in private.content.decode()
    assert hooks.all_hooks() == []


def test_the_test_button_queues_an_event_the_sender_sends_and_the_log_shows(receiver, make_user):
    client = signed_in(make_user)
    hook = hooks.create_hook(url=receiver.base + "/ok", events=["comment.posted"], created_by="eve")
    page = f"/dashboard/webhooks/{hook.id}/"
    assert client.post(page + "test/").status_code == 303
    assert receiver.requests == [] and deliveries.count(status=deliveries.DUE) == 1
    sender.deliver_due()
    [(_, headers, body)] = receiver.requests
    assert headers["Slugline-Event"] == hooks.TEST_EVENT
    assert signing.verify(secret=hook.secret, value=headers["Slugline-Signature"], body=body,
                          now=int(time.time()))
    log = client.get(page).content.decode()
    assert re.search(r'data-status="delivered".*<span class="webhook-code">200</span>', log, re.S)


def test_an_editor_changes_and_removes_a_webhook(receiver, make_user):
    client = signed_in(make_user)
    hook = hooks.create_hook(url=receiver.base + "/ok", events=["comment.posted"], created_by="eve")
    saved = client.post(f"/dashboard/webhooks/{hook.id}/", {"url": receiver.base + "/other",
                                                            "events": ["comment.held", "comment.voted"]})
    assert saved.status_code == 303
    changed = hooks.get_hook(hook.id)
    assert changed.url.endswith("/other") and changed.events == ("comment.held", "comment.voted")
    assert not changed.active and changed.secret == hook.secret
    client.post(f"/dashboard/webhooks/{hook.id}/test/")
    assert client.post(f"/dashboard/webhooks/{hook.id}/delete/").status_code == 303
    assert hooks.all_hooks() == [] and deliveries.for_hook(hook_id=hook.id) == []
    assert client.get(f"/dashboard/webhooks/{hook.id}/").status_code == 404


def test_the_pages_are_for_editors_only(receiver, make_user):
    hook = hooks.create_hook(url=receiver.base + "/ok", events=["comment.posted"], created_by="eve")
    author = signed_in(make_user, role="author")
    for url in ("/dashboard/webhooks/", f"/dashboard/webhooks/{hook.id}/"):
        refused = author.get(url)
        assert refused.status_code == 403 and EDITORS_ONLY in refused.content.decode()
    assert author.post(f"/dashboard/webhooks/{hook.id}/test/").status_code == 403
    assert Client().get("/dashboard/webhooks/").status_code == 302
    assert deliveries.for_hook(hook_id=hook.id) == []
