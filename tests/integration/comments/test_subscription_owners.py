"""Only the owner of an address starts mail to it (comments/notifications/subscriptions.py): a
stranger who types someone's address records a request that waits for its owner;
the owner confirms the requests they recognise, one by one; an unsubscribe lasts
until the owner subscribes again. And the pages behind the mail's links: never
cached, Post/Redirect/Get, manage links that expire."""

from __future__ import annotations

import time as real_time
from datetime import UTC, datetime, timedelta

import pytest
from django.core import signing
from django.test import Client

from comments.notifications import notify, sender, subscriptions
from comments.posting import confirmed as confirmed_addresses, services
from comments.records import CommentAuthor
from comments.stores import get_store
from tests import smtp
from tests.page_reading import page, post_url, submit
from tests.smtp import link_to, text_of
from tests.threads import at_once, split

smtp_server = smtp.smtp_server  # the fixture

OWNER = "rosa@example.com"
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


def confirm_url(email: str = OWNER) -> str:
    return f"/notifications/confirm/{subscriptions.confirm_token(email)}/"


def owners_browser() -> Client:
    """A browser that followed the owner's confirmation link (its signed cookie says so)."""
    browser = Client()
    assert browser.post(confirm_url()).status_code == 303
    return browser


def post_and_notify(post, **fields):
    comment = services.post_comment(post=post, **fields).comment
    notify.after_posting(comment, post_author_id=post.author.id)
    return comment


def mails_about(smtp_server, text: str) -> list:
    return [m for m in smtp_server.inbox.messages if text in text_of(m)]


def test_a_stranger_cannot_start_mail_to_a_confirmed_address(make_post, mongo_db, smtp_server):
    """The owner confirmed their address in their browser; a stranger follows a discussion
    with it from another browser: nothing written on that discussion reaches the owner,
    only a confirmation mail asking them."""
    owners_browser()
    post = make_post()
    stranger = Client()
    assert submit(stranger, post_url(post), email=OWNER, follow_discussion="on",
                  text="I follow for Rosa").status_code == 303
    [request] = subscriptions.pending(email=OWNER)
    assert not request.active and not subscriptions.deliverable(request)
    post_and_notify(post, text="Attacker-written words", author=OTTO)
    sender.deliver_due(now=later())
    assert mails_about(smtp_server, "Attacker-written words") == []
    assert [m["To"] for m in smtp_server.inbox.messages] == [OWNER]  # the confirmation
    assert "/notifications/confirm/" in text_of(smtp_server.inbox.messages[0])


def test_the_owners_own_browser_starts_mail_at_once(make_post, smtp_server):
    """The browser that confirmed the address needs no new mail to follow a discussion."""
    browser = owners_browser()
    post = make_post()
    assert submit(browser, post_url(post), email=OWNER, follow_discussion="on", text="Mine").status_code == 303
    assert subscriptions.pending(email=OWNER) == []
    post_and_notify(post, text="Worth reading", author=OTTO)
    assert sender.deliver_due(now=later()).sent == 1
    [mail] = smtp_server.inbox.messages
    assert mail["To"] == OWNER and "Worth reading" in text_of(mail)


def test_the_owner_confirms_only_what_they_tick_and_is_redirected(make_post, smtp_server):
    """The confirmation page lists every request, ticked; the POST confirms the ticked
    ones only, then answers 303 to the address's subscriptions (a reload re-posts nothing)."""
    theirs, mine = make_post(title="Their pick"), make_post(title="My pick")
    for post in (theirs, mine):
        assert submit(Client(), post_url(post), email=OWNER, follow_discussion="on").status_code == 303
    assert sender.deliver_due(now=later()).sent == 1
    url = link_to(smtp_server.inbox.messages[0], "/notifications/confirm/").removeprefix(SITE)
    browser = Client()
    asked = browser.get(url)
    shown = asked.content.decode()
    assert asked.status_code == 200 and "Their pick" in shown and "My pick" in shown
    assert shown.count('type="checkbox" name="subscription"') == 2
    wanted = subscriptions.subscription_id(kind=subscriptions.DISCUSSION, target=mine.id, email=OWNER)
    answer = browser.post(url, {"subscription": [wanted]})
    assert answer.status_code == 303 and answer["Location"].startswith("/notifications/manage/")
    landing = browser.get(answer["Location"])
    listed = landing.content.decode()
    assert "My pick" in listed and "Their pick" not in listed
    assert any("Confirmed: 1 subscription" in m for m in page(landing).by_class["message"])
    assert subscriptions.find(wanted).active
    assert [s.discussion_id for s in subscriptions.pending(email=OWNER)] == [theirs.id]


def test_a_confirmation_link_confirms_no_request_made_after_its_mail(make_post):
    """What a stranger asks after the owner's mail was written waits for another mail."""
    early, late = make_post(), make_post()
    subscriptions.subscribe(kind=subscriptions.DISCUSSION, target=early.id, discussion_id=early.id, email=OWNER)
    url = confirm_url()
    real_time.sleep(0.01)
    subscriptions.subscribe(kind=subscriptions.DISCUSSION, target=late.id, discussion_id=late.id, email=OWNER)
    ids = [s.id for s in subscriptions.pending(email=OWNER)]
    assert len(ids) == 2
    assert Client().post(url, {"subscription": ids}).status_code == 303
    assert [s.discussion_id for s in subscriptions.pending(email=OWNER)] == [late.id]
    assert "subscription" not in page(Client().get(url)).inputs  # nothing before it waits now


def test_an_unsubscribe_lasts_until_the_owner_subscribes_again(make_post, make_comment, smtp_server):
    """One click stops the mail; anyone posting with the address and the box ticked does
    not switch it back on; the owner's browser does."""
    post = make_post()
    subscription = subscriptions.subscribe(kind=subscriptions.DISCUSSION, target=post.id,
                                           discussion_id=post.id, email=OWNER, owner=True)
    one_click = f"/notifications/unsubscribe/{subscriptions.unsubscribe_token(subscription.id)}/"
    assert Client().post(one_click, "List-Unsubscribe=One-Click",
                         content_type="application/x-www-form-urlencoded").status_code == 200
    assert submit(Client(), post_url(post), email=OWNER, follow_discussion="on",
                  text="Back on, says a stranger").status_code == 303
    assert not subscriptions.find(subscription.id).active
    post_and_notify(post, text="Should not arrive", author=OTTO)
    sender.deliver_due(now=later())
    assert mails_about(smtp_server, "Should not arrive") == []
    browser = owners_browser()
    assert submit(browser, post_url(post), email=OWNER, follow_discussion="on", text="I'm back").status_code == 303
    assert subscriptions.find(subscription.id).active
    post_and_notify(post, text="Welcome back", author=OTTO)
    sender.deliver_due(now=later())
    assert len(mails_about(smtp_server, "Welcome back")) == 1


def test_the_pages_behind_mail_links_are_never_cached(make_post):
    post = make_post()
    subscription = subscriptions.subscribe(kind=subscriptions.DISCUSSION, target=post.id,
                                           discussion_id=post.id, email=OWNER, owner=True)
    client = Client()
    answers = [
        client.get(confirm_url()),
        client.post(confirm_url()),
        client.get(f"/notifications/unsubscribe/{subscriptions.unsubscribe_token(subscription.id)}/"),
        client.get(f"/notifications/manage/{subscriptions.manage_token(OWNER)}/"),
        client.get("/notifications/manage/forged/"),
        client.get("/notifications/"),
    ]
    for answer in answers:
        directives = {part.strip() for part in answer["Cache-Control"].split(",")}
        assert {"private", "no-store"} <= directives, answer.request["PATH_INFO"]


def test_a_manage_link_stops_working_after_its_max_age(make_post, monkeypatch, settings):
    """NOTIFICATIONS_MANAGE_MAX_AGE (a week): an older link shows the form asking for a new one."""
    settings.NOTIFICATIONS_MANAGE_MAX_AGE = 7 * 24 * 3600
    post = make_post(title="Private interests")
    subscriptions.subscribe(kind=subscriptions.DISCUSSION, target=post.id, discussion_id=post.id,
                            email=OWNER, owner=True)
    fresh = subscriptions.manage_token(OWNER)
    a_week_and_a_day_ago = real_time.time() - 8 * 24 * 3600
    with monkeypatch.context() as patch:
        patch.setattr(signing.time, "time", lambda: a_week_and_a_day_ago)
        old = subscriptions.manage_token(OWNER)
    assert "Private interests" in Client().get(f"/notifications/manage/{fresh}/").content.decode()
    expired = Client().get(f"/notifications/manage/{old}/")
    assert expired.status_code == 400
    shown = expired.content.decode()
    assert "Private interests" not in shown and OWNER not in shown and 'name="email"' in shown


def test_a_confirmation_link_of_the_old_form_is_refused(make_post):
    """Before requests were confirmed one by one a link named only the address; it would
    confirm requests made after it, so it is answered as broken."""
    old = signing.dumps(OWNER, salt=subscriptions.CONFIRM_SALT)
    assert Client().post(f"/notifications/confirm/{old}/").status_code == 400
    assert not confirmed_addresses.is_confirmed(OWNER)


def test_a_stored_comment_keeps_the_address_as_mail_is_delivered_to_it(make_post):
    post = make_post()
    assert submit(Client(), post_url(post), email="Dave@ｔarget.test", text="Full width").status_code == 303
    [comment] = [c for c in get_store().find_latest(discussion_id=post.id, limit=5) if c.text == "Full width"]
    assert comment.author.email == "dave@target.test"


def test_strangers_racing_the_owner_never_leave_the_subscription_off_nor_on_by_themselves(make_post, mongo_db):
    """Eight strangers' requests and the owner's subscribe, all at once, on a subscription
    the owner had stopped: one document, on (the owner's wins), and the strangers'
    requests do not turn it off or need confirming. Then eight strangers racing the
    owner's unsubscribe leave it off."""
    post = make_post()

    def subscribe(owner: bool):
        return lambda: subscriptions.subscribe(kind=subscriptions.DISCUSSION, target=post.id,
                                               discussion_id=post.id, email=OWNER, owner=owner)

    first = subscribe(True)()
    subscriptions.unsubscribe(first.id)
    _, errors = split(at_once([subscribe(False) for _ in range(8)] + [subscribe(True)]))
    assert errors == []
    assert mongo_db.comment_subscriptions.count_documents({}) == 1
    assert subscriptions.deliverable(subscriptions.find(first.id))
    _, errors = split(at_once([subscribe(False) for _ in range(8)] + [lambda: subscriptions.unsubscribe(first.id)]))
    assert errors == []
    assert not subscriptions.find(first.id).active


def test_an_unsubscribe_link_does_not_open_the_addresses_other_subscriptions(make_post):
    """A one-click link never expires and may sit in a forwarded mail: its page offers to
    mail the owner a link to the rest, never a manage link of its own."""
    post = make_post(title="Quiet hobby")
    other = make_post(title="Secret interest")
    for followed in (post, other):
        subscriptions.subscribe(kind=subscriptions.DISCUSSION, target=followed.id, discussion_id=followed.id,
                                email=OWNER, owner=True)
    mine = subscriptions.subscription_id(kind=subscriptions.DISCUSSION, target=post.id, email=OWNER)
    shown = Client().get(f"/notifications/unsubscribe/{subscriptions.unsubscribe_token(mine)}/")
    html = shown.content.decode()
    assert shown.status_code == 200 and "Quiet hobby" in html
    assert "/notifications/manage/" not in html and "Secret interest" not in html
    assert any(link.get("href") == "/notifications/" for link in page(shown).links)
