"""An erasure's batch (comments/erasure/batch.py, comments/stores/counters_bulk.py)
spans several discussions and leaves every counter equal to a recount and every
placeholder exactly where an approved reply stands, in every store; a run killed
between the steps of its bulk change (or between a vote's withdrawal and its tallies)
is finished by the next, counting each comment once."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from comments import api as comments_api
from comments.erasure import jobs, work
from comments.moderation import queue as moderation
from comments.records import DELETED, CommentAuthor
from comments.stores import counters, counting, discussion_state, get_store
from comments.votes import collection as votes
from infra.mongo import get_db

pytestmark = pytest.mark.usefixtures("each_store")

MEMBER = 4242
THEM = CommentAuthor(id=MEMBER, name="Ida Erased", email="ida@example.org")


class Crash(Exception):
    """The process dies here."""


def build(make_post, make_comment) -> tuple[list, list, list]:
    """Two discussions: the member's comments with others' approved replies (they
    stand as placeholders), replies of their own only (they do not), a reply under
    another's deleted comment that stood for it alone (which then stands no more), a
    held one; and their votes on others' comments. Returns (posts, member's
    comments, others' comments voted on)."""
    made, theirs, voted = [make_post() for _ in range(2)], [], []
    for post in made:
        root = make_comment(post, text="their root", author=THEM)
        reply = make_comment(post, text="a reply to it", parent_slug=root.slug)
        alone = make_comment(post, text="their second", author=THEM)
        own = make_comment(post, text="their own reply", author=THEM, parent_slug=alone.slug)
        other = make_comment(post, text="another's root")
        under = make_comment(post, text="their reply below", author=THEM, parent_slug=other.slug)
        moderation.moderate(action="delete", comment_ids=[other.id])  # stands for `under`
        held = make_comment(post, text="held", author=THEM)
        moderation.moderate(action="spam", comment_ids=[held.id])
        theirs += [root, alone, own, under, held]
        for comment in (reply, get_store().find_by_id(other.id)):
            votes.cast(comment=comment, voter=f"u:{MEMBER}", vote="up")
            voted.append(comment)
    return made, theirs, voted


def assert_erased(made: list, theirs: list, voted: list) -> None:
    store = get_store()
    for post in made:
        docs = list(store.iter_documents(discussion_id=post.id))
        assert counters.state(post.id, store=store).counts == counting.recount(docs)
        assert not any(doc.get("intent") for doc in docs)
        assert discussion_state.get(post.id).applied == frozenset()
    for comment in store.find_by_ids(ids=[c.id for c in theirs]):
        assert comment.status == DELETED and comment.author.id is None and not comment.text
        assert comment.placeholder == store.has_approved_reply(comment=comment), comment.slug
    assert sum(c.placeholder for c in store.find_by_ids(ids=[c.id for c in theirs])) == len(made)
    for comment in store.find_by_ids(ids=[c.id for c in voted]):
        assert (comment.votes_up, comment.score) == (0, 0)
        assert not comment.placeholder  # the deleted one stood for the member's reply alone
    assert get_db().comment_votes.count_documents({"voter": f"u:{MEMBER}"}) == 0
    call_command("repair_summaries", "--check", stdout=StringIO())  # CommandError on drift
    assert list(votes.find_drift()) == []


# Killed after the bulk change, in every store (the rerun finishes and clears the
# intents its own way in each); the later steps' rerun is the same in every store.
ONE_STORE = pytest.mark.stores("documents")


@pytest.mark.parametrize("step", ["changed", pytest.param("applied", marks=ONE_STORE),
                                  pytest.param("cleared", marks=ONE_STORE), pytest.param("votes", marks=ONE_STORE)])
def test_a_batch_across_discussions_killed_between_steps_is_finished_once(make_post, make_comment, monkeypatch,
                                                                         step):
    """Killed between the steps of its first batch, the erasure's next run finishes
    it: counters equal to a recount, placeholders right, each comment counted once."""
    made, theirs, voted = build(make_post, make_comment)
    erasure = comments_api.start_erasure(user_id=MEMBER, emails=[THEM.email])

    def crash(at: str) -> None:
        if at == step:
            raise Crash(at)

    if step == "votes":
        monkeypatch.setattr(votes, "_untally", lambda docs: crash("votes"))
    else:
        monkeypatch.setattr(counters, "between_steps", crash)
    with pytest.raises(Crash):
        work.run(erasure.id, seconds=60)
    monkeypatch.undo()
    get_db().comment_erasures.update_one({"_id": erasure.id}, {"$set": {"lease": None}})  # the lease ran out
    assert work.continue_all(seconds=60) == 1
    done = jobs.find(erasure.id)
    assert done is not None and done.counts["comments"] == len(theirs) == 10
    assert done.counts["votes"] == len(voted)
    assert_erased(made, theirs, voted)
