"""The polling address for new comments (comments/reading/polling.py), over HTTP through
Django's test client: its counts, its ETag and 304s, what it costs, and that it never
counts a comment other readers cannot see."""

from __future__ import annotations

import time

import pytest
from django.core.cache import cache

from comments.moderation import queue as moderation
from comments.reading.polling import BAD_SEEN
from tests.page_reading import post_url




def latest_url(post) -> str:
    return f"/posts/{post.slug}/comments/latest/"


def poll(client, post, *, seen: int, etag: str | None = None):
    headers = {"If-None-Match": etag} if etag else {}
    return client.get(latest_url(post), {"seen": seen}, headers=headers)


def test_a_poll_says_how_many_comments_are_new_and_answers_304_while_nothing_changes(
    client, make_post, make_comment,
):
    post = make_post()
    make_comment(post)
    first = poll(client, post, seen=0)
    assert first.status_code == 200
    body = first.json()
    assert body.pop("read_at") / 1000 == pytest.approx(time.time(), abs=60)
    assert body == {"comments": 1, "new": 1, "label": "1 new comment — show", "shown": "1 new comment shown"}
    assert first["Cache-Control"] == "private, no-cache" and first["ETag"].startswith('"')
    again = poll(client, post, seen=0, etag=first["ETag"])
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == first["ETag"]
    # Another page (it saw the comment) is another answer, with its own tag.
    other = poll(client, post, seen=1, etag=first["ETag"])
    assert other.status_code == 200 and other.json()["new"] == 0
    assert other["ETag"] != first["ETag"]


def test_a_new_comment_changes_the_answer_once_the_cached_counts_expire(client, make_post, make_comment):
    post = make_post()
    make_comment(post)
    first = poll(client, post, seen=1)
    for _ in range(3):
        make_comment(post)
    # Kept for POLL_CACHE_SECONDS: the same answer until then.
    assert poll(client, post, seen=1, etag=first["ETag"]).status_code == 304
    cache.clear()
    later = poll(client, post, seen=1, etag=first["ETag"])
    assert later.status_code == 200
    assert later.json()["new"] == 3 and later.json()["label"] == "3 new comments — show"


def test_pending_and_spam_comments_are_never_counted(client, make_post, make_comment, settings):
    """A comment held for moderation, or marked as spam, changes neither the body nor
    the ETag of the answer: a reader learns nothing of it."""
    post = make_post()
    seen = make_comment(post)
    first = poll(client, post, seen=1)
    settings.COMMENTS_MODERATION = ["all"]
    held = make_comment(post, text="Held back")
    assert held.status == "pending"
    spam = make_comment(post, text="Buy now")
    moderation.moderate(action="spam", comment_ids=[spam.id])
    cache.clear()
    again = poll(client, post, seen=1, etag=first["ETag"])
    assert again.status_code == 304, again.content
    assert poll(client, post, seen=0).json()["comments"] == 1
    assert seen.status == "approved"


def test_a_poll_costs_two_reads_by_key_or_a_cache_hit(client, make_post, make_comment, commands):
    """A miss reads the post (by slug) and its discussion's state (by `_id`); a hit nothing."""
    post = make_post()
    make_comment(post)
    cache.clear()
    commands.reset()
    first = poll(client, post, seen=0)
    on_miss = list(commands.names)
    commands.reset()
    poll(client, post, seen=0, etag=first["ETag"])
    poll(client, post, seen=1)
    on_hits = list(commands.names)
    assert on_miss == ["find", "find"] and on_hits == []


def test_bad_polls_are_refused(client, make_post):
    post = make_post()
    for seen in ("", "-1", "1e3", "x", "99999999999", "$gt"):
        response = client.get(latest_url(post), {"seen": seen})
        assert response.status_code == 400, seen
        assert BAD_SEEN in response.content.decode()
    assert client.get(latest_url(post)).status_code == 400
    assert client.get("/posts/no-such-post/comments/latest/", {"seen": 0}).status_code == 404
    assert client.post(latest_url(post), {"seen": 0}).status_code == 405


def test_pages_tell_the_script_where_to_poll_and_what_they_showed(client, make_post, make_comment):
    post = make_post()
    make_comment(post)
    html = client.get(post_url(post)).content.decode()
    assert f'data-poll="{latest_url(post)}" data-seen="1"' in html
