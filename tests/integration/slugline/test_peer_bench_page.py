"""bench/peer.py counts an answer as good only when the post page shows the comments
its first threaded page is meant to show: the site's own listing, with the replies
below the indent limit left behind "Continue this thread" (not COMMENTS_PER_PAGE of
them, which counted every Slugline answer as an error)."""

import pytest

from comments import conf
from comments.reading import listers
from tests.page_reading import post_url


@pytest.fixture
def deep_discussion(make_post, make_comment):
    """Two threads: one a chain of replies deeper than the indent limit, one flat."""
    post = make_post()
    parent = None
    for n in range(8):
        parent = make_comment(post, text=f"Level {n}", parent_slug=parent.slug if parent else None)
    for n in range(3):
        make_comment(post, text=f"Flat {n}")
    return post


def test_the_benchmark_expects_what_the_first_page_shows(client, deep_discussion, settings):
    from bench.peer import SLUGLINE_COMMENT, Expected, _error

    settings.COMMENTS_CACHE_SECONDS = 0
    body = client.get(post_url(deep_discussion)).content
    expected = Expected.first_page(listers.list_comments(discussion_id=deep_discussion.id, view="threaded"))
    assert b"continue-thread" in body
    assert expected.count < 11  # the replies below the limit are not on the page
    assert _error(200, body, SLUGLINE_COMMENT, expected) == ""
    # What the benchmark expected before: min(COMMENTS_PER_PAGE, comments), every answer an error.
    assert _error(200, body, SLUGLINE_COMMENT, Expected(min(conf.get().per_page, 11))) != ""


def test_a_page_missing_or_reordering_a_comment_is_an_error(client, deep_discussion):
    from bench.peer import SLUGLINE_COMMENT, Expected, _error

    body = client.get(post_url(deep_discussion)).content
    expected = Expected.first_page(listers.list_comments(discussion_id=deep_discussion.id, view="threaded"))
    first, second = expected.slugs[0].encode(), expected.slugs[1].encode()
    swapped = body.replace(b'data-slug="' + first + b'"', b'data-slug="@@"').replace(
        b'data-slug="' + second + b'"', b'data-slug="' + first + b'"').replace(b'data-slug="@@"',
                                                                            b'data-slug="' + second + b'"')
    assert _error(200, swapped, SLUGLINE_COMMENT, expected) == "other comments (or another order) than the page's"
    cut = body.replace(b'<article class="comment" id=', b'<article class="comment-gone" id=', 1)
    assert _error(200, cut, SLUGLINE_COMMENT, expected).endswith(f"comments shown, not {expected.count}")
    assert _error(503, body, SLUGLINE_COMMENT, expected) == "status 503"


def test_the_benchmark_finds_the_comments_cache_setting(settings, mongo_db, capsys):
    """The facts it prints say that COMMENTS_CACHE_SECONDS exists (the comments app's
    setting, with its default in comments/conf.py) though Django's settings hold it
    only when the environment sets it, as where the benchmark runs."""
    from bench.peer import Plan, print_facts

    if hasattr(settings, "COMMENTS_CACHE_SECONDS"):
        del settings.COMMENTS_CACHE_SECONDS
    plan = Plan(1, 1.0, 1, 0.0, 1.0, 1, ("slugline-cold", "slugline-warm"), frozenset())
    print_facts(settings.MONGODB_URI, plan, {}, own=False)
    facts = capsys.readouterr().out
    assert f"COMMENTS_CACHE_SECONDS exists in the comments app's settings (comments/conf.py, default " \
           f"{conf.CommentsSettings().cache_seconds} s)" in facts
    assert "does not exist" not in facts
