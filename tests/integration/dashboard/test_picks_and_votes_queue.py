"""Editors' picks from the moderation queue, and its most down-voted tab, through the
test client with the dashboard's CSRF and permission rules."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from comments.moderation import picks
from comments.records import PENDING
from comments.stores import get_store
from comments.votes import collection as votes
from comments.moderation.views import PICKED
from tests.page_reading import discussion_url, page

pytestmark = pytest.mark.usefixtures("each_store")

QUEUE = "/dashboard/moderation/"
ACTIONS = "/dashboard/moderation/actions/"


@pytest.fixture
def editor(make_user) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("bruno", role="editor"))
    return client


def csrf(client) -> str:
    body = client.get(QUEUE + "?tab=recent").content.decode()
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body).group(1)


def stored(comment):
    return get_store().find_by_id(comment.id)


def test_an_editor_features_a_comment_it_gets_the_badge_and_leads_best(editor, make_post, make_comment):
    post = make_post()
    voted, quiet = make_comment(post), make_comment(post)
    for n in range(5):
        votes.cast(comment=voted, voter=f"b:{n}", vote="up")
    response = editor.post(ACTIONS, {"one": f"pick:{quiet.id}", "csrfmiddlewaretoken": csrf(editor),
                                     "next": QUEUE + "?tab=recent"})
    assert response.status_code == 303 and stored(quiet).picked
    assert PICKED in html.unescape(editor.get(response["Location"]).content.decode())
    shown = page(Client().get(discussion_url(post) + "?view=best"))
    assert shown.slugs == [quiet.slug, voted.slug]
    badges = re.findall(r'<span class="pick-badge">([^<]+)</span>',
                        html.unescape(Client().get(discussion_url(post)).content.decode()))
    assert badges == ["Editor's pick"]
    editor.post(ACTIONS, {"one": f"unpick:{quiet.id}", "csrfmiddlewaretoken": csrf(editor)})
    assert not stored(quiet).picked


def test_picks_need_the_csrf_token_and_an_editor(editor, make_user, make_post, make_comment):
    post = make_post()
    comment = make_comment(post)
    assert editor.post(ACTIONS, {"one": f"pick:{comment.id}"}).status_code == 403
    author = Client()
    author.force_login(make_user("ada", role="author"))
    assert author.post(ACTIONS, {"one": f"pick:{comment.id}"}).status_code in (302, 403)
    assert not stored(comment).picked


def test_at_most_max_picks_and_only_approved_comments(settings, editor, make_post, make_comment):
    settings.COMMENTS_MAX_PICKS = 1
    post = make_post()
    first, second, pending = make_comment(post), make_comment(post), make_comment(post)
    get_store().set_status(ids=[pending.id], status=PENDING)
    picks.feature(comment_id=first.id, picked=True)
    with pytest.raises(picks.PickRefused, match="1 editor's picks already"):
        picks.feature(comment_id=second.id, picked=True)
    with pytest.raises(picks.PickRefused, match="approved"):
        picks.feature(comment_id=pending.id, picked=True)
    assert [c.id for c in get_store().find_picks(discussion_id=post.id)] == [first.id]


def test_the_most_down_voted_tab_lists_negative_scores_lowest_first(editor, make_post, make_comment):
    post = make_post()
    liked, low, lower = make_comment(post, text="Liked"), make_comment(post, text="Low"), make_comment(
        post, text="Lower")
    votes.cast(comment=liked, voter="b:a", vote="up")
    votes.cast(comment=low, voter="b:a", vote="down")
    for n in range(3):
        votes.cast(comment=lower, voter=f"b:{n}", vote="down")
    body = editor.get(QUEUE + "?tab=downvoted").content.decode()
    texts = re.findall(r'<div class="queue-text">([^<]+)</div>', body)
    assert texts == ["Lower", "Low"]
