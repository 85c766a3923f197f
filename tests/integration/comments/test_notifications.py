"""Reply notifications and subscriptions by e-mail, end to end: the comment form's
opt-in, the outbox, `send_notifications` delivering through Django's SMTP backend to
a real SMTP server on a loopback port (tests/smtp.py), and the pages behind the
mail's links. Against the real MongoDB-compatible server, once per comment store."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command
from django.test import Client

from cms.posts import AuthorSummary
from comments.moderation import changes, queue as moderation
from comments.notifications import notify, outbox, sender, subscriptions
from comments.posting import confirmed as confirmed_addresses, services
from comments.posting.forms import EMAIL_FOR_NOTICES
from comments.records import CommentAuthor
from comments.stores import get_store
from comments.views.posting import CHECK_YOUR_MAIL
from tests import smtp
from tests.page_reading import page, permalink_url, post_url, submit
from tests.smtp import html_of, link_to, text_of

smtp_server = smtp.smtp_server  # the fixture

pytestmark = pytest.mark.usefixtures("each_store")

ROSA = CommentAuthor(id=None, name="Rosa", email="rosa@example.com")
OTTO = CommentAuthor(id=None, name="Otto", email="otto@example.com")
SITE = "http://blog.example.test"


@pytest.fixture(autouse=True)
def _mail_settings(settings):
    settings.SITE_URL = SITE
    settings.DEFAULT_FROM_EMAIL = "Slugline <notices@blog.example.test>"
    settings.NOTIFICATIONS_BATCH_SECONDS = 0
    settings.NOTIFICATIONS_AUTHOR_DIGEST_MINUTES = 0
    settings.NOTIFICATIONS_QUEUE_DIGEST_MINUTES = 0


def later(seconds: float = 1) -> datetime:
    return datetime.now(UTC) + timedelta(seconds=seconds)


def post_and_notify(post, **fields):
    """A comment through the service, then what the view enqueues after it."""
    comment = services.post_comment(post=post, **fields).comment
    notify.after_posting(comment, post_author_id=post.author.id)
    return comment


def subscribed(comment, email="rosa@example.com", *, confirmed=True):
    """A subscription to replies to `comment`: made by the address's owner (`confirmed`),
    or a request by anyone else that waits for the owner."""
    return subscriptions.subscribe(kind=subscriptions.REPLIES, target=comment.id,
                                   discussion_id=comment.discussion_id, email=email, owner=confirmed)


def local(url: str) -> str:
    """A link from a mail, as the test client asks for it (path and query)."""
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}" == SITE
    return parts.path + (f"?{parts.query}" if parts.query else "")


# --- Opting in --------------------------------------------------------------------------


def test_opting_in_without_an_address_is_refused_and_keeps_the_text(client, make_post, mongo_db):
    """The box ticked with no e-mail: 400 with the field's error, the text kept, nothing stored."""
    post = make_post()
    response = submit(client, post_url(post), email="", notify_replies="on", text="Keep me")
    assert response.status_code == 400
    shown = page(response)
    assert EMAIL_FOR_NOTICES in shown.by_class["field-error"]
    assert "Keep me" in shown.textareas["text"]
    assert mongo_db.comment_subscriptions.count_documents({}) == 0


def test_opting_in_sends_one_confirmation_and_nothing_else_until_confirmed(client, make_post, smtp_server):
    """A first opt-in: the page says to look for a confirmation mail; the sender sends
    just that; a reply before confirming sends nothing; after following the link (and
    its button) the next reply is mailed."""
    post = make_post()
    response = submit(client, post_url(post), notify_replies="on", text="Tell me")
    assert response.status_code == 303
    landing = page(client.get(response["Location"]))
    assert CHECK_YOUR_MAIL.format(email="rosa@example.com") in landing.by_class["message"]
    out = io.StringIO()
    call_command("send_notifications", stdout=out)
    assert out.getvalue().startswith("Sent 1 notification mail;")
    [confirmation] = smtp_server.inbox.messages
    assert confirmation["To"] == "rosa@example.com"
    mine = next(c for c in get_store().find_latest(discussion_id=post.id, limit=5) if c.text == "Tell me")

    post_and_notify(post, text="Too early", author=OTTO, parent_slug=mine.slug)
    assert sender.deliver_due(now=later()).sent == 0

    confirm_url = local(link_to(confirmation, "/notifications/confirm/"))
    asked = client.get(confirm_url)
    assert asked.status_code == 200 and not confirmed_addresses.is_confirmed("rosa@example.com")
    waiting = page(asked).inputs["subscription"]
    confirmed = Client().post(confirm_url, {"subscription": waiting})
    assert confirmed.status_code == 303 and confirmed["Location"].startswith("/notifications/manage/")
    assert confirmed_addresses.is_confirmed("rosa@example.com")

    post_and_notify(post, text="Now you hear me", author=OTTO, parent_slug=mine.slug)
    assert sender.deliver_due(now=later()).sent == 1
    assert "Now you hear me" in text_of(smtp_server.inbox.messages[-1])
    assert "Too early" not in text_of(smtp_server.inbox.messages[-1])


def test_the_answer_is_the_same_for_a_known_and_an_unknown_address(make_post, mongo_db, smtp_server):
    """An address whose owner confirmed it before and a new one get the same page and the
    same outbox work; both owners are asked by mail (a request from a browser that never
    confirmed the address starts nothing by itself), and a confirmation mail whose
    requests were all confirmed meanwhile is not sent (the sender decides, not the request)."""
    confirmed_addresses.confirm(email="known@example.com")
    post = make_post()
    answers = []
    for address in ("known@example.com", "new@example.com"):
        client = Client()
        response = submit(client, post_url(post), email=address, notify_replies="on", text=f"From {address}")
        shown = page(client.get(response["Location"]))
        answers.append([message.replace(address, "ADDRESS") for message in shown.by_class["message"]])
        assert mongo_db.notification_outbox.count_documents({"to": address, "kind": notify.CONFIRM}) == 1
    assert CHECK_YOUR_MAIL.format(email="ADDRESS") in answers[0]
    assert answers[0] == answers[1]
    [waiting] = subscriptions.pending(email="new@example.com")
    subscriptions.confirm_requests(email="new@example.com", ids=[waiting.id], before=later())
    delivery = sender.deliver_due(now=later())
    assert (delivery.sent, delivery.dropped) == (1, 1)
    assert [m["To"] for m in smtp_server.inbox.messages] == ["known@example.com"]


def test_confirmation_mails_are_limited_per_address_and_per_client(make_post, settings, mongo_db):
    """Past NOTIFICATIONS_CONFIRM_PER_ADDRESS in a window no more confirmation is enqueued
    for that address, and past NOTIFICATIONS_CONFIRM_PER_CLIENT none for that client."""
    settings.NOTIFICATIONS_CONFIRM_PER_ADDRESS, settings.NOTIFICATIONS_CONFIRM_PER_CLIENT = 1, 3
    for n in range(2):  # asking counts against the client too
        notify.request_address_mail(kind=notify.CONFIRM, email="Rosa@Example.com", ip="192.0.2.1")
    assert mongo_db.notification_outbox.count_documents({"to": "rosa@example.com"}) == 1
    for n in range(3):
        notify.request_address_mail(kind=notify.CONFIRM, email=f"other{n}@example.com", ip="192.0.2.1")
    assert mongo_db.notification_outbox.count_documents({}) == 2  # the client's 3 are spent
    notify.request_address_mail(kind=notify.CONFIRM, email="third@example.com", ip="192.0.2.2")
    assert mongo_db.notification_outbox.count_documents({}) == 3


def test_a_confirmation_link_tampered_with_or_too_old_is_refused(client, settings):
    token = subscriptions.confirm_token("rosa@example.com")
    assert client.post(f"/notifications/confirm/{token[:-2]}xx/").status_code == 400
    settings.NOTIFICATIONS_CONFIRM_MAX_AGE = -1
    assert client.post(f"/notifications/confirm/{token}/").status_code == 400
    assert not confirmed_addresses.is_confirmed("rosa@example.com")


def test_a_member_is_mailed_at_their_account_address_without_confirming(make_user, make_post, smtp_server):
    """A signed-in member's opt-in uses their account's address and needs no confirmation."""
    member = make_user("mira", role="reader")
    member.email = "mira@example.com"
    member.save()
    client = Client()
    client.force_login(member)
    post = make_post()
    assert submit(client, post_url(post), notify_replies="on", text="Member here").status_code == 303
    mine = next(c for c in get_store().find_latest(discussion_id=post.id, limit=5) if c.text == "Member here")
    post_and_notify(post, text="Hello Mira", author=OTTO, parent_slug=mine.slug)
    delivery = sender.deliver_due(now=later())
    assert delivery.sent == 1
    [mail] = smtp_server.inbox.messages
    assert mail["To"] == "mira@example.com" and "Hello Mira" in text_of(mail)


# --- What is sent ---------------------------------------------------------------------------


def test_the_reply_mail_carries_the_reply_its_links_and_the_standard_headers(
    client, make_post, make_comment, smtp_server
):
    """Who replied, the text (plain and sanitised HTML), the reply's permalink, a one-click
    unsubscribe link and the manage link; List-Unsubscribe (its https link only: no
    one reads the sending mailbox), List-Unsubscribe-Post, Auto-Submitted, Message-ID
    and DEFAULT_FROM_EMAIL."""
    post = make_post()
    parent = make_comment(post, author=ROSA, text="Root")
    subscribed(parent)
    reply = post_and_notify(post, text="**Bold** <script>alert(1)</script> reply", author=OTTO,
                            parent_slug=parent.slug)
    assert sender.deliver_due(now=later()).sent == 1
    [mail] = smtp_server.inbox.messages
    assert mail["From"] == "Slugline <notices@blog.example.test>"
    assert mail["Auto-Submitted"] == "auto-generated"
    assert mail["Message-ID"].endswith("@blog.example.test>")
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert "mailto:" not in mail["List-Unsubscribe"] and "," not in mail["List-Unsubscribe"]
    https = mail["List-Unsubscribe"].strip(" <>")
    assert https.startswith(SITE + "/notifications/unsubscribe/")
    assert "Otto" in mail["Subject"] and post.title in mail["Subject"]
    body, html = text_of(mail), html_of(mail)
    assert "Otto wrote:" in body and "**Bold**" in body
    assert "<strong>Bold</strong>" in html and "<script>" not in html
    permalink = link_to(mail, "/comments/")
    assert permalink == SITE + permalink_url(post, reply.slug) + "#" + reply.anchor
    assert f'id="{reply.anchor}"' in client.get(local(permalink)).content.decode()
    assert link_to(mail, "/notifications/unsubscribe/") == https
    manage = client.get(local(link_to(mail, "/notifications/manage/")))
    assert manage.status_code == 200 and post.title in manage.content.decode()


def test_one_click_unsubscribe_is_a_post_without_login_or_form(make_post, make_comment, smtp_server):
    """RFC 8058: the mail program's POST (no cookies, no CSRF token) unsubscribes; a GET
    only shows the button; later replies send nothing."""
    post = make_post()
    parent = make_comment(post, author=ROSA)
    subscription = subscribed(parent)
    url = "/notifications/unsubscribe/" + subscriptions.unsubscribe_token(subscription.id) + "/"
    strict = Client(enforce_csrf_checks=True)
    shown = strict.get(url)
    assert shown.status_code == 200 and "Stop these mails" in shown.content.decode()
    assert subscriptions.find(subscription.id).active
    done = strict.post(url, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded")
    assert done.status_code == 200
    assert not subscriptions.find(subscription.id).active
    post_and_notify(post, text="Unheard", author=OTTO, parent_slug=parent.slug)
    assert sender.deliver_due(now=later()).sent == 0
    assert smtp_server.inbox.messages == []
    assert Client().post("/notifications/unsubscribe/forged/").status_code == 404


def test_replies_within_the_window_go_out_as_one_mail(make_post, make_comment, settings, smtp_server):
    settings.NOTIFICATIONS_BATCH_SECONDS = 120
    post = make_post()
    parent = make_comment(post, author=ROSA)
    subscribed(parent)
    for text in ("First answer", "Second answer", "Third answer"):
        post_and_notify(post, text=text, author=OTTO, parent_slug=parent.slug)
    assert sender.deliver_due(now=later(60)).sent == 0  # the window is still open
    assert sender.deliver_due(now=later(121)).sent == 1
    [mail] = smtp_server.inbox.messages
    assert "3 replies" in mail["Subject"]
    body = text_of(mail)
    assert body.index("First answer") < body.index("Second answer") < body.index("Third answer")


def test_no_mail_for_pending_spam_or_own_replies_nor_a_reply_deleted_before_sending(
    make_post, make_comment, settings, smtp_server
):
    post = make_post()
    parent = make_comment(post, author=ROSA)
    subscribed(parent)
    post_and_notify(post, text="Rosa answers herself", author=ROSA, parent_slug=parent.slug)
    settings.COMMENTS_MODERATION = ["all"]
    held = post_and_notify(post, text="Held back", author=OTTO, parent_slug=parent.slug)
    settings.COMMENTS_MODERATION = ["post"]
    gone = post_and_notify(post, text="Deleted in time", author=OTTO, parent_slug=parent.slug)
    moderation.moderate(action="delete", comment_ids=[gone.id])
    assert held.status == "pending"
    delivery = sender.deliver_due(now=later())
    assert delivery.sent == 0 and smtp_server.inbox.messages == []
    moderation.moderate(action="spam", comment_ids=[held.id])
    assert sender.deliver_due(now=later()).sent == 0


def test_an_editors_approval_later_sends_the_mail_once_even_when_the_action_runs_again(
    make_post, make_comment, settings, smtp_server, mongo_db
):
    settings.COMMENTS_MODERATION = ["all"]
    post = make_post()
    parent = make_comment(post, author=ROSA, text="Root", trusted=True)
    subscribed(parent)
    held = post_and_notify(post, text="Approved later", author=OTTO, parent_slug=parent.slug)
    assert sender.deliver_due(now=later()).sent == 0
    moderation.moderate(action="approve", comment_ids=[held.id])
    # An interrupted action is run again from its record: nothing is enqueued twice.
    record = mongo_db.comment_changes.find_one({"action": "approve"})
    changes.run({**record, "applied": 0, "settled": []})
    assert notify.approved(comment_ids=[held.id]) == 0
    assert sender.deliver_due(now=later()).sent == 1
    assert sender.deliver_due(now=later()).sent == 0
    [mail] = smtp_server.inbox.messages
    assert "Approved later" in text_of(mail)


def test_followers_of_a_discussion_hear_of_every_new_approved_comment(make_post, make_comment, smtp_server):
    post = make_post()
    subscriptions.subscribe(kind=subscriptions.DISCUSSION, target=post.id, discussion_id=post.id,
                            email="fan@example.com", owner=True)
    post_and_notify(post, text="A new thread", author=OTTO)
    assert sender.deliver_due(now=later()).sent == 1
    [mail] = smtp_server.inbox.messages
    assert mail["To"] == "fan@example.com" and "A new thread" in text_of(mail)


def test_post_authors_and_editors_get_digests_at_most_every_n_minutes(
    make_post, make_user, settings, smtp_server
):
    settings.NOTIFICATIONS_AUTHOR_DIGEST_MINUTES, settings.NOTIFICATIONS_QUEUE_DIGEST_MINUTES = 60, 30
    author, editor = make_user("ada"), make_user("edith", role="editor")
    for user, address in ((author, "ada@example.com"), (editor, "edith@example.com")):
        user.email = address
        user.save()
    post = make_post(author=AuthorSummary(id=author.pk, username="ada", name="Ada"))
    post_and_notify(post, text="One", author=OTTO)
    post_and_notify(post, text="Two", author=OTTO)
    settings.COMMENTS_MODERATION = ["all"]
    post_and_notify(post, text="Waiting", author=OTTO)
    assert sender.deliver_due(now=later(29 * 60)).sent == 0
    assert sender.deliver_due(now=later(31 * 60)).sent == 1
    assert sender.deliver_due(now=later(61 * 60)).sent == 1
    queue, digest = smtp_server.inbox.messages
    assert queue["To"] == "edith@example.com" and "Waiting" in text_of(queue)
    assert digest["To"] == "ada@example.com" and "2 new comments" in digest["Subject"]


# --- Delivery -------------------------------------------------------------------------------


def test_smtp_down_then_up_delivers_the_mail_once(make_post, make_comment, smtp_server):
    post = make_post()
    parent = make_comment(post, author=ROSA)
    subscribed(parent)
    post_and_notify(post, text="Patience", author=OTTO, parent_slug=parent.slug)
    smtp_server.stop()
    failed = sender.deliver_due(now=later())
    assert failed.failed == 1 and failed.retry_at > later()
    smtp_server.start()
    assert sender.deliver_due(now=later()).sent == 0  # not due again yet: back-off
    assert sender.deliver_due(now=failed.retry_at + timedelta(seconds=1)).sent == 1
    assert sender.deliver_due(now=failed.retry_at + timedelta(hours=2)).sent == 0
    assert len(smtp_server.inbox.messages) == 1


def test_a_batch_claimed_by_a_sender_that_died_is_sent_once_its_lease_runs_out(
    make_post, make_comment, smtp_server
):
    post = make_post()
    parent = make_comment(post, author=ROSA)
    subscribed(parent)
    post_and_notify(post, text="Orphaned", author=OTTO, parent_slug=parent.slug)
    assert outbox.claim_next(now=later()) is not None  # ... and then the sender died.
    assert sender.deliver_due(now=later()).sent == 0  # its lease still holds
    assert sender.deliver_due(now=later() + outbox.LEASE).sent == 1
    assert len(smtp_server.inbox.messages) == 1


def test_a_sender_killed_mid_batch_sends_each_mail_once_but_the_one_in_flight_twice_at_most(
    make_post, make_comment, smtp_server, settings, each_store
):
    """`send_notifications` in its own process, killed (SIGKILL) while the SMTP server
    holds its second mail: the first is marked sent and never repeated, the one in
    flight is sent again once its lease runs out (one duplicate for one kill), the
    third goes out once."""
    post = make_post()
    for name in ("ann", "bea", "cy"):
        parent = make_comment(post, author=CommentAuthor(id=None, name=name, email=f"{name}@example.com"))
        subscribed(parent, f"{name}@example.com")
        post_and_notify(post, text=f"Reply to {name}", author=OTTO, parent_slug=parent.slug)
    smtp_server.inbox.hold_after = 1
    env = {**os.environ, "MONGODB_URI": settings.MONGODB_URI, "MONGODB_NAME": settings.MONGODB_NAME,
           "EMAIL_URL": smtp_server.url, "SITE_URL": SITE, "COMMENTS_STORE": each_store,
           "NOTIFICATIONS_BATCH_SECONDS": "0", "DJANGO_SETTINGS_MODULE": "slugline.settings"}
    proc = subprocess.Popen([sys.executable, "manage.py", "send_notifications"], env=env,
                            cwd=Path(__file__).resolve().parents[3],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len(smtp_server.inbox.messages) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(smtp_server.inbox.messages) == 2
    finally:
        proc.kill()
        proc.wait()
    smtp_server.inbox.hold_after = None
    assert sender.deliver_due(now=later()).sent == 1  # the third; the dead sender's lease holds the second
    assert sender.deliver_due(now=later() + outbox.LEASE).sent == 1
    received = sorted(m["To"] for m in smtp_server.inbox.messages)
    in_flight = smtp_server.inbox.messages[1]["To"]
    assert received == sorted(["ann@example.com", "bea@example.com", "cy@example.com", in_flight])
    assert outbox.count(status=outbox.SENT) == 3


# --- A confirmed address and pre-moderation ---------------------------------------------


def test_a_confirmed_address_vouches_only_in_the_browser_that_confirmed_it(make_post, settings):
    """Under COMMENTS_MODERATION=first, the browser that followed an address's
    confirmation link is a known commenter when it types that address; another browser
    typing the same address (an impostor) is still held."""
    settings.COMMENTS_MODERATION = ["first"]
    post = make_post()
    owner, impostor = Client(), Client()
    assert owner.post(local(f"{SITE}/notifications/confirm/{subscriptions.confirm_token('rosa@example.com')}/"))\
        .status_code == 303
    assert confirmed_addresses.is_confirmed("rosa@example.com")
    for browser, text in ((owner, "From the owner"), (impostor, "From an impostor")):
        assert submit(browser, post_url(post), text=text, email="rosa@example.com").status_code == 303
    status = {c.text: c.status for c in get_store().find_by_ids(
        ids=[d["_id"] for d in get_store().iter_documents(discussion_id=post.id)])}
    assert status == {"From the owner": "approved", "From an impostor": "pending"}
