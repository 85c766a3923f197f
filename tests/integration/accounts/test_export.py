"""A member's data download (/accounts/export/): a streamed JSON attachment, never
cached, for the signed-in member only, with every section right for a member with
comments in two discussions, votes, a subscription, two sessions and an API token; another
member's data never in it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.http import StreamingHttpResponse
from django.test import Client

from accounts import export
from api import tokens
from comments.notifications import subscriptions
from comments.records import PENDING, CommentAuthor
from comments.stores import get_store
from comments.votes import collection as votes

pytestmark = pytest.mark.django_db
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
PASSWORD = "a long enough passphrase 7"


def author(user, name) -> CommentAuthor:
    return CommentAuthor(id=user.pk, name=name, email=f"{user.username}@example.org")


def signed_in(address: str, agent: str) -> Client:
    client = Client(HTTP_USER_AGENT=agent)
    assert client.post("/accounts/login/", {"login": address, "password": PASSWORD}).status_code == 302
    return client


def downloaded(response) -> dict:
    assert isinstance(response, StreamingHttpResponse)
    return json.loads(b"".join(response.streaming_content))


@pytest.fixture
def members(make_verified_reader, make_post, make_comment):
    """Rosa (comments on two posts, one held; votes; a subscription; two sessions; a token) and
    Ivo (a comment, a vote, a subscription and a token of his own)."""
    rosa = make_verified_reader("rosa@example.org", name="Rosa Park")
    ivo = make_verified_reader("ivo@example.org", name="Ivo Bell")
    harbour, bridge = make_post(title="Harbour"), make_post(title="Bridge")
    first = make_comment(harbour, text="rosa on harbour", author=author(rosa, "Rosa Park"), at=START)
    second = make_comment(bridge, text="rosa on bridge", author=author(rosa, "Rosa Park"),
                          at=START + timedelta(minutes=1))
    get_store().set_status(ids=[second.id], status=PENDING)
    theirs = make_comment(harbour, text="ivo on harbour", author=author(ivo, "Ivo Bell"),
                          at=START + timedelta(minutes=2))
    votes.cast(comment=theirs, voter=f"u:{rosa.pk}", vote="up")
    votes.cast(comment=first, voter=f"u:{ivo.pk}", vote="down")
    subscriptions.subscribe(kind=subscriptions.REPLIES, target=first.id, discussion_id=harbour.id,
                            email="rosa@example.org", user_id=rosa.pk)
    subscriptions.subscribe(kind=subscriptions.DISCUSSION, target=harbour.id, discussion_id=harbour.id,
                            email="ivo@example.org", user_id=ivo.pk)
    tokens.create_token(user_id=rosa.pk, name="Rosa's script", scope=tokens.MEMBER, created_by="rosa")
    tokens.create_token(user_id=ivo.pk, name="Ivo's script", scope=tokens.MEMBER, created_by="ivo")
    return {"rosa": rosa, "ivo": ivo, "harbour": harbour, "bridge": bridge, "first": first, "second": second,
            "theirs": theirs}


def test_the_download_holds_every_section_of_the_member_and_nothing_of_others(members):
    rosa, harbour, bridge = members["rosa"], members["harbour"], members["bridge"]
    signed_in("rosa@example.org", "Phone browser")
    client = signed_in("rosa@example.org", "Desk browser")
    response = client.get("/accounts/export/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"].startswith(f'attachment; filename="slugline-data-{rosa.pk}-')
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]
    data = downloaded(response)
    assert list(data) == ["account", "addresses", "comments", "votes", "subscriptions", "sessions", "api_tokens"]
    rosa.refresh_from_db()
    assert data["account"] == {"id": rosa.pk, "username": "rosa", "display_name": "Rosa Park",
                               "public_profile": False, "avatar": None, "date_joined": rosa.date_joined.isoformat(),
                               "last_login": rosa.last_login.isoformat()}
    assert data["addresses"] == [{"email": "rosa@example.org", "verified": True, "primary": True}]
    assert [(c["text"], c["status"], c["discussion"]["title"]) for c in data["comments"]] == [
        ("rosa on bridge", PENDING, "Bridge"), ("rosa on harbour", "approved", "Harbour")]
    first = data["comments"][1]
    assert first["id"] == str(members["first"].id) and first["discussion"]["id"] == str(harbour.id)
    assert first["discussion"]["permalink"] == f"/posts/{harbour.slug}/comments/{members['first'].slug}/" \
                                               f"#{members['first'].anchor}"
    assert first["posted"].startswith("2026-03-01T09:00:00")
    assert data["comments"][0]["discussion"]["id"] == str(bridge.id)
    assert [(v["comment_id"], v["vote"], v["discussion"]["title"]) for v in data["votes"]] == [
        (str(members["theirs"].id), "up", "Harbour")]
    assert [(s["email"], s["kind"], s["discussion"]["title"]) for s in data["subscriptions"]] == [
        ("rosa@example.org", subscriptions.REPLIES, "Harbour")]
    assert sorted((s["user_agent"], s["current"]) for s in data["sessions"]) == [
        ("Desk browser", True), ("Phone browser", False)]
    assert [(t["name"], t["scope"], t["revoked"]) for t in data["api_tokens"]] == [("Rosa's script", "member", None)]
    assert "digest" not in data["api_tokens"][0]
    text = json.dumps(data)
    assert "ivo" not in text.lower() and "Ivo Bell" not in text


def test_the_download_streams_the_comments_in_batches(members, make_comment, monkeypatch):
    from comments.reading import members as member_reading

    rosa = members["rosa"]
    for n in range(5):
        make_comment(members["bridge"], text=f"more {n}", author=author(rosa, "Rosa Park"),
                     at=START + timedelta(hours=1, minutes=n))
    monkeypatch.setattr(member_reading, "BATCH", 2)
    monkeypatch.setattr(export, "BATCH", 2)
    read = []
    real_find = type(get_store()).find

    def counting(store, query):
        found = real_find(store, query)
        read.append(len(found))
        return found

    monkeypatch.setattr(type(get_store()), "find", counting)
    pieces = export.document(rosa, current_key=None)
    head = [next(pieces) for _ in range(4)]  # the account, the addresses, '"comments": [', the first comment
    assert '"more 4"' in head[-1] and read == [2], "the first comment waited for more than its batch"
    comments = json.loads("".join(head + list(pieces)))["comments"]
    assert [c["text"] for c in comments] == ["more 4", "more 3", "more 2", "more 1", "more 0", "rosa on bridge",
                                             "rosa on harbour"]
    assert max(read) <= 2 and len(read) >= 4


def test_only_a_signed_in_member_may_get_it():
    assert Client().get("/accounts/export/").status_code == 302


def test_it_answers_get_only(members):
    client = signed_in("rosa@example.org", "Desk browser")
    assert client.post("/accounts/export/").status_code == 405
    assert client.head("/accounts/export/").status_code == 405
