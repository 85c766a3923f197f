"""Readers' entity tags depend only on what readers are shown (issue 36, item 20): a
comment held for moderation changes the discussion but not the anonymous answers, so
their tags stay and a client's copy is still current (a 304); nothing tells a reader
that something was held. What readers can see changes the tag."""

from __future__ import annotations

import pytest
from django.test import Client

from comments.moderation import queue as moderation
from comments.posting import services
from comments.records import CommentAuthor
from comments.rest import discussion_version


@pytest.mark.parametrize("cache_seconds", [0, 300])
def test_a_held_comment_leaves_the_readers_tags_as_they_were(settings, make_post, make_comment, cache_seconds):
    settings.COMMENTS_CACHE_SECONDS = cache_seconds
    post = make_post()
    first = make_comment(post)
    urls = [f"/api/v1/posts/{post.slug}/", f"/api/v1/posts/{post.slug}/comments/",
            f"/api/v1/posts/{post.slug}/comments/{first.slug}/"]
    before = {url: Client().get(url) for url in urls}
    version = discussion_version(post.id)
    settings.COMMENTS_MODERATION = ["all"]
    held = services.post_comment(post=post, text="Held back", author=CommentAuthor(id=None, name="Rex"),
                                 parent_slug=first.slug, ip="192.0.2.7").comment
    assert held.status == "pending" and discussion_version(post.id) != version
    for url, answer in before.items():
        again = Client().get(url, HTTP_IF_NONE_MATCH=answer["ETag"])
        assert again.status_code == 304 and again["ETag"] == answer["ETag"], url
        whole = Client().get(url)
        assert whole.content == answer.content and whole["ETag"] == answer["ETag"], url
    moderation.moderate(action="approve", comment_ids=[held.id])
    for url, answer in before.items():
        shown = Client().get(url, HTTP_IF_NONE_MATCH=answer["ETag"])
        assert shown.status_code == 200 and shown["ETag"] != answer["ETag"], url
