"""API tokens over time (issue 36, item 24): making one is POST-redirect-GET, so a
reload makes no second token; a token works for the time chosen when it was made and
is then refused with a 401 problem; its last use is recorded, at most once a minute."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client

from api import auth, tokens

SECRET = re.compile(r'<code class="api-token">([^<]+)</code>')


def get(url: str, secret: str):
    response = Client().get(url, HTTP_AUTHORIZATION=f"Bearer {secret}")
    return response, json.loads(response.content)


def test_reloading_the_page_after_making_a_token_makes_no_other(make_user, mongo_db):
    editor = make_user("eve", role="editor")
    make_user("bot", role="reader")
    client = Client()
    client.force_login(editor)
    made = client.post("/dashboard/api-tokens/", {"username": "bot", "name": "Widget", "scope": "read",
                                                  "lifetime": "30"})
    assert made.status_code == 303 and made["Location"] == "/dashboard/api-tokens/"
    shown = client.get("/dashboard/api-tokens/")
    secret = SECRET.search(shown.content.decode()).group(1)
    assert tokens.find_active(secret) is not None and "no-store" in shown["Cache-Control"]
    reloaded = client.get("/dashboard/api-tokens/")
    assert reloaded.status_code == 200 and not SECRET.search(reloaded.content.decode())
    assert mongo_db.api_tokens.count_documents({}) == 1


@pytest.mark.parametrize("lifetime, days", [("30", 30), ("90", 90), ("365", 365), ("", None)])
def test_a_token_works_for_the_time_chosen_when_it_was_made(make_user, lifetime, days):
    editor = make_user("eve", role="editor")
    make_user("bot", role="reader")
    client = Client()
    client.force_login(editor)
    client.post("/dashboard/api-tokens/", {"username": "bot", "name": "Widget", "scope": "read",
                                           "lifetime": lifetime})
    (token,) = tokens.newest()
    if days is None:
        assert token.expires is None
    else:
        assert abs(token.expires - token.created - timedelta(days=days)) < timedelta(seconds=1)


def test_an_expired_token_is_a_401_problem(make_user, make_post, mongo_db):
    bot = make_user("bot", role="reader")
    token, secret = tokens.create_token(user_id=bot.pk, name="w", scope=tokens.READ, created_by="eve", days=30)
    url = f"/api/v1/posts/{make_post().slug}/"
    assert get(url, secret)[0].status_code == 200
    mongo_db.api_tokens.update_one({"_id": token.id}, {"$set": {"expires": datetime.now(UTC) - timedelta(seconds=1)}})
    response, data = get(url, secret)
    assert response.status_code == 401 and response["Content-Type"] == "application/problem+json"
    assert data["code"] == "expired_token" and data["detail"].startswith(auth.EXPIRED_TOKEN.split("{")[0])


def test_the_last_use_is_recorded_at_most_once_a_minute(make_user, make_post, mongo_db, commands):
    bot = make_user("bot", role="reader")
    token, secret = tokens.create_token(user_id=bot.pk, name="w", scope=tokens.READ, created_by="eve")
    url = f"/api/v1/posts/{make_post().slug}/"
    assert mongo_db.api_tokens.find_one({"_id": token.id})["last_used"] is None
    get(url, secret)
    first = mongo_db.api_tokens.find_one({"_id": token.id})["last_used"]
    assert datetime.now(UTC) - first < timedelta(seconds=30)
    commands.reset()
    for _ in range(3):
        get(url, secret)
    writes = [c for c in commands.sent if c.get("update") == "api_tokens"]
    assert writes == [] and mongo_db.api_tokens.find_one({"_id": token.id})["last_used"] == first
    earlier = first - timedelta(minutes=2)
    mongo_db.api_tokens.update_one({"_id": token.id}, {"$set": {"last_used": earlier}})
    get(url, secret)
    assert mongo_db.api_tokens.find_one({"_id": token.id})["last_used"] > first


def test_the_tokens_page_shows_expiry_and_last_use(make_user, mongo_db):
    editor = make_user("eve", role="editor")
    bot = make_user("bot", role="reader")
    token, _ = tokens.create_token(user_id=bot.pk, name="w", scope=tokens.READ, created_by="eve", days=30)
    tokens.note_use(token)
    client = Client()
    client.force_login(editor)
    page = client.get("/dashboard/api-tokens/").content.decode()
    assert 'data-label="Expires"' in page and 'data-label="Last used"' in page and "Not yet" not in page
