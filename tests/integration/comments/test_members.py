"""Readers' accounts in the comments app, through the site's pages in every store: a
member's form and comments (their account, display name and initials), who may
comment (COMMENTS_WHO_MAY_COMMENT), unverified accounts, members' names kept from
strangers, and mail to a member's verified address with no confirmation."""

from __future__ import annotations

import threading

import pytest
from django.test import Client

from comments.notifications import subscriptions
from comments.stores import get_store
from tests.page_reading import discussion_url, page, post_url, submit

pytestmark = [pytest.mark.usefixtures("each_store"), pytest.mark.django_db]


@pytest.fixture
def reader(make_verified_reader):
    """`reader(username, name=, verified=, email=)`: a signed-in browser of a reader's
    account as sign-up leaves it (an address record, verified or not, and a Profile
    with its display name); the account's own e-mail field is another address."""

    def signed_in(username: str, *, name: str, verified: bool = True, email: str = "") -> Client:
        address = email or f"{username}@example.com"
        assert address.split("@")[0] == username, address
        user = make_verified_reader(address, name=name, verified=verified, password=None)
        user.email = f"old-{address}"
        user.save(update_fields=["email"])
        browser = Client()
        browser.force_login(user)
        browser.user = user  # type: ignore[attr-defined]
        return browser

    return signed_in


def shown_count(post) -> int:
    """The comments a stranger sees on the discussion's page."""
    return len(page(Client().get(discussion_url(post))).comments)


def test_a_members_form_asks_no_name_and_their_comment_carries_account_name_and_initials(make_post, mongo_db,
                                                                                         reader):
    post = make_post()
    grace = reader("grace", name="Grace Brewster Hopper")
    shown = page(grace.get(post_url(post)))
    assert "name" not in shown.inputs and "email" not in shown.inputs
    assert shown.text_of("posting-as") == ["Posting as Grace Brewster Hopper."]
    assert submit(grace, post_url(post), text="From a member").status_code == 303
    assert submit(Client(), post_url(post), name="Vic", text="From a stranger").status_code == 303
    listed = page(Client().get(discussion_url(post))).comments
    mine = next(c for c in listed if c["author"] == "Grace Brewster Hopper")
    stored = get_store().find_by_slug(discussion_id=post.id, slug=mine["slug"])
    assert (stored.author.id, stored.author.name) == (grace.user.pk, "Grace Brewster Hopper")
    html = Client().get(discussion_url(post)).content.decode()
    articles = {("From a member" in a): a for a in html.split('<article class="comment')[1:]}
    colour = grace.user.pk % 8
    assert f'<span class="avatar avatar-{colour}" aria-hidden="true">GH</span>' in articles[True]
    assert 'class="avatar' not in articles[False]


def test_an_unverified_member_is_sent_to_verify_and_keeps_their_text(make_post, mongo_db, reader):
    post = make_post()
    una = reader("una", name="Una Verified", verified=False)
    shown = page(una.get(post_url(post)))
    assert shown.form_action is None and "/accounts/email/" in una.get(post_url(post)).content.decode()
    refused = una.post(discussion_url(post), {"text": "Let me in"})
    assert refused.status_code == 403
    body = refused.content.decode()
    assert "Verify your account&#x27;s e-mail address" in body and 'href="/accounts/email/"' in body
    assert page(refused).textareas["text"] == "Let me in"
    assert shown_count(post) == 0


def test_where_only_members_comment_a_stranger_is_asked_to_sign_in_and_keeps_their_text(make_post, settings,
                                                                                        reader):
    settings.COMMENTS_WHO_MAY_COMMENT = "members"
    post = make_post()
    stranger = Client()
    html = stranger.get(post_url(post)).content.decode()
    assert page(stranger.get(post_url(post))).form_action is None
    assert f'href="/accounts/login/?next=%2Fposts%2F{post.slug}%2F">Sign in to comment</a>' in html
    refused = stranger.post(discussion_url(post), {"text": "Me too", "name": "Vic"})
    assert refused.status_code == 403
    assert "Only members can comment here" in refused.content.decode()
    assert page(refused).textareas["text"] == "Me too"
    assert shown_count(post) == 0
    member = reader("mia", name="Mia Member")
    assert submit(member, post_url(post), text="Members may").status_code == 303
    assert shown_count(post) == 1


@pytest.mark.parametrize("typed", ["Mia Member", "member, MIA", "Mіa Member", "miamember"])
def test_a_stranger_cannot_take_a_members_display_name(make_post, mongo_db, typed, reader):
    """However spelled: case, order, run together, a Cyrillic і."""
    post = make_post()
    reader("mia", name="Mia Member")
    refused = submit(Client(), post_url(post), name=typed, text="I am Mia, honest")
    assert refused.status_code == 400
    shown = page(refused)
    assert any("authors or members" in error for error in shown.text_of("field-error"))
    assert shown.textareas["text"] == "I am Mia, honest" and shown.inputs["name"] == typed
    assert shown_count(post) == 0


def test_a_members_mail_goes_to_their_verified_address_with_no_confirmation(make_post, mongo_db, reader):
    post = make_post()
    mia = reader("mia", name="Mia Member", email="mia@verified.example")
    answer = submit(mia, post_url(post), text="Tell me", notify_replies="on", follow_discussion="on")
    assert answer.status_code == 303
    found = subscriptions.of_address(email="mia@verified.example")
    assert sorted(s.kind for s in found) == sorted([subscriptions.REPLIES, subscriptions.DISCUSSION])
    assert all(s.user_id == mia.user.pk for s in found)
    assert subscriptions.of_address(email="old-mia@verified.example") == []
    # No confirmation mail asked for, none queued: the address is the account's, verified.
    assert "Mail goes only to confirmed addresses" not in mia.get(answer["Location"]).content.decode()
    assert mongo_db.notification_outbox.count_documents({}) == 0


def vote(browser: Client, post, comment, value: str = "up"):
    return browser.post(f"{discussion_url(post)}{comment.slug}/vote/", {"vote": value},
                        HTTP_ACCEPT="application/json")


def tallies(comment) -> tuple[int, int]:
    now = get_store().find_by_slug(discussion_id=comment.discussion_id, slug=comment.slug)
    return now.votes_up, now.votes_down


def test_one_member_in_two_browsers_has_one_vote(make_post, make_comment, reader):
    post = make_post()
    comment = make_comment(post)
    laptop = reader("mia", name="Mia Member")
    phone = Client()
    phone.force_login(laptop.user)  # type: ignore[attr-defined]
    assert vote(laptop, post, comment).status_code == 200
    assert vote(phone, post, comment).status_code == 200
    assert tallies(comment) == (1, 0)
    assert vote(phone, post, comment, "down").status_code == 200
    assert tallies(comment) == (0, 1)
    assert vote(Client(), post, comment).status_code == 200
    assert tallies(comment) == (1, 1)


@pytest.mark.django_db(transaction=True)
def test_one_member_voting_from_many_browsers_at_once_has_one_vote(make_post, make_comment, reader):
    """Eight browsers signed in as one member vote on one comment at the same moment."""
    post = make_post()
    comment = make_comment(post)
    first = reader("mia", name="Mia Member")
    browsers = [first] + [Client() for _ in range(7)]
    for browser in browsers[1:]:
        browser.force_login(first.user)  # type: ignore[attr-defined]
    barrier = threading.Barrier(len(browsers))
    answers: list[int] = []

    def send(browser: Client) -> None:
        barrier.wait()
        answers.append(vote(browser, post, comment).status_code)

    threads = [threading.Thread(target=send, args=(browser,)) for browser in browsers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [200] * len(browsers)
    assert tallies(comment) == (1, 0)
