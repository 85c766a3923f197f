"""Where a reader sees what their vote, flag or delete did, over HTTP, in every store:
the message is drawn where the redirect lands (beside the comment, or at the top of the
comment section for "#comments"), not at the top of the page; and a page read without
JavaScript draws the reader's own votes pressed, from their stored votes."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from comments.views.changing import DELETED, FLAGGED
from comments.votes.rules import VOTED
from tests.page_reading import discussion_url, page, permalink_url, post_url, submit

pytestmark = pytest.mark.usefixtures("each_store")

# The layout's messages, at the top of the page (templates/base.html).
AT_TOP = re.compile(r'<div role="status">\s*<ul class="messages">')
SECTION_TOP = re.compile(r'<section id="comments"[^>]*>\s*<div class="confirmations" role="status">\s*'
                         r'<ul class="messages"><li class="message message-success">([^<]+)</li>')


def beside(body: str, comment) -> list[str]:
    """The messages drawn right after `comment`'s article."""
    found = re.search(r'<article[^>]*id="%s".*?</article>\s*<div class="confirmations" role="status">\s*'
                      r'<ul class="messages">(.*?)</ul>' % re.escape(comment.anchor), body, re.S)
    return re.findall(r"<li[^>]*>([^<]+)</li>", found.group(1)) if found else []


def vote_url(post, comment) -> str:
    return f"{discussion_url(post)}{comment.slug}/vote/"


def pressed(body: str, comment) -> list[str]:
    """The votes drawn pressed on `comment`'s buttons."""
    group = re.search(r'data-vote-url="[^"]*/%s/vote/">(.*?)</div>' % re.escape(comment.slug), body, re.S).group(1)
    return re.findall(r'class="vote vote-\w+" data-vote="(\w+)" aria-pressed="true"', group)


@pytest.mark.parametrize("landing", ["post", "discussion", "permalink"])
def test_a_vote_without_javascript_says_so_beside_the_comment_it_lands_on(make_post, make_comment, landing):
    post = make_post()
    parent = make_comment(post)
    comment = make_comment(post, parent_slug=parent.slug)
    back = {"post": post_url(post), "discussion": discussion_url(post) + "?view=newest",
            "permalink": permalink_url(post, parent.slug)}[landing]
    client = Client()
    response = client.post(vote_url(post, comment), {"vote": "up", "next": back})
    assert response["Location"] == f"{back}#{comment.anchor}"
    body = html.unescape(client.get(response["Location"]).content.decode())
    assert beside(body, comment) == [VOTED["up"]]
    assert not AT_TOP.search(body)


def test_a_flag_says_so_at_the_top_of_the_comments_where_it_lands(make_post, make_comment):
    post = make_post()
    comment = make_comment(post)
    client = Client()
    response = client.post(f"{permalink_url(post, comment.slug)}flag/", {"reason": "spam"})
    assert response["Location"] == post_url(post) + "#comments"
    body = html.unescape(client.get(response["Location"]).content.decode())
    assert SECTION_TOP.search(body).group(1) == FLAGGED
    assert not AT_TOP.search(body)
    # Said once: the next page has no message.
    assert not SECTION_TOP.search(client.get(post_url(post)).content.decode())


def test_a_delete_says_so_at_the_top_of_the_comments_where_it_lands(make_post):
    post = make_post()
    client = Client()
    location = submit(client, post_url(post), text="Soon gone")["Location"]
    mine = next(c for c in page(client.get(location)).comments if c["text"] == "Soon gone")
    response = client.post(permalink_url(post, mine["slug"]) + "delete/", {"confirm": "yes"})
    assert response["Location"] == post_url(post) + "#comments"
    body = html.unescape(client.get(response["Location"]).content.decode())
    assert SECTION_TOP.search(body).group(1) == DELETED
    assert not AT_TOP.search(body)


def test_without_javascript_a_readers_own_votes_are_drawn_pressed_on_every_page(make_post, make_comment):
    """The post page, the discussion's other views and a permalink page's replies press
    the votes this browser cast; another reader's page (shared, maybe cached) presses none."""
    post = make_post()
    root = make_comment(post)
    liked, disliked = make_comment(post, parent_slug=root.slug), make_comment(post, parent_slug=root.slug)
    stranger = Client()
    assert pressed(stranger.get(post_url(post)).content.decode(), liked) == []  # cached for readers now
    voter = Client()
    voter.post(vote_url(post, liked), {"vote": "up"})
    voter.post(vote_url(post, disliked), {"vote": "down"})
    for address in (post_url(post), discussion_url(post) + "?view=best", permalink_url(post, root.slug)):
        body = voter.get(address).content.decode()
        assert (pressed(body, liked), pressed(body, disliked), pressed(body, root)) == (["up"], ["down"], []), address
        # Pressing a pressed button takes the vote back.
        assert re.search(r'value="none" class="vote vote-up" data-vote="up" aria-pressed="true"', body)
    for address in (post_url(post), permalink_url(post, root.slug)):
        body = stranger.get(address).content.decode()
        assert pressed(body, liked) == pressed(body, disliked) == [], address
    voter.post(vote_url(post, liked), {"vote": "none"})
    assert pressed(voter.get(post_url(post)).content.decode(), liked) == []
