"""A change to a discussion's comments whose settling (its counting, the placeholders
around it, the post's comment summary) is cut short after the change is stored is
settled later: the note the writer left in the discussion's state stays, and the
publishing loop's round (`finish_pending_changes`: `summaries.settle_overdue`) settles
it (comments/stores/summaries.py). Against the real server.

The fault is real: the step runs with its time budget already spent (a `pymongo.timeout`
of a nanosecond), so the driver gives up on it as it does when a request's budget runs
out while its discussion's shard holds writes (a shard being moved) or is gone."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pymongo
import pytest
from pymongo.errors import PyMongoError

from cms import posts
from comments import api as comments_api
from comments.posting import services
from comments.records import CommentAuthor, Viewer
from comments.stores import counters, discussion_state, get_store, summaries
from tests.page_reading import page, post_url, submit

pytestmark = pytest.mark.stores("documents")

ROSA = CommentAuthor(id=None, name="Rosa", email="rosa@example.com")


def out_of_time_once(monkeypatch, owner, name: str, when: Callable[..., bool]) -> list[int]:
    """`owner.name` runs with its budget spent the first time `when(*args, **kwargs)`
    holds, then as it is; the calls made with the budget spent."""
    real, spent = getattr(owner, name), []

    def once(*args, **kwargs):
        if not spent and when(*args, **kwargs):
            spent.append(1)
            with pymongo.timeout(1e-9):
                return real(*args, **kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, once)
    return spent


def held(post) -> tuple[int, list[str]]:
    """The post's comment count and latest comments' slugs, as stored on it."""
    found = posts.get_by_id(post.id)
    return found.comment_count, [c.slug for c in found.latest_comments]


def drifts(post) -> bool:
    """Whether the post's counters or stored summary differ from a recount, as
    `repair_summaries --check` (`summaries.find_drift`) tells, for this post alone."""
    store = get_store()
    recounted = counters.check(post.id, store=store)
    approved = recounted.counted.approved if recounted else discussion_state.get(post.id).counts.approved
    latest = [c.slug for c in store.find_latest(discussion_id=post.id, limit=summaries.LATEST_COUNT)]
    return recounted is not None or held(post) != (approved, latest)


def test_a_post_whose_counting_ran_out_of_time_is_stored_and_settled_by_the_publishing_round(
        client, make_post, monkeypatch):
    """As in the CI run of the shard move: the comment is stored and answered 303, its
    counting and the summary after it fail (the budget spent at the counters' write);
    the post drifts until the publishing loop's round, which settles it."""
    post = make_post()
    first = submit(client, post_url(post), text="Counted at once")
    assert first.status_code == 303 and discussion_state.get(post.id).unsettled == ()
    spent = out_of_time_once(monkeypatch, counters, "finish", lambda comment, **_: comment.text == "Counted later")
    answer = submit(client, post_url(post), text="Counted later")
    assert answer.status_code == 303 and spent == [1]
    monkeypatch.undo()
    (later,) = [c["slug"] for c in page(client.get(post_url(post))).comments if c["text"] == "Counted later"]
    assert held(post)[0] == 1 and drifts(post)
    assert len(discussion_state.get(post.id).unsettled) == 1
    assert summaries.settle_overdue() == 0, "a young note: its writer may still be settling it"
    monkeypatch.setattr(summaries, "OVERDUE", timedelta(0))
    assert comments_api.finish_pending_changes() >= 1  # the publishing loop's round
    assert held(post)[0] == 2 and held(post)[1][0] == later
    assert not drifts(post) and discussion_state.get(post.id).unsettled == ()


def test_a_comment_whose_summary_refresh_ran_out_of_time_gets_its_summary_later(make_post, monkeypatch):
    """Counted, but the refresh of the post's summary after it ran out of time: the
    reader is told it is stored, and the note left makes `settle_overdue` refresh it."""
    post = make_post()
    out_of_time_once(monkeypatch, services, "refresh_summary", lambda **_: True)
    posted = services.post_comment(post=post, text="Stored all the same", author=ROSA)
    monkeypatch.undo()
    assert get_store().find_by_id(posted.comment.id).text == "Stored all the same"
    assert held(post) == (0, []) and discussion_state.get(post.id).counts.approved == 1
    assert summaries.settle_overdue(older_than=timedelta(0)) == 1
    assert held(post) == (1, [posted.comment.slug]) and discussion_state.get(post.id).unsettled == ()


def test_an_authors_delete_cut_short_gets_its_placeholder_and_summary_later(make_post, monkeypatch):
    """The author deletes a comment that has a reply; settling the delete runs out of
    time (the reader sees an error): the noted slug gets its placeholder and the post
    its summary from `settle_overdue`."""
    post = make_post()
    parent = services.post_comment(post=post, text="Said first", author=ROSA, form_key="p" * 22).comment
    reply = services.post_comment(post=post, text="A reply", author=ROSA, parent_slug=parent.slug).comment
    viewer = Viewer(own=frozenset({parent.id}))
    out_of_time_once(monkeypatch, services, "settle", lambda **_: True)
    with pytest.raises(PyMongoError):
        services.delete_own_comment(comment=parent, viewer=viewer)
    monkeypatch.undo()
    assert held(post)[0] == 2 and not get_store().find_by_id(parent.id).placeholder
    assert summaries.settle_overdue(older_than=timedelta(0)) == 1
    assert get_store().find_by_id(parent.id).placeholder
    assert held(post) == (1, [reply.slug]) and not drifts(post)
