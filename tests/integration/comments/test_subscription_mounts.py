"""The subscription pages under both their mounts (comments/notifications/links.py):
Slugline's site-wide /notifications/, which its mail links to, and the same pages
under every post's comments prefix, which mail links to when a host mounts nothing
for the whole site (no_site_wide_urls.py). The same tokens, the same pages."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest
from bson import ObjectId
from django.test import Client

from comments.notifications import mail, notify, sender, subscriptions
from comments.posting import services
from comments.records import CommentAuthor
from comments.stores import get_store
from tests import smtp
from tests.page_reading import page, post_url, submit
from tests.smtp import link_to

smtp_server = smtp.smtp_server  # the fixture

OWNER = "rosa@example.com"
OTTO = CommentAuthor(id=None, name="Otto", email="otto@example.com")
SITE = "http://blog.example.test"
NO_SITE_WIDE = "tests.integration.comments.no_site_wide_urls"


@pytest.fixture(autouse=True)
def _mail_at_once(settings):
    settings.SITE_URL, settings.NOTIFICATIONS_BATCH_SECONDS = SITE, 0


def later() -> datetime:
    return datetime.now(UTC) + timedelta(seconds=1)


def path_of(url: str) -> str:
    assert url.startswith(SITE + "/"), url
    return urlsplit(url).path


def test_the_same_tokens_open_the_same_pages_under_both_mounts(make_post):
    """Each page answers alike at /notifications/ and under the post's prefix, never
    cached; the confirmation redirects on the mount it was opened on; the one-click
    unsubscribe (RFC 8058: no cookie, no form token) works under the prefix too."""
    post = make_post()
    subscription = subscriptions.subscribe(kind=subscriptions.DISCUSSION, target=post.id,
                                           discussion_id=post.id, email=OWNER, owner=True)
    tails = ["", f"confirm/{subscriptions.confirm_token(OWNER)}/", f"manage/{subscriptions.manage_token(OWNER)}/",
             f"unsubscribe/{subscriptions.unsubscribe_token(subscription.id)}/", "confirm/forged/"]
    for tail in tails:
        site_wide = Client().get(f"/notifications/{tail}")
        in_post = Client().get(f"/posts/{post.slug}/comments/notifications/{tail}")
        assert (in_post.status_code, in_post["Cache-Control"]) == (site_wide.status_code, site_wide["Cache-Control"])
        if tail.startswith(("manage/", "unsubscribe/")):
            assert post.title in in_post.content.decode()
    prefix = f"/posts/{post.slug}/comments/notifications/"
    confirmed = Client().post(f"{prefix}confirm/{subscriptions.confirm_token(OWNER)}/")
    assert confirmed.status_code == 303 and confirmed["Location"].startswith(f"{prefix}manage/")
    strict = Client(enforce_csrf_checks=True)
    done = strict.post(f"{prefix}unsubscribe/{subscriptions.unsubscribe_token(subscription.id)}/",
                       "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded")
    assert done.status_code == 200 and f'href="{prefix}"' in done.content.decode()
    assert not subscriptions.find(subscription.id).active


def test_without_a_site_wide_mount_every_link_in_mail_is_under_the_post(client, make_post, settings, smtp_server):
    settings.ROOT_URLCONF = NO_SITE_WIDE
    post = make_post()
    prefix = f"/posts/{post.slug}/comments/notifications/"
    assert submit(client, post_url(post), notify_replies="on", text="Tell me").status_code == 303
    assert sender.deliver_due(now=later()).sent == 1
    [confirmation] = smtp_server.inbox.messages
    confirm = path_of(link_to(confirmation, "/notifications/confirm/"))
    assert confirm.startswith(f"{prefix}confirm/")
    waiting = page(client.get(confirm)).inputs["subscription"]
    assert client.post(confirm, {"subscription": waiting})["Location"].startswith(f"{prefix}manage/")

    mine = next(c for c in get_store().find_latest(discussion_id=post.id, limit=5) if c.text == "Tell me")
    reply = services.post_comment(post=post, text="Heard you", author=OTTO, parent_slug=mine.slug).comment
    notify.after_posting(reply, post_author_id=post.author.id)
    assert sender.deliver_due(now=later()).sent == 1
    reply_mail = smtp_server.inbox.messages[-1]
    unsubscribe = path_of(reply_mail["List-Unsubscribe"].strip(" <>"))
    assert unsubscribe.startswith(f"{prefix}unsubscribe/")
    assert path_of(link_to(reply_mail, "/notifications/unsubscribe/")) == unsubscribe
    manage = path_of(link_to(reply_mail, "/notifications/manage/"))
    assert manage.startswith(f"{prefix}manage/") and client.get(manage).status_code == 200


def test_an_address_mail_with_no_discussion_left_to_link_under_is_not_sent(settings, smtp_server, caplog):
    """No site-wide mount, and the only request's discussion is gone: no page to link, so no mail."""
    settings.ROOT_URLCONF = NO_SITE_WIDE
    gone = ObjectId()
    subscriptions.subscribe(kind=subscriptions.DISCUSSION, target=gone, discussion_id=gone, email=OWNER)
    notify.request_address_mail(kind=notify.CONFIRM, email=OWNER, ip="192.0.2.1")
    with caplog.at_level(logging.WARNING, logger=mail.logger.name):
        delivery = sender.deliver_due(now=later())
    assert (delivery.sent, delivery.dropped) == (0, 1) and smtp_server.inbox.messages == []
    assert "no site-wide mount" in caplog.text
