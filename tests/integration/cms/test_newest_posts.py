"""The newest published posts (the home page, its pages and the feed) read in windows
of `published` (infra/page_windows.py): whatever the hint the cache holds (none,
stale, absurd), any slice gives exactly the posts one query gives, in the same order,
drafts and scheduled posts left out; and with the hint a read leaves, the home page's
first query is bounded on both sides, so DocumentDB sorts what the home page shows,
not every published post."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest
from django.core.cache import cache

from cms import posts
from cms.posts import reading
from cms.posts.reading import NEWEST_PUBLISHED, published_filter
from cms.posts.store import find_page
from infra.page_windows import PageHint

PER_PAGE = 10


@pytest.fixture
def awkward_blog(make_post):
    """Posts published in bursts (several at the same millisecond), with gaps of
    months, drafts and scheduled posts among them."""
    rng = random.Random(7)
    now = datetime.now(timezone.utc).replace(microsecond=0)
    moment = now - timedelta(minutes=5)
    for n in range(60):
        if n % 9 == 0:
            moment -= timedelta(days=rng.choice([1, 40, 200]))
        elif n % 3:
            moment -= timedelta(seconds=rng.choice([1, 60, 3600]))
        make_post(published=moment)
        if n % 11 == 0:
            make_post(status=posts.DRAFT, published=None)
        if n % 13 == 0:
            make_post(published=now + timedelta(days=n + 1))
    return now


def _one_query(skip: int, limit: int) -> list[str]:
    return [post.slug for post in find_page(published_filter(), NEWEST_PUBLISHED, skip=skip, limit=limit)]


HINTS = {
    "none": None,
    "stale end, years back": lambda now: PageHint(end=now - timedelta(days=3650), span=timedelta(seconds=1)),
    "end in the future": lambda now: PageHint(end=now + timedelta(days=30)),
    "tiny span": lambda now: PageHint(end=now - timedelta(minutes=6), span=timedelta(milliseconds=1)),
    "huge span": lambda now: PageHint(span=timedelta(days=36500)),
}


def test_any_slice_is_what_one_query_gives_whatever_the_hint(awkward_blog):
    slices = [(0, PER_PAGE), (PER_PAGE, PER_PAGE), (7, 3), (50, PER_PAGE), (0, 100)]
    for hint, make in HINTS.items():
        for skip, limit in slices:
            cache.delete(f"posts:page-hint:newest:{limit}")
            if make is not None:
                cache.set(f"posts:page-hint:newest:{limit}", make(awkward_blog))
            expected = _one_query(skip, limit)
            got = [post.slug for post in posts.newest_published(skip=skip, limit=limit)]
            assert got == expected, (hint, skip, limit)
            # Again, with the hint that read left.
            got = [post.slug for post in posts.newest_published(skip=skip, limit=limit)]
            assert got == expected, (hint, skip, limit, "the hint left")


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
