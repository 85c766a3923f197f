"""Bans of members by account through the test client (comments/moderation/bans.py and
member_views.py): a ban with its reason and end shown to the member with their text
kept, a timed ban that lifts itself, unbanning, the history in the queue and on the
member's page, the API's problem, and the three values of COMMENTS_WHO_MAY_COMMENT.
One store: bans do not differ by store."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from django.test import Client

from comments.moderation import bans
from comments.moderation.forms import NO_REASON, UNTIL_PAST
from comments.posting import members
from comments.records import SPAM, Commenter, by_commenter
from comments.stores import get_store
from tests.page_reading import discussion_url, page, post_url, submit

pytestmark = [pytest.mark.stores("documents"), pytest.mark.usefixtures("each_store"), pytest.mark.django_db]

QUEUE = "/dashboard/moderation/"


def signed_in(user) -> Client:
    """A browser signed in to `user`'s account (`.user` names it)."""
    browser = Client()
    browser.force_login(user)
    browser.user = user
    return browser


@pytest.fixture
def editor(make_user) -> Client:
    return signed_in(make_user("bruno", role="editor"))


@pytest.fixture
def mia(make_verified_reader) -> Client:
    """A verified reader, "Mia Member", signed in."""
    return signed_in(make_verified_reader("mia@example.com", name="Mia Member", verified=True, password=None))


def member_page(mia: Client) -> str:
    return f"{QUEUE}members/{mia.user.pk}/"


def test_a_banned_member_sees_the_reason_and_end_with_their_text_kept(make_post, editor, mia):
    post = make_post()
    assert submit(mia, post_url(post), text="Before the ban").status_code == 303
    response = editor.post(f"{member_page(mia)}ban/", {"reason": "Repeated insults", "length": "7"})
    assert response.status_code == 303
    assert get_store().find_by_commenter(commenter=_theirs(mia))[0].status == SPAM
    refused = submit(mia, post_url(post), text="Let me say this")
    assert refused.status_code == 403
    shown = page(refused)
    error = " ".join(shown.text_of("form-errors"))
    ban = bans.active(user_id=mia.user.pk)
    assert ban is not None and "Repeated insults" in error and "banned you from commenting until" in error
    assert shown.textareas["text"] == "Let me say this"


def _theirs(browser: Client) -> Commenter:
    return by_commenter(user_id=browser.user.pk)


def test_a_timed_ban_lifts_itself_when_its_end_passes(make_post, mia, mongo_db):
    """No job: the end is compared with the time of the check."""
    post = make_post()
    ban = bans.add(user_id=mia.user.pk, reason="Cool off", ends=datetime.now(timezone.utc) + timedelta(days=1),
                   by="bruno", now=datetime.now(timezone.utc) - timedelta(days=1))
    assert submit(mia, post_url(post), text="Still banned?").status_code == 403
    # Its end passes (moved back: no sleep); nothing else is changed.
    mongo_db.comment_bans.update_one({"_id": ban.id}, {"$set": {"ends": datetime.now(timezone.utc)
                                                                        - timedelta(seconds=1)}})
    assert submit(mia, post_url(post), text="Back again").status_code == 303
    assert bans.active(user_id=mia.user.pk) is None and len(bans.history(user_id=mia.user.pk)) == 1


def test_unbanning_lets_the_member_post_and_the_history_keeps_both(make_post, editor, mia):
    post = make_post()
    assert submit(mia, post_url(post), text="Fine words").status_code == 303
    editor.post(f"{member_page(mia)}ban/", {"reason": "Spam", "length": "permanent"})
    assert submit(mia, post_url(post), text="Banned now").status_code == 403
    response = editor.post(f"{member_page(mia)}unban/", {"restore": "yes"})
    assert response.status_code == 303
    assert submit(mia, post_url(post), text="Welcome back").status_code == 303
    [ban] = bans.history(user_id=mia.user.pk)
    assert (ban.reason, ban.ends, ban.by, ban.lifted_by) == ("Spam", None, "bruno", "bruno")
    assert ban.lifted is not None
    assert [c.status for c in get_store().find_by_commenter(commenter=_theirs(mia))] == ["approved"] * 2
    history = editor.get(member_page(mia)).content.decode()
    assert "Lifted on" in history and "Spam" in history and "Never banned" not in history


def test_the_queue_shows_account_age_verified_and_ban_history(make_post, editor, mia):
    post = make_post()
    submit(mia, post_url(post), text="A comment to moderate")
    bans.add(user_id=mia.user.pk, reason="Earlier trouble", ends=None, by="ada")
    bans.lift(user_id=mia.user.pk, by="ada")
    html = editor.get(f"{QUEUE}?tab=recent").content.decode()
    assert "Account 0\xa0minutes old" in html and "verified" in html
    assert "1 ban in their history" in html and "Earlier trouble" in html
    assert f'href="{member_page(mia)}"' in html


def test_a_ban_from_the_queue_asks_a_reason_and_a_length(make_post, editor, mia):
    post = make_post()
    submit(mia, post_url(post), text="Queued")
    [comment] = get_store().find_by_commenter(commenter=_theirs(mia))
    asked = editor.post(f"{QUEUE}actions/", {"one": f"ban:{comment.id}", "next": QUEUE})
    assert 'name="reason"' in asked.content.decode() and 'name="length"' in asked.content.decode()
    refused = editor.post(f"{QUEUE}actions/", {"one": f"ban:{comment.id}", "next": QUEUE, "confirmed": "yes",
                                               "reason": " ", "length": "until", "until": "2001-01-01T10:00"})
    assert refused.status_code == 400 and str(NO_REASON) in page(refused).text_of("field-error")
    assert bans.history(user_id=mia.user.pk) == [] and comment.status != SPAM
    past = editor.post(f"{member_page(mia)}ban/", {"reason": "Old", "length": "until", "until": "2001-01-01T10:00"})
    assert past.status_code == 400 and str(UNTIL_PAST) in page(past).text_of("field-error")
    done = editor.post(f"{QUEUE}actions/", {"one": f"ban:{comment.id}", "next": QUEUE, "confirmed": "yes",
                                            "reason": "Trolling", "length": "30"})
    assert done.status_code == 303
    ban = bans.active(user_id=mia.user.pk)
    assert ban is not None and ban.reason == "Trolling"
    assert abs(ban.ends - ban.starts - timedelta(days=30)) < timedelta(minutes=1)


def test_the_api_answers_a_banned_member_with_a_problem(make_post, mia):
    post = make_post()
    bans.add(user_id=mia.user.pk, reason="Flooding", ends=None, by="bruno")
    response = mia.post(f"/api/v1/posts/{post.slug}/comments/", data=json.dumps({"text": "Via the API"}),
                        content_type="application/json")
    assert response.status_code == 403 and response["Content-Type"].startswith("application/problem+json")
    problem = json.loads(response.content)
    assert problem["code"] == "banned" and "Flooding" in problem["detail"]


def send(browser: Client, post, **fields):
    """The page's comment form filled in and sent; where the page draws none (who may
    comment shuts this browser out), the fields posted as they are."""
    if page(browser.get(post_url(post))).form_action:
        return submit(browser, post_url(post), **fields)
    return browser.post(discussion_url(post), fields)


@pytest.mark.parametrize("who, stranger_posts, member_posts", [
    ("anyone", 303, 303), ("members", 403, 303), ("anonymous", 303, 403),
])
def test_who_may_comment(make_post, settings, mia, who, stranger_posts, member_posts):
    settings.COMMENTS_WHO_MAY_COMMENT = who
    post = make_post()
    assert send(Client(), post, name="Vic", text="A stranger").status_code == stranger_posts
    refused = send(mia, post, text="A member")
    assert refused.status_code == member_posts
    if who == "anonymous":
        message = members.WORDS["anonymous_only"][0]
        assert message.replace("'", "&#x27;") in refused.content.decode()
        assert page(refused).textareas["text"] == "A member"
        assert members.ANONYMOUS_ONLY in Client().get(post_url(post)).content.decode()
        assert page(mia.get(post_url(post))).form_action is None
        api = mia.post(f"/api/v1/posts/{post.slug}/comments/", data=json.dumps({"text": "Via the API"}),
                       content_type="application/json")
        assert (api.status_code, json.loads(api.content)["code"]) == (403, "anonymous_only")
