"""Posting in place from a page of every view of a discussion (threaded, newest,
chronological, best, top): the comment is stored, the answer is 201 and draws it
right after the comment the reader's page shows before it (what the same page shows
once reloaded), and nothing is logged as an error."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone

import pytest

from comments.reading.listers import VIEWS
from comments.records import RANKED_ORDERS, Viewer
from comments.votes import rules as voting
from tests.integration.comments.test_posting_in_place import form_data, in_place, posted
from tests.page_reading import discussion_url, page, permalink_url, post_url

pytestmark = pytest.mark.usefixtures("each_store")

BASE = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def voted_discussion(make_post, make_comment):
    """Three threads, the oldest voted up (first in best and top) with a reply posted
    before the others: each view puts a new comment, or a new reply to it, elsewhere."""
    post = make_post()
    roots = [make_comment(post, at=BASE)]
    make_comment(post, parent_slug=roots[0].slug, at=BASE + timedelta(minutes=1))
    roots += [make_comment(post, at=BASE + timedelta(minutes=n)) for n in (2, 3)]
    voting.vote_on_comment(comment=roots[0], viewer=Viewer(), voter="voter-1", vote="up")
    return post, roots


def before_on_reload(client, shown_at: str, anchor: str) -> str:
    """The anchor of the comment drawn right before `anchor` on the page at `shown_at`
    ("" when it opens the page), as a reader reloading it sees it."""
    slugs = page(client.get(shown_at)).slugs
    anchors = ["c-" + slug.replace("/", "-") for slug in slugs]
    assert anchor in anchors, (anchor, anchors)
    index = anchors.index(anchor)
    return anchors[index - 1] if index else ""


def posted_anchor(answer: dict) -> str:
    return "c-" + answer["location"].split("#c-")[1]


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("reply", [False, True], ids=["comment", "reply"])
def test_posting_in_place_from_any_view_draws_the_comment_where_that_view_shows_it(
    client, voted_discussion, view, reply, caplog,
):
    """A comment, or a reply to the voted-up thread, posted from the first page of
    `view`: 201, drawn in place after the comment that page shows before it."""
    post, roots = voted_discussion
    shown_at = f"{discussion_url(post)}?view={view}"
    form_page = permalink_url(post, roots[0].slug) if reply else post_url(post)
    action, data = form_data(client, form_page, text=f"Posted from {view}.")
    with caplog.at_level(logging.ERROR):
        response = in_place(client, action, data, shown_at=shown_at)
    assert response.status_code == 201, response.content[-2000:]
    assert [record for record in caplog.records if record.levelno >= logging.ERROR] == []
    answer = posted(response)
    assert answer["placed"] == "yes", answer["html"]
    assert answer["after"] == before_on_reload(client, shown_at, posted_anchor(answer))


@pytest.mark.stores("documents")
@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("reply", [False, True], ids=["comment", "reply"])
def test_a_page_without_a_view_places_the_comment_in_the_view_it_opens_on(
    client, voted_discussion, view, reply, settings,
):
    """The post page and the discussion page without `?view=` open on
    COMMENTS_DEFAULT_VIEW: a comment posted from them is drawn where that view shows it."""
    settings.COMMENTS_DEFAULT_VIEW = view
    post, roots = voted_discussion
    form_page = permalink_url(post, roots[0].slug) if reply else post_url(post)
    for shown_at in (post_url(post), discussion_url(post)):
        action, data = form_data(client, form_page, text=f"Posted in {view} at {shown_at}.")
        answer = posted(in_place(client, action, data, shown_at=shown_at))
        assert answer["placed"] == "yes", answer["html"]
        assert answer["after"] == before_on_reload(client, shown_at, posted_anchor(answer))


@pytest.mark.parametrize("view", sorted(RANKED_ORDERS))
def test_a_reply_from_a_later_page_of_a_ranked_view_goes_into_its_thread(
    client, voted_discussion, view, settings,
):
    """Best and top number no pages: a reply to a thread on the walk's second page,
    posted from that page, follows the comment before it in its thread there."""
    settings.COMMENTS_PER_PAGE = 5  # one thread a page
    post, roots = voted_discussion
    second = page(client.get(f"{discussion_url(post)}?view={view}")).rel("next")
    assert second
    parent = page(client.get(second)).slugs[0]
    action, data = form_data(client, permalink_url(post, parent), text="From page two.")
    answer = posted(in_place(client, action, data, shown_at=second))
    assert answer["placed"] == "yes", answer["html"]
    assert answer["after"] == "c-" + parent.replace("/", "-")
    assert answer["after"] == before_on_reload(client, second, posted_anchor(answer))
