"""Posting once holds on the production path: real concurrent HTTP requests to a
gunicorn site of four worker processes, for every comment store. One form sent many
times at once stores one comment and answers every send with its permalink; many
different forms sent at once all land, and the post counts every one of them."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from urllib.parse import urlparse

import pytest

from bench.harness import Reader
from cms import posts
from comments.benchmark import insert_discussion
from comments.posting import ownership
from comments.stores import get_store, summaries
from tests.threads import at_once

SENDS = 8
WORKERS = 4


@pytest.fixture(scope="module")
def site(site_template):
    """gunicorn with WORKERS workers on this session's database, for every store (tests/sites.py)."""
    with site_template.running(workers=WORKERS, every_store=True, COMMENTS_RATE_PER_IP="0",
                               COMMENTS_CACHE_SECONDS="0") as scratch:
        yield scratch


@pytest.fixture
def using(site, site_store):
    """This test process reads the store the site writes."""
    return site


def _browser_like(reader: Reader, base_url: str) -> Reader:
    """Another connection of the same browser: the same cookies."""
    twin = Reader(base_url)
    for cookie in reader.jar:
        twin.jar.set_cookie(cookie)
    return twin


def _form(reader: Reader, post) -> tuple[str, dict]:
    answer, hidden = reader.comment_form(f"/posts/{post.slug}/")
    assert answer.status == 200 and hidden, answer.status
    return f"/posts/{post.slug}/comments/", hidden


def test_one_form_sent_at_once_by_many_connections_stores_one_comment(using, make_post):
    """Eight simultaneous sends of one form (a double-click, a resend) through
    four worker processes store one comment and all redirect to its permalink."""
    post = make_post()
    reader = Reader(using.url)
    action, hidden = _form(reader, post)
    data = {**hidden, "name": "Rosa", "text": "Said once, sent eight times."}
    twins = [_browser_like(reader, using.url) for _ in range(SENDS)]
    answers = at_once([lambda twin=twin: twin.post(action, data) for twin in twins])
    assert [a.status for a in answers] == [303] * SENDS, using.failures()
    assert len({urlparse(a.location).path + urlparse(a.location).fragment for a in answers}) == 1
    stored = list(get_store().iter_documents(discussion_id=post.id))
    assert [doc["text"] for doc in stored] == ["Said once, sent eight times."]
    assert posts.get_by_id(post.id).comment_count == 1


def test_different_forms_sent_at_once_all_land_and_are_counted(using, make_post):
    """Eight readers posting at once through four workers: eight comments, none
    lost, and the post's count and latest comments say eight."""
    post = make_post()
    readers = [Reader(using.url) for _ in range(SENDS)]
    forms = [_form(reader, post) for reader in readers]
    answers = at_once([
        lambda reader=reader, form=form, n=n: reader.post(form[0], {**form[1], "name": f"Reader {n}",
                                                                  "text": f"Comment number {n}."})
        for n, (reader, form) in enumerate(zip(readers, forms))
    ])
    assert [a.status for a in answers] == [303] * SENDS, using.failures()
    texts = sorted(doc["text"] for doc in get_store().iter_documents(discussion_id=post.id))
    assert texts == sorted(f"Comment number {n}." for n in range(SENDS))
    refreshed = posts.get_by_id(post.id)
    assert refreshed.comment_count == SENDS
    stored = {doc["slug"] for doc in get_store().iter_documents(discussion_id=post.id)}
    assert len(refreshed.latest_comments) == min(SENDS, summaries.LATEST_COUNT)
    assert {latest.slug for latest in refreshed.latest_comments} <= stored


REPLIES = 30


@pytest.fixture(scope="module")
def tight_site(site_template):
    """The documents store's site with a MongoDB budget of TIGHT_BUDGET_MS a request:
    enough to store a comment, not always enough to also settle its discussion while
    thirty others do."""
    with site_template.running(workers=WORKERS, COMMENTS_STORE="documents", COMMENTS_RATE_PER_IP="0",
                               COMMENTS_CACHE_SECONDS="0",
                               MONGODB_REQUEST_BUDGET_MS=str(TIGHT_BUDGET_MS)) as scratch:
        yield scratch


TIGHT_BUDGET_MS = 400
# A long discussion. Its length does not weigh on the settling a reply pays (the
# summary reads the discussion's counters, no recount: comments/stores/summaries.py):
# 0, 2,000 and 20,000 comments gave the same answers (2026-12-06, load 6), and
# inserting 20,000 took 72 of the test's 84 s.
LONG = 2000


def test_replies_whose_summary_runs_out_of_time_are_still_answered_as_stored(tight_site, make_post,
                                                                              make_comment, settings):
    """Thirty replies at once to a long discussion, on a tight budget: storing each fits,
    settling the discussion after it may not. Every stored reply is answered
    303 (never "cannot be saved"); one that was not stored may be refused."""
    settings.COMMENTS_STORE = "documents"
    post = make_post()
    parent = make_comment(post, text="Reply to me")
    readers = [Reader(tight_site.url) for _ in range(REPLIES)]
    forms = [_warm_form(reader, post) for reader in readers]
    # A long discussion (LONG).
    insert_discussion(get_store("documents"), discussion_id=post.id, count=LONG, rng=random.Random(7),
                      start=datetime.now(timezone.utc) - timedelta(days=30))
    answers = at_once([
        lambda reader=reader, form=form, n=n: reader.post(form[0], {**form[1], "name": f"Replier {n}",
                                                                  "parent": parent.slug,
                                                                  "text": f"Reply number {n}."})
        for n, (reader, form) in enumerate(zip(readers, forms))
    ])
    stored = {doc["text"] for doc in get_store().iter_documents(discussion_id=post.id)
              if doc["text"].startswith("Reply number")}
    answered = {f"Reply number {n}." for n, answer in enumerate(answers) if answer.status == 303}
    assert stored == answered, sorted(a.status for a in answers)
    # Each reader who was answered got the reply as their own.
    for reader, answer in zip(readers, answers):
        if answer.status == 303:
            assert any(cookie.name == ownership.COOKIE for cookie in reader.jar)


def _warm_form(reader: Reader, post) -> tuple[str, dict]:
    """The form, asked again while a worker still opens its connections (which a
    tight budget does not always cover)."""
    for _ in range(10):
        answer, hidden = reader.comment_form(f"/posts/{post.slug}/")
        if answer.status == 200 and hidden:
            return f"/posts/{post.slug}/comments/", hidden
    raise AssertionError(f"no form: {answer.status}")
