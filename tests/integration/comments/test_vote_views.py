"""The vote endpoint over HTTP: with and without JavaScript, one vote per reader,
the rules, the per-address limits, and the buttons on the pages."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from comments.moderation import queue as moderation
from comments.records import DELETED, PENDING, CommentAuthor
from comments.stores import get_store
from comments.views.common import NO_SUCH_COMMENT
from comments.votes import rules as voting
from tests.page_reading import discussion_url, page, permalink_url, post_url

pytestmark = pytest.mark.usefixtures("each_store")
JSON = {"HTTP_ACCEPT": "application/json"}


def vote_url(post, comment) -> str:
    return f"{discussion_url(post)}{comment.slug}/vote/"


def stored(comment):
    return get_store().find_by_slug(discussion_id=comment.discussion_id, slug=comment.slug)


@pytest.fixture
def browser():
    """A reader's browser that sends CSRF tokens as a real one does (from the page)."""
    return Client(enforce_csrf_checks=True)


def csrf_of(client, post) -> str:
    response = client.get(discussion_url(post))
    return re.search(r'id="vote-form".*?name="csrfmiddlewaretoken" value="([^"]+)"', response.content.decode(),
                     re.S).group(1)


def test_without_javascript_a_vote_answers_303_to_the_comment_with_a_message(browser, make_post, make_comment):
    post = make_post()
    comment = make_comment(post)
    token = csrf_of(browser, post)
    response = browser.post(vote_url(post, comment), {"vote": "up", "csrfmiddlewaretoken": token,
                                                     "next": discussion_url(post) + "?view=newest"})
    assert response.status_code == 303
    assert response["Location"] == f"{discussion_url(post)}?view=newest#{comment.anchor}"
    landed = browser.get(response["Location"])
    assert "Your up vote is counted." in landed.content.decode()
    article = next(c for c in page(landed).comments if c["slug"] == comment.slug)
    assert (article["html_attrs"]["data-votes-up"], article["html_attrs"]["data-score"]) == ("1", "1")


def test_a_vote_without_the_csrf_token_is_refused(browser, make_post, make_comment):
    post = make_post()
    comment = make_comment(post)
    assert browser.post(vote_url(post, comment), {"vote": "up"}).status_code == 403
    assert stored(comment).votes_up == 0


def test_with_javascript_the_same_endpoint_answers_json_and_a_browser_keeps_one_vote(
    browser, make_post, make_comment
):
    """The voter cookie names the browser: voting again changes its vote, never adds one."""
    post = make_post()
    comment = make_comment(post)
    token = csrf_of(browser, post)
    first = browser.post(vote_url(post, comment), {"vote": "up", "csrfmiddlewaretoken": token}, **JSON)
    assert first.json() == {"vote": "up", "up": 1, "down": 0, "score": 1, "slug": comment.slug,
                            "message": "Your up vote is counted."}
    again = browser.post(vote_url(post, comment), {"vote": "up", "csrfmiddlewaretoken": token}, **JSON)
    assert again.json()["up"] == 1
    down = browser.post(vote_url(post, comment), {"vote": "down", "csrfmiddlewaretoken": token}, **JSON)
    assert (down.json()["up"], down.json()["down"]) == (0, 1)
    assert browser.get(f"{discussion_url(post)}votes/").json() == {"votes": {comment.slug: "down"}}
    back = browser.post(vote_url(post, comment), {"vote": "none", "csrfmiddlewaretoken": token}, **JSON)
    assert (back.json()["up"], back.json()["down"], back.json()["vote"]) == (0, 0, "none")
    assert browser.get(f"{discussion_url(post)}votes/").json() == {"votes": {}}


def test_a_forged_voter_cookie_gains_nothing(make_post, make_comment):
    """An altered cookie is a new voter (as a cleared one): its vote counts once, and
    the browser it imitates keeps its own single vote."""
    post = make_post()
    comment = make_comment(post)
    client = Client()
    client.post(vote_url(post, comment), {"vote": "up"}, **JSON)
    cookie = client.cookies["comments_voter"].value
    forger = Client()
    forger.cookies["comments_voter"] = cookie[:-3] + "abc"
    forger.post(vote_url(post, comment), {"vote": "down"}, **JSON)
    replayed = Client()
    replayed.cookies["comments_voter"] = cookie
    replayed.post(vote_url(post, comment), {"vote": "up"}, **JSON)
    assert (stored(comment).votes_up, stored(comment).votes_down) == (1, 1)


def test_a_member_votes_once_by_account_whatever_the_browser(make_post, make_comment, make_user):
    post = make_post()
    comment = make_comment(post)
    member = make_user("mia", role="reader")
    for _ in range(2):
        client = Client()
        client.force_login(member)
        client.post(vote_url(post, comment), {"vote": "up"}, **JSON)
    assert stored(comment).votes_up == 1


def test_no_vote_on_your_own_comment(make_post, make_comment, make_user):
    post = make_post()
    member = make_user("mia", role="reader")
    comment = make_comment(post, author=CommentAuthor(id=member.pk, name="Mia"))
    client = Client()
    client.force_login(member)
    response = client.post(vote_url(post, comment), {"vote": "up"}, **JSON)
    assert response.status_code == 403 and response.json()["error"] == voting.OWN_COMMENT
    assert stored(comment).votes_up == 0


@pytest.mark.parametrize("status", [PENDING, "spam", DELETED])
def test_votes_on_comments_not_approved_are_refused_with_a_clear_message(status, make_post, make_comment):
    post = make_post()
    comment = make_comment(post)
    get_store().set_status(ids=[comment.id], status=status)
    response = Client().post(vote_url(post, comment), {"vote": "up"})
    assert response.status_code == 403 and voting.NOT_VOTABLE in response.content.decode()
    assert stored(comment).votes_up == 0


def test_a_placeholder_takes_no_votes_and_a_hidden_comment_keeps_its_votes(make_post, make_comment):
    post = make_post()
    comment = make_comment(post)
    make_comment(post, parent_slug=comment.slug)
    Client().post(vote_url(post, comment), {"vote": "up"})
    moderation.moderate(action="delete", comment_ids=[comment.id])
    assert stored(comment).placeholder
    response = Client().post(vote_url(post, comment), {"vote": "up"}, **JSON)
    assert response.status_code == 403 and response.json()["error"] == voting.NOT_VOTABLE
    moderation.moderate(action="approve", comment_ids=[comment.id])
    assert stored(comment).votes_up == 1


def test_a_comment_of_another_post_through_a_crafted_url_is_404(make_post, make_comment):
    post, other = make_post(), make_post()
    comment = make_comment(other)
    response = Client().post(vote_url(post, comment), {"vote": "up"})
    assert response.status_code == 404 and NO_SUCH_COMMENT in response.content.decode()
    assert Client().post(f"{discussion_url(post)}..%2F/vote/", {"vote": "up"}).status_code == 404
    assert stored(comment).votes_up == 0


@pytest.mark.parametrize("value", ["sideways", "", "{'$gt': ''}"])
def test_a_bad_vote_is_400_and_reaches_nothing(value, make_post, make_comment):
    post = make_post()
    comment = make_comment(post)
    response = Client().post(vote_url(post, comment), {"vote": value}, **JSON)
    assert response.status_code == 400 and response.json()["error"] == voting.BAD_VOTE
    assert Client().get(vote_url(post, comment)).status_code == 405


def test_a_flood_from_one_address_is_429_with_retry_after(settings, rate_clock, make_post, make_comment):
    """Fresh browsers (cookies cleared) on one address: the per-comment limit stops them,
    then a new minute lets them vote again."""
    settings.COMMENTS_VOTES_PER_IP_PER_COMMENT = 3
    post = make_post()
    comment = make_comment(post)
    answers = [Client().post(vote_url(post, comment), {"vote": "up"}, **JSON) for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert int(answers[-1]["Retry-After"]) == 61 and answers[-1].json()["error"] == voting.TOO_MANY_VOTES
    assert stored(comment).votes_up == 3
    rate_clock.now += 60
    assert Client().post(vote_url(post, comment), {"vote": "up"}, **JSON).status_code == 200


def test_every_approved_comment_has_its_buttons_and_the_permalink_presses_my_vote(make_post, make_comment):
    post = make_post()
    comment = make_comment(post)
    client = Client()
    client.post(vote_url(post, comment), {"vote": "down"})
    body = client.get(post_url(post)).content.decode()
    assert body.count('class="comment-votes"') == 1 and 'id="vote-form"' in body
    assert 'aria-pressed="false"' in body
    focus = client.get(permalink_url(post, comment.slug)).content.decode()
    assert re.search(r'value="none" class="vote vote-down" data-vote="down" aria-pressed="true"', focus)


def test_a_comment_at_or_below_the_fold_score_is_folded_behind_show(settings, make_post, make_comment):
    """Off by default; with COMMENTS_FOLD_SCORE = -2, a comment scored -2 keeps its text
    inside a <details> whose summary shows it without JavaScript."""
    post = make_post()
    sunk, fine = make_comment(post, text="Sunk words"), make_comment(post, text="Fine words")
    for n in range(2):
        Client().post(vote_url(post, sunk), {"vote": "down"})
    assert "comment-folded" not in Client().get(discussion_url(post)).content.decode()
    settings.COMMENTS_FOLD_SCORE = -2
    settings.COMMENTS_CACHE_SECONDS = 0
    body = Client().get(discussion_url(post)).content.decode()
    assert body.count('<details class="comment-folded">') == 1
    folded = body.split('<details class="comment-folded">', 1)[1].split("</details>", 1)[0]
    assert "readers scored it -2" in folded and "Sunk words" in folded and "Fine words" not in folded


def test_refused_votes_take_no_slot_of_the_limits(settings, rate_clock, make_post, make_comment):
    """Bad votes first, then a good one: the per-comment limit of one still admits it."""
    settings.COMMENTS_VOTES_PER_IP_PER_COMMENT = 1
    post = make_post()
    comment = make_comment(post)
    for _ in range(3):
        assert Client().post(vote_url(post, comment), {"vote": "sideways"}, **JSON).status_code == 400
    assert Client().post(vote_url(post, comment), {"vote": "up"}, **JSON).status_code == 200
    assert Client().post(vote_url(post, comment), {"vote": "up"}, **JSON).status_code == 429
