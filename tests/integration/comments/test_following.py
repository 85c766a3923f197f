"""Following a branch ("Follow this thread"), end to end: a stranger's follow waits for
its address's owner to confirm it, then every new approved comment below the followed
one is mailed (batched, never one's own, nothing from elsewhere), with a one-click
unsubscribe for that branch; a member follows at once and sees it in their settings;
finding a comment's followers is one indexed command."""

from __future__ import annotations

import pytest
from django.test import Client

from comments.notifications import notify, sender, subscriptions
from comments.posting import services
from comments.views.following import ADDRESS_NEEDED, CONFIRM_BY_MAIL, FOLLOWING, UNFOLLOWED
from comments.notifications.views import BAD_ADDRESS
from tests import smtp
from tests.integration.comments import test_notifications as notifications_test
from tests.integration.comments.test_notifications import OTTO, ROSA, later, local
from tests.page_reading import page, permalink_url
from tests.plans import collection_scans, explain, indexes_used
from tests.smtp import link_to, text_of

smtp_server = smtp.smtp_server  # the fixture
_mail_settings = notifications_test._mail_settings  # the autouse fixture: mail settings of those tests

pytestmark = pytest.mark.usefixtures("each_store")


def reply(post, parent, text, author=OTTO):
    comment = services.post_comment(post=post, text=text, author=author, parent_slug=parent.slug).comment
    notify.after_posting(comment, post_author_id=post.author.id)
    return comment


def follow_url(post, comment) -> str:
    return permalink_url(post, comment.slug) + "follow/"


def in_place(client, url, data):
    return client.post(url, data, headers={"Slugline-In-Place": "1"})


def test_a_strangers_follow_is_confirmed_then_mails_the_branch_and_unsubscribes_in_one_click(
    make_post, make_comment, smtp_server,
):
    """No address: 400 and why. An address: a confirmation mail, nothing else until its
    owner confirms; then a burst of replies anywhere below the followed comment is one
    mail (not the follower's own, not another thread's); one click stops that branch."""
    post = make_post()
    top = make_comment(post, text="Top")
    followed = make_comment(post, parent_slug=top.slug, text="Followed")
    browser = Client()
    assert "Follow this thread" in browser.get(permalink_url(post, followed.slug)).content.decode()
    refused = browser.post(follow_url(post, followed), {"email": ""})
    assert refused.status_code == 400 and ADDRESS_NEEDED in page(refused).by_class["field-error"]
    asked = browser.post(follow_url(post, followed), {"email": "Rosa@Example.com"})
    assert asked.status_code == 303
    assert CONFIRM_BY_MAIL in page(browser.get(asked["Location"])).by_class["message"]
    reply(post, followed, "Before confirming")
    assert sender.deliver_due(now=later()).sent == 1  # the confirmation alone
    confirm_url = local(link_to(smtp_server.inbox.messages[-1], "/confirm/"))
    waiting = page(browser.get(confirm_url)).inputs["subscription"]
    assert browser.post(confirm_url, {"subscription": waiting}).status_code == 303

    deep = reply(post, followed, "A reply below")
    reply(post, deep, "And one deeper")
    reply(post, deep, "Rosa's own", author=ROSA)
    reply(post, top, "Above the followed comment")
    assert sender.deliver_due(now=later()).sent == 1
    mail = smtp_server.inbox.messages[-1]
    body = text_of(mail)
    assert "A reply below" in body and "And one deeper" in body
    assert "Rosa's own" not in body and "Above the followed" not in body and "Before confirming" not in body
    assert "thread you follow" in mail["Subject"] and mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    one_click = local(mail["List-Unsubscribe"].strip().strip("<>"))
    assert Client().post(one_click, "List-Unsubscribe=One-Click",
                         content_type="application/x-www-form-urlencoded").status_code == 200
    reply(post, deep, "After stopping")
    assert sender.deliver_due(now=later()).sent == 0


@pytest.mark.stores("documents")
def test_a_member_follows_at_once_and_sees_it_in_their_settings(make_post, make_comment, make_verified_reader):
    """A member's follow uses their verified address, needs no confirmation, and is listed
    on their notification settings and on the address's manage page."""
    post = make_post()
    followed = make_comment(post)
    member = Client()
    member.force_login(make_verified_reader("mia@example.com", name="Mia Reader", password=None))
    answer = member.post(follow_url(post, followed), {})
    assert answer.status_code == 303
    assert FOLLOWING in page(member.get(answer["Location"])).by_class["message"]
    [found] = subscriptions.of_address(email="mia@example.com")
    assert (found.kind, found.full_slug, found.active) == (subscriptions.BRANCH, followed.full_slug, True)
    settings_page = member.get("/accounts/notifications/").content.decode()
    assert "New comments in a thread on" in settings_page and post.title in settings_page
    manage = member.get(f"/notifications/manage/{subscriptions.manage_token('mia@example.com')}/").content.decode()
    assert f'href="{permalink_url(post, followed.slug)}"' in manage


@pytest.mark.stores("documents")
def test_finding_a_comments_followers_is_one_indexed_command(make_post, make_comment, mongo_db, commands):
    """However deep the comment: one `find` of its lineage, on the branch index, naming
    the discussion (the shard key)."""
    post = make_post()
    chain = [make_comment(post)]
    for _ in range(5):
        chain.append(make_comment(post, parent_slug=chain[-1].slug))
    for comment in (chain[1], chain[3]):
        subscriptions.subscribe(kind=subscriptions.BRANCH, target=comment.id, discussion_id=post.id,
                                email=f"{comment.slug[-3:]}@example.com", owner=True, full_slug=comment.full_slug)
    commands.reset()
    found = subscriptions.branch_followers(discussion_id=post.id, full_slug=chain[-1].full_slug)
    assert commands.names == ["find"] and len(found) == 2
    [sent] = commands.sent
    assert sent["filter"]["discussion_id"] == post.id
    nodes = explain(mongo_db, sent)
    assert subscriptions.BRANCH_FOLLOWERS in indexes_used(nodes) and not collection_scans(nodes)


@pytest.mark.stores("documents")
def test_a_strangers_follow_in_place_answers_the_form_with_its_errors_then_what_was_done(
    make_post, make_comment, settings, rate_clock,
):
    """Asked in place: a bad address is 400 with the form alone, the typed address kept;
    a good one is 200 with `div.followed` saying a confirmation mail was sent (and nothing
    left for the next page to say); over the limit, 429 with Retry-After and the address."""
    settings.COMMENTS_RATE_PER_IP, settings.COMMENTS_RATE_WINDOW = 2, 600
    post = make_post()
    followed = make_comment(post)
    browser = Client()
    bad = in_place(browser, follow_url(post, followed), {"email": "rosa@"})
    assert bad.status_code == 400 and b"<html" not in bad.content and b'class="comment-form follow-form"' in bad.content
    assert page(bad).inputs["email"] == "rosa@" and BAD_ADDRESS in page(bad).by_class["field-error"]
    done = in_place(browser, follow_url(post, followed), {"email": "rosa@example.com"})
    assert done.status_code == 200 and b'<div class="followed" data-following="no">' in done.content
    assert CONFIRM_BY_MAIL in page(done).by_class["message"] and b"follow-form" not in done.content
    assert [s.pending for s in subscriptions.pending(email="rosa@example.com")] == [True]
    assert CONFIRM_BY_MAIL not in browser.get(permalink_url(post, followed.slug)).content.decode()
    limited = in_place(browser, follow_url(post, followed), {"email": "otto@example.com"})
    assert limited.status_code == 429 and int(limited["Retry-After"]) == 601  # the whole window, and a second
    assert page(limited).inputs["email"] == "otto@example.com" and page(limited).by_class["form-errors"]


@pytest.mark.stores("documents")
def test_a_members_follow_toggles_in_place_and_on_the_page(make_post, make_comment, make_verified_reader):
    """A member's follow in place answers with the form that stops it; that form stops it
    (in place, or from the follow page, which offers it while the member follows)."""
    post = make_post()
    followed = make_comment(post)
    member = Client()
    member.force_login(make_verified_reader("mia@example.com", name="Mia Reader", password=None))
    on = in_place(member, follow_url(post, followed), {})
    assert on.status_code == 200 and b'data-following="yes"' in on.content
    assert FOLLOWING in page(on).by_class["message"] and page(on).inputs["stop"] == "1"
    assert "Stop following this thread" in member.get(follow_url(post, followed)).content.decode()
    off = in_place(member, follow_url(post, followed), {"stop": "1"})
    assert off.status_code == 200 and b'data-following="no"' in off.content
    assert UNFOLLOWED in page(off).by_class["message"] and "stop" not in page(off).inputs
    stored = subscriptions.find(subscriptions.subscription_id(kind=subscriptions.BRANCH, target=followed.id,
                                                              email="mia@example.com"))
    assert stored is not None and not stored.active
    assert in_place(member, follow_url(post, followed), {}).status_code == 200
    stopped = member.post(follow_url(post, followed), {"stop": "1"})
    assert stopped.status_code == 303 and UNFOLLOWED in page(member.get(stopped["Location"])).by_class["message"]
    assert "Stop following" not in member.get(follow_url(post, followed)).content.decode()
