"""Reply notifications as two people live them, in Chromium: a reader opts in on the
comment form, confirms her address from the mail's link, another reader replies, and
she follows the mail's link to the reply. The site is the session's gunicorn; the
sender runs here (`comments.notifications.sender.deliver_due`), through Django's SMTP backend to a
real SMTP server on a loopback port (tests/smtp.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from playwright.sync_api import expect

from comments.notifications import sender
from tests import smtp
from tests.browser.test_browser_screenshots import shoot
from tests.smtp import link_to

smtp_server = smtp.smtp_server  # the fixture


def deliver() -> int:
    """What the background sender would send by now (past any batching window)."""
    return sender.deliver_due(now=datetime.now(UTC) + timedelta(hours=1)).sent


def test_a_reader_is_mailed_a_reply_and_follows_the_mail_to_it(
    open_page, site, discussion, smtp_server, settings, screenshots, axe,
):
    settings.SITE_URL = site.url
    rosa = open_page()
    rosa.goto(f"/posts/{discussion.post.slug}/")
    rosa.get_by_label("Name").fill("Rosa Reader")
    rosa.get_by_label("E-mail (optional, never shown)").fill("rosa@example.com")
    rosa.get_by_role("textbox", name="Comment:").fill("Does this work with buckets too?")
    rosa.get_by_label("E-mail me replies to my comment").check()
    rosa.get_by_role("button", name="Post comment").click()
    expect(rosa.locator(".messages")).to_contain_text("rosa@example.com")

    assert deliver() == 1
    [confirmation] = smtp_server.inbox.to("rosa@example.com")
    rosa.goto(link_to(confirmation, "/notifications/confirm/"))
    shoot(rosa, screenshots, "notifications-confirm", 1280)
    violations, described = axe(rosa)
    assert not violations, described
    rosa.get_by_role("button").filter(has_text="onfirm").click()
    expect(rosa.locator("main")).to_contain_text("Confirmed: 1 subscription")

    otto = open_page(width=390)
    otto.goto(f"/posts/{discussion.post.slug}/comments/?view=newest")
    otto.locator(".comment", has_text="Does this work with buckets too?").get_by_role("link", name="Reply").click()
    reply = otto.locator("form.inline-reply")  # the reply form opens under the comment
    reply.get_by_label("Name").fill("Otto")
    reply.get_by_role("textbox").first.fill("It does: the same views, the same cursors.")
    reply.get_by_role("button", name="Post comment").click()
    expect(otto.locator("li.just-posted .comment")).to_contain_text("the same cursors")  # in place

    smtp_server.inbox.clear()
    assert deliver() == 1
    [notice] = smtp_server.inbox.to("rosa@example.com")
    reply_link = next(link for link in smtp.links_in(notice) if "/comments/" in link and "#c-" in link)
    rosa.goto(reply_link)
    expect(rosa.locator(".comment:target")).to_contain_text("It does: the same views, the same cursors.")
    shoot(rosa, screenshots, "notifications-followed-reply", 1280)
