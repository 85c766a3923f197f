"""Votes hold on the production path: real concurrent HTTP requests to a gunicorn site
of four worker processes, for every comment store. Fifty readers voting at once leave
tallies equal to the vote documents; one reader's vote sent from eight connections of
the same browser at once (tabs) counts once, also the browser's first, sent before it
has a voter cookie."""

from __future__ import annotations


import pytest

from bench.harness import Reader
from comments import scores
from comments.stores import get_store
from comments.votes import collection as votes, voters
from tests.threads import at_once

WORKERS = 4
VOTERS = 50
TABS = 8


@pytest.fixture(scope="module")
def site(site_template):
    """One site for every store (tests/sites.py)."""
    with site_template.running(workers=WORKERS, every_store=True, COMMENTS_VOTES_PER_IP="0",
                               COMMENTS_VOTES_PER_IP_PER_COMMENT="0", COMMENTS_CACHE_SECONDS="0") as scratch:
        yield scratch


@pytest.fixture
def using(site, site_store):
    return site


def _token(reader: Reader, post) -> str:
    answer, hidden = reader.comment_form(f"/posts/{post.slug}/")
    assert answer.status == 200 and hidden.get("csrfmiddlewaretoken"), answer.status
    return hidden["csrfmiddlewaretoken"]


def _twin(reader: Reader, base_url: str) -> Reader:
    twin = Reader(base_url)
    for cookie in reader.jar:
        twin.jar.set_cookie(cookie)
    return twin


def _stored(comment):
    return get_store().find_by_slug(discussion_id=comment.discussion_id, slug=comment.slug)


def test_fifty_voters_at_once_leave_tallies_equal_to_the_vote_documents(using, make_post, make_comment):
    post = make_post()
    comment = make_comment(post)
    url = f"/posts/{post.slug}/comments/{comment.slug}/vote/"
    readers = [Reader(using.url) for _ in range(VOTERS)]
    tokens = [_token(reader, post) for reader in readers]
    answers = at_once([
        lambda reader=reader, token=token, n=n: reader.post(
            url, {"csrfmiddlewaretoken": token, "vote": "down" if n % 5 == 0 else "up"})
        for n, (reader, token) in enumerate(zip(readers, tokens))
    ])
    assert [a.status for a in answers] == [303] * VOTERS, using.failures()
    up, down, _ = votes.counted(discussion_id=post.id)[comment.id]
    assert (up, down) == (40, 10)
    now = _stored(comment)
    assert (now.votes_up, now.votes_down, now.score) == (40, 10, 30)
    assert now.rank == pytest.approx(scores.wilson_lower_bound(40, 10))


def test_one_browsers_vote_sent_from_eight_tabs_at_once_counts_once(using, make_post, make_comment):
    post = make_post()
    comment = make_comment(post)
    url = f"/posts/{post.slug}/comments/{comment.slug}/vote/"
    reader = Reader(using.url)
    token = _token(reader, post)
    # The first vote gives the browser its voter cookie; then eight tabs change it at once.
    assert reader.post(url, {"csrfmiddlewaretoken": token, "vote": "down"}).status == 303
    tabs = [_twin(reader, using.url) for _ in range(TABS)]
    answers = at_once([lambda tab=tab: tab.post(url, {"csrfmiddlewaretoken": token, "vote": "up"}) for tab in tabs])
    assert [a.status for a in answers] == [303] * TABS, using.failures()
    now = _stored(comment)
    assert (now.votes_up, now.votes_down) == (1, 0)


def test_a_browsers_first_vote_sent_from_eight_tabs_at_once_counts_once(using, make_post, make_comment):
    """Eight tabs of a browser that has read the page (its CSRF cookie) but never voted
    (no voter cookie) send its first vote at once: one voter, one vote. Every answer
    gives it the same voter, whose next vote changes that one."""
    post = make_post()
    comment = make_comment(post)
    url = f"/posts/{post.slug}/comments/{comment.slug}/vote/"
    reader = Reader(using.url)
    token = _token(reader, post)
    assert voters.COOKIE not in {cookie.name for cookie in reader.jar}
    tabs = [_twin(reader, using.url) for _ in range(TABS)]
    answers = at_once([lambda tab=tab: tab.post(url, {"csrfmiddlewaretoken": token, "vote": "up"}) for tab in tabs])
    assert [a.status for a in answers] == [303] * TABS, using.failures()
    assert votes.counted(discussion_id=post.id)[comment.id][:2] == (1, 0)
    assert (_stored(comment).votes_up, _stored(comment).votes_down) == (1, 0)
    for tab in tabs[:2]:
        assert tab.post(url, {"csrfmiddlewaretoken": token, "vote": "down"}).status == 303
    assert votes.counted(discussion_id=post.id)[comment.id][:2] == (0, 1)
    assert (_stored(comment).votes_up, _stored(comment).votes_down) == (0, 1)
