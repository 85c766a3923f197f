"""The lists of posts newest first (the home page, an author's, a tag's, their pages
and feeds) read in windows of their date (infra/page_windows.py): whatever the hint
the cache holds (none, stale, absurd), any slice gives exactly the posts one query
gives, in the same order, drafts and scheduled posts left out; and with the hint a
read leaves, the home page's first query is bounded on both sides, so DocumentDB sorts
what the home page shows, not every published post."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest
from django.core.cache import cache

from cms import posts
from cms.posts import AuthorSummary
from cms.posts import reading
from cms.posts.reading import NEWEST_PUBLISHED, published_filter
from cms.posts.store import find_page
from infra.page_windows import PageHint

PER_PAGE = 10


AUTHORS = [AuthorSummary(id=1, username="ada", name="Ada"), AuthorSummary(id=2, username="bo", name="Bo")]


@pytest.fixture
def awkward_blog(make_post):
    """Posts published and written in bursts (several at the same millisecond), with
    gaps of months, drafts and scheduled posts among them, by two authors, with one or
    both of two tags."""
    rng = random.Random(7)
    now = datetime.now(timezone.utc).replace(microsecond=0)
    moment = now - timedelta(minutes=5)
    for n in range(60):
        if n % 9 == 0:
            moment -= timedelta(days=rng.choice([1, 40, 200]))
        elif n % 3:
            moment -= timedelta(seconds=rng.choice([1, 60, 3600]))
        mine = {"author": AUTHORS[n % 2 if n % 5 else 0], "tags": ["news", "long"][: 1 + n % 2],
                "created": moment - timedelta(seconds=n % 4)}
        make_post(published=moment, **mine)
        if n % 11 == 0:
            make_post(status=posts.DRAFT, published=None, **mine)
        if n % 13 == 0:
            make_post(published=now + timedelta(days=n + 1), **mine)
    return now


# Each list: its hint's name, the call, and the one query it must equal.
LISTS = {
    "newest": (lambda skip, limit: posts.newest_published(skip=skip, limit=limit),
               lambda now: published_filter(), NEWEST_PUBLISHED),
    reading._hint_of("author", "bo"): (
        lambda skip, limit: posts.author_published_page(username="bo", skip=skip, limit=limit),
        lambda now: {"author.username": "bo", **published_filter()}, reading.NEWEST_CREATED),
    reading._hint_of("tag", "long"): (
        lambda skip, limit: posts.tag_published_page(tag="long", skip=skip, limit=limit),
        lambda now: {"tags": "long", **published_filter()}, NEWEST_PUBLISHED),
}


def _one_query(skip: int, limit: int, name: str = "newest") -> list[str]:
    _, query, order = LISTS[name]
    return [post.slug for post in find_page(query(None), order, skip=skip, limit=limit)]


HINTS = {
    "none": None,
    "stale end, years back": lambda now: PageHint(end=now - timedelta(days=3650), span=timedelta(seconds=1)),
    "end in the future": lambda now: PageHint(end=now + timedelta(days=30)),
    "tiny span": lambda now: PageHint(end=now - timedelta(minutes=6), span=timedelta(milliseconds=1)),
    "huge span": lambda now: PageHint(span=timedelta(days=36500)),
}


def test_any_slice_is_what_one_query_gives_whatever_the_hint(awkward_blog):
    slices = [(0, PER_PAGE), (PER_PAGE, PER_PAGE), (7, 3), (50, PER_PAGE), (0, 100)]
    for name, (call, _, _) in LISTS.items():
        for hint, make in HINTS.items():
            for skip, limit in slices:
                cache.delete(f"posts:page-hint:{name}:{limit}")
                if make is not None:
                    cache.set(f"posts:page-hint:{name}:{limit}", make(awkward_blog))
                expected = _one_query(skip, limit, name)
                assert [post.slug for post in call(skip, limit)] == expected, (name, hint, skip, limit)
                # Again, with the hint that read left.
                again = [post.slug for post in call(skip, limit)]
                assert again == expected, (name, hint, skip, limit, "the hint left")


def test_a_slice_past_the_windowed_reach_is_one_query_the_server_skips_through(awkward_blog, commands,
                                                                                monkeypatch):
    """A deep page (a stranger's `?page=`) brings its posts only, not every one before it."""
    monkeypatch.setattr(reading, "WINDOWED_REACH", 30)
    skip = 30
    commands.reset()
    got = [post.slug for post in posts.newest_published(skip=skip, limit=PER_PAGE)]
    [sent] = commands.finds("posts")
    assert sent["skip"] == skip and sent["limit"] == PER_PAGE
    assert got == _one_query(skip, PER_PAGE)


def test_the_home_page_reads_a_window_bounded_on_both_sides(awkward_blog, commands):
    """After one read, page 1 is one query whose range on `published` ends where page 1
    ended: the server sorts what it shows."""
    posts.published_page(page=1, per_page=PER_PAGE)
    commands.reset()
    shown = posts.published_page(page=1, per_page=PER_PAGE)
    [sent] = commands.finds("posts")
    bounds = [part["published"] for part in sent["filter"]["$and"]]
    assert {"$lte"} <= set(bounds[0]) and {"$gte"} <= set(bounds[1])
    assert bounds[1]["$gte"] == shown[-1].published
    assert [post.slug for post in shown] == _one_query(0, PER_PAGE)
