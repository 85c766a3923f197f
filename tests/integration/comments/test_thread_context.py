"""What a page of comments says about the threads it cuts, over HTTP, in every store: a
threaded page that opens mid-thread quotes the parent on the page before, "Continue this
thread" says how many replies wait behind it, the best view's page 2 leads back to
page 1, and an editor's pick of a reply does not claim to lead the best order."""

from __future__ import annotations

import html
import re
from datetime import datetime, timedelta, timezone

import pytest
from django.test import Client
from django.utils import translation
from django.utils.translation import ngettext

from comments.moderation import queue as moderation
from comments.records import CommentAuthor
from comments.stores import counters
from comments.votes import collection as votes
from comments.moderation.views import PICKED, PICKED_REPLY
from tests.page_reading import discussion_url, page, permalink_url, post_url

pytestmark = pytest.mark.usefixtures("each_store")

BASE = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def texts(shown, cls: str) -> list[str]:
    return [" ".join(text.split()) for text in shown.text_of(cls)]


def test_a_threaded_page_that_opens_mid_thread_quotes_the_parent_from_the_page_before(
    client, make_post, make_comment, settings,
):
    """Three a page, a root and three replies: page 2 opens with the third reply, whose
    parent (the root) is on page 1; the reply quotes it, linking to it."""
    settings.COMMENTS_PER_PAGE = 3
    post = make_post()
    opening = "The **opening** words of a long first comment, which go on for a while here."
    root = make_comment(post, at=BASE, text=opening,
                        author=CommentAuthor(id=None, name="Ada", email=""))
    replies = [make_comment(post, parent_slug=root.slug, at=BASE + timedelta(minutes=n), text=f"Reply {n}.")
               for n in (1, 2, 3)]
    first = page(client.get(post_url(post)))
    assert first.slugs == [root.slug, replies[0].slug, replies[1].slug]
    assert texts(first, "parent-context") == []
    second = page(client.get(post_url(post) + "?page=2"))
    assert second.slugs == [replies[2].slug]
    assert texts(second, "parent-context") == [
        "Reply to Ada: The opening words of a long first comment, which go on for…"]
    body = client.get(post_url(post) + "?page=2").content.decode()
    link = re.search(r'<p class="parent-context"><a href="([^"]+)"', body).group(1)
    assert link == permalink_url(post, root.slug) + "#" + root.anchor
    # Oldest first is flat: every reply says whom it answers already, no quote.
    flat = page(client.get(discussion_url(post) + "?view=chronological&page=2"))
    assert flat.slugs == [replies[2].slug] and texts(flat, "parent-context") == []


def test_a_reply_under_a_deleted_parent_on_the_page_before_names_the_placeholder(
    client, make_post, make_comment, settings,
):
    settings.COMMENTS_PER_PAGE = 2
    post = make_post()
    root = make_comment(post, at=BASE)
    _, second = (make_comment(post, parent_slug=root.slug, at=BASE + timedelta(minutes=n)) for n in (1, 2))
    moderation.moderate(action="delete", comment_ids=[root.id])
    shown = page(client.get(post_url(post) + "?page=2"))
    assert shown.slugs == [second.slug]
    assert texts(shown, "parent-context") == ["Reply to [deleted]"]


def chain(make_comment, post, *, length: int, minute: int = 0, parent=None) -> list:
    """`length` comments, each answering the one before (the first answers `parent`),
    a minute apart from `minute`."""
    made: list = []
    for n in range(length):
        above = made[-1] if made else parent
        made.append(make_comment(post, parent_slug=above.slug if above else None,
                                 at=BASE + timedelta(minutes=minute + n)))
    return made


def test_continue_this_thread_says_how_many_replies_wait(client, make_post, make_comment, settings):
    """The indent limit at depth 2: below d2 wait d3 and its two replies (three); the
    permalink page of d2 lists them, and its own heading says so. A second thread has
    one reply below its limit."""
    settings.COMMENTS_INDENT_LIMIT = 2
    post = make_post()
    _, d1, d2, d3 = chain(make_comment, post, length=4)
    for n in (4, 5):
        make_comment(post, parent_slug=d3.slug, at=BASE + timedelta(minutes=n))
    lone = make_comment(post, parent_slug=d1.slug, at=BASE + timedelta(minutes=6))
    chain(make_comment, post, length=4, minute=7)
    shown = page(client.get(post_url(post)))
    assert lone.slug in shown.slugs
    assert texts(shown, "continue-thread") == ["Continue this thread (3 replies) →",
                                               "Continue this thread (1 reply) →"]
    assert page(client.get(permalink_url(post, d2.slug))).by_id["replies-title"] == "3 replies"
    client.cookies["django_language"] = "vi"
    with translation.override("vi"):
        expected = [ngettext("Continue this thread (%(shown)s reply) →",
                             "Continue this thread (%(shown)s replies) →", n) % {"shown": n} for n in (3, 1)]
    assert texts(page(client.get(post_url(post))), "continue-thread") == expected
    assert expected != texts(shown, "continue-thread")


def test_a_page_that_opens_below_the_limit_says_how_many_replies_wait(client, make_post, make_comment, settings):
    settings.COMMENTS_INDENT_LIMIT = 2
    settings.COMMENTS_PER_PAGE = 3
    chain(make_comment, post := make_post(), length=5)
    second = page(client.get(discussion_url(post), {"page": 2}))
    assert second.slugs == []
    assert texts(second, "continue-thread") == ["Continue this thread (2 replies) →"]


def test_the_best_views_second_page_leads_back_to_the_first(client, make_post, make_comment, settings):
    """One thread a page (COMMENTS_PER_PAGE 5): page 2 of two has a Previous link to page
    1 of best, and page 1 has it no more."""
    settings.COMMENTS_PER_PAGE = 5
    post = make_post()
    loved, other = make_comment(post), make_comment(post)
    votes.cast(comment=loved, voter="b:one", vote="up")
    counters.touch([post.id])
    first = page(client.get(discussion_url(post) + "?view=best"))
    assert first.slugs == [loved.slug] and first.rel("prev") is None
    second = page(client.get(first.rel("next")))
    assert second.slugs == [other.slug] and second.rel("next") is None
    assert second.rel("prev") == discussion_url(post) + "?view=best#comments"
    assert page(client.get(second.rel("prev"))).slugs == [loved.slug]


def test_the_best_views_third_page_leads_back_to_the_second(client, make_post, make_comment, settings):
    settings.COMMENTS_PER_PAGE = 5
    post = make_post()
    threads = [make_comment(post, at=BASE + timedelta(minutes=n)) for n in range(3)]
    second = page(client.get(page(client.get(discussion_url(post) + "?view=best")).rel("next")))
    third = page(client.get(second.rel("next")))
    assert third.slugs == [threads[0].slug]
    assert page(client.get(third.rel("prev"))).slugs == second.slugs == [threads[1].slug]


@pytest.fixture
def editor(make_user) -> Client:
    client = Client()
    client.force_login(make_user("bruno", role="editor"))
    return client


@pytest.mark.parametrize("top_level", [True, False], ids=["top-level", "reply"])
def test_picking_a_reply_says_it_keeps_its_place_and_a_top_level_pick_leads_best(
    editor, make_post, make_comment, top_level,
):
    post = make_post()
    root = make_comment(post)
    chosen = root if top_level else make_comment(post, parent_slug=root.slug)
    response = editor.post("/dashboard/moderation/actions/", {"one": f"pick:{chosen.id}",
                                                             "next": "/dashboard/moderation/?tab=recent"})
    assert response.status_code == 303
    said = html.unescape(editor.get(response["Location"]).content.decode())
    assert (PICKED in said) is top_level and (PICKED_REPLY in said) is not top_level
