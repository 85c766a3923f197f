"""comments/votes/collection.py and the stores' tallies: one vote per reader and comment, the
tallies moved exactly once whoever votes at once, and repair_votes for drift."""

import io
import threading
from datetime import timedelta

import pytest
from django.core.management import call_command

from comments import scores
from comments.stores import get_store
from comments.votes import collection as votes
from infra.mongo import get_db

pytestmark = pytest.mark.usefixtures("each_store")


def stored(comment):
    return get_store().find_by_slug(discussion_id=comment.discussion_id, slug=comment.slug)


def test_a_vote_moves_the_tallies_and_a_change_moves_them_back(make_post, make_comment):
    """Up, then down, then none: the tallies follow, and the key follows the tallies."""
    post = make_post()
    comment = make_comment(post)
    assert votes.cast(comment=comment, voter="b:one", vote="up").changed
    assert (stored(comment).votes_up, stored(comment).votes_down, stored(comment).score) == (1, 0, 1)
    assert stored(comment).rank == pytest.approx(scores.wilson_lower_bound(1, 0))
    votes.cast(comment=comment, voter="b:one", vote="down")
    assert (stored(comment).votes_up, stored(comment).votes_down, stored(comment).score) == (0, 1, -1)
    assert stored(comment).rank == 0.0
    votes.cast(comment=comment, voter="b:one", vote="none")
    assert (stored(comment).votes_up, stored(comment).votes_down) == (0, 0)
    assert votes.vote_of(comment=comment, voter="b:one") == "none"


def test_the_same_vote_again_changes_nothing(make_post, make_comment):
    post = make_post()
    comment = make_comment(post)
    votes.cast(comment=comment, voter="u:7", vote="up")
    again = votes.cast(comment=comment, voter="u:7", vote="up")
    assert not again.changed and again.comment.votes_up == 1


def test_a_reply_deep_in_a_thread_is_voted_on_in_place(make_post, make_comment):
    """Replies sit inside containers in two stores: the `$inc` reaches the right one."""
    post = make_post()
    root = make_comment(post)
    reply = make_comment(post, parent_slug=root.slug)
    deeper = make_comment(post, parent_slug=reply.slug)
    votes.cast(comment=deeper, voter="b:x", vote="up")
    votes.cast(comment=deeper, voter="b:y", vote="down")
    assert (stored(deeper).votes_up, stored(deeper).votes_down) == (1, 1)
    assert (stored(root).votes_up, stored(reply).votes_up) == (0, 0)


def test_two_tabs_sending_the_same_vote_at_once_move_the_tallies_once(make_post, make_comment):
    """Eight threads send one reader's up vote at once, five times over: one counts."""
    post = make_post()
    for round_ in range(5):
        comment = make_comment(post)
        barrier = threading.Barrier(8)

        def vote():
            barrier.wait()
            votes.cast(comment=comment, voter="b:tabs", vote="up")

        threads = [threading.Thread(target=vote) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert (stored(comment).votes_up, stored(comment).votes_down) == (1, 0), round_


def test_many_voters_at_once_leave_tallies_equal_to_the_votes(make_post, make_comment):
    """Twenty readers vote at once, each up or down and some changing their minds: the
    tallies and the key equal what the documents say."""
    post = make_post()
    comment = make_comment(post)
    barrier = threading.Barrier(20)

    def vote(n):
        barrier.wait()
        votes.cast(comment=comment, voter=f"b:{n}", vote="up" if n % 3 else "down")
        if n % 4 == 0:
            votes.cast(comment=comment, voter=f"b:{n}", vote="none" if n % 8 else "up")

    threads = [threading.Thread(target=vote, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    up, down, _ = votes.counted(discussion_id=post.id)[comment.id]
    now = stored(comment)
    assert (now.votes_up, now.votes_down, now.score) == (up, down, up - down)
    assert now.rank == pytest.approx(scores.wilson_lower_bound(up, down))
    assert list(votes.find_drift(discussion_ids=[post.id])) == []


def test_a_crash_between_the_vote_and_the_tally_is_found_and_repaired(make_post, make_comment):
    """A vote document written with no tally after it (the process died): --check
    reports it and changes nothing; repair_votes fixes it; a second run finds nothing."""
    post = make_post()
    comment = make_comment(post)
    votes.cast(comment=comment, voter="b:one", vote="up")
    get_db().comment_votes.insert_one({
        "_id": votes.vote_id(comment.id, "b:two"), "comment_id": comment.id, "discussion_id": post.id,
        "slug": comment.slug, "voter": "b:two", "value": 1, "unapplied": 1,
        "changed": stored(comment).posted - timedelta(minutes=2),
    })
    out = io.StringIO()
    call_command("repair_votes", "--check", stdout=out)
    assert "1 comment drifted, 1 found" in out.getvalue()
    assert stored(comment).votes_up == 1
    call_command("repair_votes", stdout=out)
    assert (stored(comment).votes_up, stored(comment).score) == (2, 2)
    assert stored(comment).rank == pytest.approx(scores.wilson_lower_bound(2, 0))
    out = io.StringIO()
    call_command("repair_votes", stdout=out)
    assert "0 comments drifted" in out.getvalue()


def test_a_vote_still_on_its_way_is_left_for_the_next_run(make_post, make_comment):
    post = make_post()
    comment = make_comment(post)
    from datetime import UTC, datetime

    get_db().comment_votes.insert_one({
        "_id": votes.vote_id(comment.id, "b:two"), "comment_id": comment.id, "discussion_id": post.id,
        "slug": comment.slug, "voter": "b:two", "value": 1, "unapplied": 1, "changed": datetime.now(UTC),
    })
    out = io.StringIO()
    call_command("repair_votes", stdout=out)
    assert "left for the next run" in out.getvalue() and stored(comment).votes_up == 0


def test_imported_tallies_without_vote_documents_are_kept_and_exported(make_post, make_comment):
    """An export carries each comment's tallies; imported elsewhere (no vote documents)
    they stand, and repair_votes only brings the keys in line with them."""
    post = make_post()
    comment = make_comment(post)
    votes.cast(comment=comment, voter="b:a", vote="up")
    document = next(get_store().iter_documents(discussion_id=post.id))
    assert (document["votes"], document["score"]) == ({"up": 1, "down": 0}, 1)
    get_db().comment_votes.delete_many({})
    get_store().change(votes.Query(discussion_id=post.id, ids=frozenset({comment.id})), fields={"rank": 0.0})
    out = io.StringIO()
    call_command("repair_votes", stdout=out)
    assert (stored(comment).votes_up, stored(comment).score) == (1, 1)
    assert stored(comment).rank == pytest.approx(scores.wilson_lower_bound(1, 0))


@pytest.mark.stores("documents")
def test_comments_migrate_keeps_the_votes_and_the_best_order(settings, make_post, make_comment):
    """documents → buckets → embedded: each comment's tallies and key travel with it,
    the best order is the same, and the vote documents (store-independent) still match."""
    settings.COMMENTS_STORE_RECHECK_SECONDS = 0
    post = make_post()
    made = [make_comment(post) for _ in range(4)]
    for n, comment in enumerate(made):
        for voter in range(n):
            votes.cast(comment=comment, voter=f"b:{voter}", vote="up" if voter % 3 else "down")
    before = [(c.slug, c.votes_up, c.votes_down, c.rank)
              for c in get_store().find_ranked_roots(discussion_id=post.id, view="best")]
    for target in ("buckets", "embedded"):
        call_command("comments_migrate", "--to", target, "--no-progress", stdout=io.StringIO(),
                     stderr=io.StringIO())
        after = [(c.slug, c.votes_up, c.votes_down, c.rank)
                 for c in get_store().find_ranked_roots(discussion_id=post.id, view="best")]
        assert get_store().name == target and after == before
        assert list(votes.find_drift(discussion_ids=[post.id])) == []
    votes.cast(comment=made[0], voter="b:late", vote="up")
    assert stored(made[0]).votes_up == 1
