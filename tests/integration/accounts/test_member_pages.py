"""A member's own pages (/accounts/comments/, /accounts/replies/, /accounts/notifications/,
/accounts/profile/) and public profile (/members/<id>/), in every comment store: what
each lists, in what order, page by page after a signed cursor, and to whom."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client

from accounts import views
from accounts.models import Profile
from comments.notifications import subscriptions
from comments.records import DELETED, PENDING, SPAM, CommentAuthor
from comments.stores import get_store

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("each_store")]
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def author(user, name="Rosa") -> CommentAuthor:
    return CommentAuthor(id=user.pk, name=name, email=f"{user.username}@example.org")


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def texts(response) -> list[str]:
    return re.findall(r'<div class="member-comment-text"><p>(.*?)</p>', response.content.decode())


def next_link(response) -> str | None:
    found = re.search(r'rel="next" href="([^"]+)"', response.content.decode())
    return found.group(1).replace("&amp;", "&") if found else None


@pytest.fixture
def rosa(make_verified_reader):
    return make_verified_reader("rosa@example.org", name="Rosa Park")


@pytest.fixture
def ivo(make_verified_reader):
    return make_verified_reader("ivo@example.org", name="Ivo Bell")


def test_my_comments_lists_every_status_newest_first_with_its_discussion(rosa, ivo, make_post, make_comment):
    harbour, bridge = make_post(title="Harbour"), make_post(title="Bridge")
    words = {}
    for n, (post, status) in enumerate([(harbour, None), (bridge, PENDING), (harbour, SPAM), (bridge, DELETED)]):
        comment = make_comment(post, text=f"mine {n}", author=author(rosa), at=START + timedelta(minutes=n))
        if status:
            get_store().set_status(ids=[comment.id], status=status)
        words[n] = comment
    make_comment(harbour, text="not mine", author=author(ivo, "Ivo"), at=START + timedelta(minutes=9))
    response = signed_in(rosa).get("/accounts/comments/")
    page = response.content.decode()
    assert response.status_code == 200
    assert texts(response) == ["mine 3", "mine 2", "mine 1", "mine 0"]
    for title in ("Harbour", "Bridge"):
        assert f">{title}</a>" in page
    for status in ("Approved", "Waiting for a moderator", "Held as spam", "Deleted"):
        assert status in page
    assert f'/posts/{harbour.slug}/comments/{words[0].slug}/#{words[0].anchor}' in page
    assert "not mine" not in page
    assert "no-cache" in response["Cache-Control"]


def test_my_comments_pages_by_cursor_without_repeats(rosa, make_post, make_comment, monkeypatch):
    monkeypatch.setattr(views, "PER_PAGE", 2)
    post = make_post()
    for n in range(5):
        make_comment(post, text=f"c{n}", author=author(rosa), at=START + timedelta(minutes=n))
    client, seen, url = signed_in(rosa), [], "/accounts/comments/"
    while url:
        response = client.get(url)
        seen += texts(response)
        link = next_link(response)
        url = "/accounts/comments/" + link if link else None
    assert seen == ["c4", "c3", "c2", "c1", "c0"]


def test_a_damaged_or_borrowed_cursor_gets_the_sites_400_page(rosa, ivo, make_post, make_comment, monkeypatch):
    monkeypatch.setattr(views, "PER_PAGE", 1)
    post = make_post()
    for n in range(2):
        make_comment(post, text=f"r{n}", author=author(rosa), at=START + timedelta(minutes=n))
    link = next_link(signed_in(rosa).get("/accounts/comments/"))
    assert link
    borrowed = signed_in(ivo).get("/accounts/comments/" + link)
    damaged = signed_in(rosa).get("/accounts/comments/?after=abc")
    for response in (borrowed, damaged):
        assert response.status_code == 400
        assert "This page link is damaged" in response.content.decode()


def test_the_pages_ask_a_stranger_to_sign_in():
    for url in ("/accounts/comments/", "/accounts/replies/", "/accounts/notifications/", "/accounts/profile/"):
        response = Client().get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/"), url


def test_replies_to_me_lists_approved_replies_of_others_newest_first(rosa, ivo, make_post, make_comment):
    harbour, bridge = make_post(title="Harbour"), make_post(title="Bridge")
    first = make_comment(harbour, text="rosa one", author=author(rosa), at=START)
    second = make_comment(bridge, text="rosa two", author=author(rosa), at=START + timedelta(minutes=1))
    theirs = make_comment(harbour, text="ivo root", author=author(ivo, "Ivo"), at=START + timedelta(minutes=2))
    for n, (parent, text, who) in enumerate([
        (first, "answer one", ivo), (second, "answer two", ivo), (first, "myself", rosa),
        (theirs, "not to rosa", rosa), (second, "held", ivo),
    ]):
        reply = make_comment(harbour if parent is not second else bridge, text=text, author=author(who, "Ivo"),
                             parent_slug=parent.slug, at=START + timedelta(minutes=3 + n))
        if text == "held":
            get_store().set_status(ids=[reply.id], status=PENDING)
    response = signed_in(rosa).get("/accounts/replies/")
    assert response.status_code == 200
    assert texts(response) == ["answer two", "answer one"]
    assert ">Bridge</a>" in response.content.decode() and ">Harbour</a>" in response.content.decode()
    assert texts(signed_in(ivo).get("/accounts/replies/")) == ["not to rosa"]


def test_notifications_lists_the_subscriptions_of_verified_addresses(rosa, make_post):
    from allauth.account.models import EmailAddress

    post = make_post(title="Harbour")
    EmailAddress.objects.create(user=rosa, email="rosa@elsewhere.example", verified=False)
    subscriptions.subscribe(kind=subscriptions.DISCUSSION, target=post.id, discussion_id=post.id,
                            email="rosa@example.org", user_id=rosa.pk)
    subscriptions.subscribe(kind=subscriptions.DISCUSSION, target=post.id, discussion_id=post.id,
                            email="rosa@elsewhere.example", user_id=rosa.pk)
    page = signed_in(rosa).get("/accounts/notifications/").content.decode()
    assert "New comments on" in page and ">Harbour</a>" in page
    assert "rosa@elsewhere.example" not in page
    manage = re.search(r'href="(/notifications/manage/[^"]+)"', page)
    assert manage
    assert "Harbour" in Client().get(manage.group(1)).content.decode()


def test_the_public_profile_is_off_by_default_and_its_owner_turns_it_on(rosa, ivo, make_post, make_comment):
    post = make_post(title="Harbour")
    make_comment(post, text="shown", author=author(rosa), at=START)
    held = make_comment(post, text="held back", author=author(rosa), at=START + timedelta(minutes=1))
    get_store().set_status(ids=[held.id], status=PENDING)
    url = f"/members/{rosa.pk}/"
    assert not Profile.objects.get(user=rosa).public_profile
    assert Client().get(url).status_code == 404
    assert signed_in(ivo).get(url).status_code == 404
    assert "your public profile is off" in signed_in(rosa).get(url).content.decode()
    rosa_client = signed_in(rosa)
    assert rosa_client.post("/accounts/profile/", {"public_profile": "on"}).status_code == 302
    response = Client().get(url)
    assert response.status_code == 200
    assert texts(response) == ["shown"]
    # The same avatar as beside Rosa's comments: her initials on her account's colour.
    assert "Rosa Park" in response.content.decode()
    assert f'<span class="avatar avatar-{rosa.pk % 8}" aria-hidden="true">RP</span>' in response.content.decode()
    assert Client().get(f"/members/{rosa.username}/").status_code == 200
    rosa_client.post("/accounts/profile/", {})
    assert Client().get(url).status_code == 404
    assert Client().get("/members/nobody/").status_code == 404


def test_an_editor_without_a_profile_gets_one_named_as_the_header_names_them(make_user):
    """Editors' accounts come from the admin or createsuperuser, with no Profile: the
    profile settings page makes one, with their author name, and turns it on."""
    ada = make_user("ada", role="editor", display_name="Ada Lovelace")
    client = signed_in(ada)
    page = client.get("/accounts/profile/").content.decode()
    assert '<a class="account-link" href="/accounts/email/">Ada Lovelace</a>' in page
    assert Profile.objects.get(user=ada).display_name == "Ada Lovelace"
    assert client.post("/accounts/profile/", {"public_profile": "on"}).status_code == 302
    assert Profile.objects.get(user=ada).public_profile
