"""The ranked views, ?view=best and ?view=top, over HTTP and through comments/reading/ranked.py:
their order, their pages while votes move, and the setting that picks the default."""

from __future__ import annotations

import pytest
from django.test import Client

from comments import scores
from comments.reading import ranked
from comments.stores import counters, get_store
from comments.votes import collection as votes
from tests.page_reading import discussion_url, page, post_url, query

pytestmark = pytest.mark.usefixtures("each_store")


def vote(comment, ups: int, downs: int = 0, *, prefix: str = "v") -> None:
    """Readers' votes, then the discussion's fresh version (as the vote view does)."""
    for n in range(ups):
        votes.cast(comment=comment, voter=f"b:{prefix}{comment.slug}u{n}", vote="up")
    for n in range(downs):
        votes.cast(comment=comment, voter=f"b:{prefix}{comment.slug}d{n}", vote="down")
    counters.touch([comment.discussion_id])


def test_best_ranks_threads_by_the_wilson_bound_with_replies_under_each(make_post, make_comment):
    """One up vote ranks below nine up and one down; a thread's replies follow it,
    threaded; ties (no votes) newest first."""
    post = make_post()
    old, lone, loved, hated = (make_comment(post) for _ in range(4))
    reply = make_comment(post, parent_slug=loved.slug)
    deeper = make_comment(post, parent_slug=reply.slug)
    vote(lone, 1)
    vote(loved, 9, 1)
    vote(hated, 0, 3)
    vote(reply, 5)
    assert scores.wilson_lower_bound(9, 1) > scores.wilson_lower_bound(1, 0)
    best = page(Client().get(discussion_url(post) + "?view=best")).slugs
    # hated and old both rank 0: newer first.
    assert best == [loved.slug, reply.slug, deeper.slug, lone.slug, hated.slug, old.slug]
    top = page(Client().get(discussion_url(post) + "?view=top")).slugs
    assert top == [loved.slug, reply.slug, deeper.slug, lone.slug, old.slug, hated.slug]


def test_a_walk_of_next_links_shows_every_thread_once_while_votes_move(settings, make_post, make_comment):
    """Page 1, then votes lift a thread of page 3 to the top and sink one of page 1:
    following Next to the end shows each thread exactly once."""
    settings.COMMENTS_PER_PAGE = 10  # two threads a page
    post = make_post()
    threads = [make_comment(post) for _ in range(7)]
    for n, comment in enumerate(threads):
        vote(comment, n)  # the newest is voted most: best is the reverse of posting
    client = Client()
    first = page(client.get(discussion_url(post) + "?view=best"))
    assert first.slugs == [threads[6].slug, threads[5].slug]
    vote(threads[0], 20, prefix="late")
    vote(threads[6], 0, 30, prefix="late")
    seen = list(first.slugs)
    link = first.rel("next")
    while link:
        step = page(client.get(link))
        seen += step.slugs
        link = step.rel("next")
    assert sorted(seen) == sorted(c.slug for c in threads) and len(seen) == len(set(seen))
    # A fresh first page shows the new ranking.
    assert page(client.get(discussion_url(post) + "?view=best")).slugs[0] == threads[0].slug


def test_a_thread_whose_replies_do_not_fit_offers_its_own_page(settings, make_post, make_comment):
    settings.COMMENTS_PER_PAGE = 5  # one thread a page, ten replies at most
    post = make_post()
    root = make_comment(post)
    for _ in range(12):
        make_comment(post, parent_slug=root.slug)
    shown = page(Client().get(discussion_url(post) + "?view=best"))
    assert shown.slugs == [root.slug]
    assert any(link.get("class") == "continue-thread" and link["href"].endswith(f"{root.slug}/")
               for link in shown.links)


def test_a_tampered_or_foreign_ranked_cursor_is_400(settings, make_post, make_comment):
    settings.COMMENTS_PER_PAGE = 5
    post, other = make_post(), make_post()
    for target in (post, other):
        for _ in range(3):
            make_comment(target)
    link = page(Client().get(discussion_url(post) + "?view=best")).rel("next")
    token = query(link)["after"][0]
    assert Client().get(discussion_url(post) + "?view=best&after=" + token[:-2] + "xx").status_code == 400
    assert Client().get(discussion_url(other) + "?view=best&after=" + token).status_code == 400
    assert Client().get(discussion_url(post) + "?view=top&after=" + token).status_code == 400
    assert Client().get(discussion_url(post) + "?view=sideways").status_code == 400


def test_comments_default_view_chooses_the_order_a_discussion_opens_on(settings, make_post, make_comment):
    post = make_post()
    first, second = make_comment(post), make_comment(post)
    vote(first, 0, 2)
    vote(second, 3)
    settings.COMMENTS_DEFAULT_VIEW = "best"
    assert page(Client().get(discussion_url(post))).slugs == [second.slug, first.slug]
    assert page(Client().get(post_url(post))).slugs == [second.slug, first.slug]
    assert page(Client().get(discussion_url(post) + "?view=threaded")).slugs == [first.slug, second.slug]


def test_the_first_page_of_best_reads_top_level_comments_by_their_index(make_post, make_comment):
    """Only the first page's threads are read, not the discussion (documents store: the
    query names the discussion_best_roots index)."""
    post = make_post()
    roots = [make_comment(post) for _ in range(30)]
    vote(roots[3], 4)
    found = get_store().find_ranked_roots(discussion_id=post.id, view="best", limit=3)
    assert found[0].id == roots[3].id and len(found) == 3
    assert ranked.threads_per_page() >= 1


@pytest.mark.parametrize("language, best, vote_up", [("vi", "Hay nhất", "Tán thành"), ("hi", "सर्वश्रेष्ठ", "ऊपर वोट करें"),
                                                     ("id", "Terbaik", "Beri suara naik")])
def test_the_views_and_the_vote_buttons_speak_the_readers_language(language, best, vote_up, make_post,
                                                                   make_comment):
    post = make_post()
    make_comment(post)
    body = Client(HTTP_ACCEPT_LANGUAGE=language).get(discussion_url(post) + "?view=best").content.decode()
    assert best in body and vote_up in body
