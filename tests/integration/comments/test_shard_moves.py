"""What the comments app does around a move of shards (comments/transfer/shard_moves.py):
`rebalance_shards` runs it through infra.sharding's before_moves and after_moves, since
on DocumentDB with Citus a write that reaches a shard while it is copied may be lost
(the cluster's own test, test_cluster_faults, moves shards under traffic). Here, on the
single node: writes held and taken again, and losses made by hand (a counter's `$inc`
and a vote tally's) put right."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from comments.stores import counters, discussion_state, get_store, store_switch
from comments.stores.counting import Counts
from comments.votes import collection as votes
from infra import sharding
from tests.page_reading import page, post_url, submit


def test_counters_and_a_tally_lost_in_a_move_are_counted_again(make_post, make_comment, mongo_db, settings):
    settings.COMMENTS_STORE = "documents"
    post, other = make_post(), make_post()
    comments = [make_comment(post) for _ in range(3)] + [make_comment(other)]
    assert votes.cast(comment=comments[0], voter="b:one", vote="up").changed
    assert votes.cast(comment=comments[0], voter="b:two", vote="up").changed
    # What lost writes leave: one comment of `post` not counted, one vote not tallied.
    mongo_db.discussion_state.update_one({"_id": post.id}, {"$inc": {"counts.approved": -1}})
    mongo_db.comments.update_one({"_id": comments[0].id}, {"$inc": {"votes.up": -1, "score": -1}})
    assert discussion_state.get(post.id).counts == Counts(approved=2)
    assert [drift.comment.id for drift in votes.find_drift(discussion_ids=[post.id])] == [comments[0].id]

    lines = sharding.after_moves()

    assert lines == [
        "Counted the comments of 2 discussions again (for a write that landed while a shard moved: "
        "docs/dev-cluster.md).",
        "Vote tallies: 1 put right; 0 voted on within the last minute, left to repair_votes.",
    ]
    assert counters.state(post.id, store=get_store()).counts == Counts(approved=3)
    found = get_store().find_by_slug(discussion_id=post.id, slug=comments[0].slug)
    assert (found.votes_up, found.votes_down, found.score) == (2, 0, 2)
    call_command("repair_summaries", "--check", stdout=StringIO())  # counters and summaries agree
    assert list(votes.find_drift()) == []


def test_a_tally_voted_on_just_now_is_left_for_repair_votes(make_post, make_comment, mongo_db, settings):
    """A vote on its way (stored, its tally not yet moved) is not counted twice: the
    repair leaves a comment voted on within the last minute alone and says so."""
    settings.COMMENTS_STORE = "documents"
    post = make_post()
    comment = make_comment(post)
    votes.cast(comment=comment, voter="b:one", vote="up")
    mongo_db.comment_votes.update_one({"comment_id": comment.id}, {"$set": {"unapplied": 1}})
    mongo_db.comments.update_one({"_id": comment.id}, {"$inc": {"votes.up": -1, "score": -1}})
    settling = list(votes.find_drift(discussion_ids=[post.id]))
    assert [drift.settling for drift in settling] == [True]

    lines = sharding.after_moves()

    assert lines[1] == "Vote tallies: 0 put right; 1 voted on within the last minute, left to repair_votes."
    assert get_store().find_by_slug(discussion_id=post.id, slug=comment.slug).votes_up == 0


def test_comment_and_vote_writes_are_held_while_shards_move_and_taken_again_after(
    client, make_post, make_comment, mongo_db, settings
):
    """Between before_moves and after_moves: a post answers 503 with Retry-After, the
    hold's own message and the reader's text; a vote is refused; nothing is stored.
    After: the switch record is as it was (none) and the same post is stored."""
    settings.COMMENTS_STORE_RECHECK_SECONDS = 0
    post = make_post()
    comment = make_comment(post)

    assert sharding.before_moves() == [
        "Comment and vote writes held while the shards move (answered 503, the reader's text kept)."]
    response = submit(client, post_url(post), text="Sent while the shards move")
    assert response.status_code == 503 and response["Retry-After"] == "60"
    refused = page(response)
    assert refused.text_of("form-errors") == [store_switch.SHARDS_MOVING]
    assert refused.textareas["text"] == "Sent while the shards move"
    with pytest.raises(store_switch.Moving):
        votes.cast(comment=comment, voter="b:one", vote="up")
    assert mongo_db.comments.count_documents({"discussion_id": post.id}) == 1
    assert mongo_db.comment_votes.count_documents({}) == 0

    assert sharding.after_moves()[0] == "Comment and vote writes taken again."
    assert mongo_db.comment_store.count_documents({}) == 0
    assert submit(client, post_url(post), text="Sent after the move").status_code in (302, 303)
    assert mongo_db.comments.count_documents({"discussion_id": post.id}) == 2


def test_a_migrations_record_is_kept_through_a_hold(make_post, settings, mongo_db):
    """A switch record already there (a store switched by comments_migrate) comes back
    as it was, only `held` cleared."""
    settings.COMMENTS_STORE_RECHECK_SECONDS = 0
    store_switch.switch(target="buckets")
    sharding.before_moves()
    assert store_switch.recorded()["held"] is True
    sharding.after_moves()
    kept = mongo_db.comment_store.find_one({"_id": "in_use"})
    assert (kept["store"], kept["frozen"], kept["moving_to"], kept["held"]) == ("buckets", False, None, False)
    assert "made_for_hold" not in kept


def test_a_hold_left_by_a_killed_rebalance_is_released_by_the_next(make_post, settings, mongo_db):
    """The hold is the switch record's: another process (the next rebalance_shards)
    takes writes again and removes the record the hold made, and a migration that
    switched the store meanwhile keeps its record."""
    settings.COMMENTS_STORE_RECHECK_SECONDS = 0
    store_switch.hold()
    store_switch.forget()
    assert store_switch.release() is True
    assert mongo_db.comment_store.count_documents({}) == 0
    assert store_switch.release() is False
    store_switch.hold()
    store_switch.switch(target="embedded")
    assert store_switch.release() is True
    assert mongo_db.comment_store.find_one({"_id": "in_use"})["store"] == "embedded"
