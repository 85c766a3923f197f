"""Every change moves a discussion's counters exactly once (comments/stores/counters.py), in
every store: posting (also pending by the rules), edits, an author's delete, flags
that hold a comment, moderation (one comment, a batch, a sub-thread, a ban),
placeholders, imports; a crash between a comment's change and its counter's is put
right by the next change or by repair_summaries; --check reports drift."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from cms import posts
from comments.moderation import queue as moderation
from comments.posting import services
from comments.records import CommentAuthor, Viewer, new_document
from comments.stores import counters, counting, discussion_state, get_store, summaries
from comments.stores.counting import Counts

pytestmark = pytest.mark.usefixtures("each_store")

READER = CommentAuthor(id=None, name="Reader", email="reader@example.com")


class Crash(Exception):
    """The process dies here (the fault injected between two steps of a change)."""


def recounted(discussion_id) -> Counts:
    return counting.recount(get_store().iter_documents(discussion_id=discussion_id))


def assert_exact(discussion_id) -> Counts:
    stored = counters.state(discussion_id, store=get_store()).counts
    assert stored == recounted(discussion_id)
    tally = get_store().tally_listing(discussion_id=discussion_id)
    assert (stored.listed, stored.placeholders) == (tally.total, tally.placeholders)
    assert posts.get_by_id(discussion_id).comment_count == stored.approved
    return stored


def test_a_comment_posted_is_counted_and_summarised_without_reading_it_or_its_state_again(
        make_post, make_comment, commands, monkeypatch, settings):
    """Posting reads neither the discussion's state nor the comment back: the count's
    compare-and-set is made on the state its note returned (read before the comment was
    written, so no other writer can have counted it unless `seq` moved since), the
    summary reads the state the count left, and the intent is cleared through the copy
    the writer holds. The counters and the summary exact."""
    post = make_post()
    make_comment(post, text="First")  # the discussion has a state
    reads = []
    real_find = counters._find
    monkeypatch.setattr(counters, "_find", lambda *args: reads.append(args) or real_find(*args))
    commands.reset()
    posted = make_comment(post, text="Second")
    page_count = settings.COMMENTS_STORE == "buckets"  # which page a new comment goes to
    assert len(commands.finds("discussion_state")) == page_count
    assert reads == []
    assert assert_exact(post.id) == Counts(approved=2)
    assert [c.slug for c in posts.get_by_id(post.id).latest_comments][0] == posted.slug
    state = discussion_state.get(post.id)  # the intent dropped with the note, in one update
    assert state.applied == frozenset() and state.unsettled == ()


def test_a_comment_whose_summary_runs_out_of_time_is_settled_once_by_settle_overdue(make_post, make_comment,
                                                                                    monkeypatch):
    """The summary after a post's count fails (the database over its time budget): the
    comment is stored and counted, its note and its applied intent stay in the state,
    and settle_overdue drops both and hands the post its summary."""
    from pymongo.errors import NetworkTimeout

    post = make_post()
    make_comment(post, text="First")

    def out_of_time(**_):
        raise NetworkTimeout("the request's budget is spent")

    with monkeypatch.context() as patched:
        patched.setattr(services, "refresh_summary", out_of_time)
        late = make_comment(post, text="Late")
    state = discussion_state.get(post.id)
    assert len(state.unsettled) == 1 and len(state.applied) == 1
    assert state.counts.approved == 2 and posts.get_by_id(post.id).comment_count == 1
    assert summaries.settle_overdue(older_than=timedelta(0)) == 1
    assert assert_exact(post.id) == Counts(approved=2)
    state = discussion_state.get(post.id)
    assert state.applied == frozenset() and state.unsettled == ()
    assert posts.get_by_id(post.id).latest_comments[0].slug == late.slug


def test_a_change_of_status_is_counted_without_reading_the_comment_back(make_post, make_comment, monkeypatch):
    """A moderator's change reads the discussion's state before writing its intent and
    counts against it: the comment is not read again to check that it still carries
    the intent (nobody can have counted an intent written after that state)."""
    post = make_post()
    first, second = make_comment(post, text="First"), make_comment(post, text="Second")
    reads = []
    real_find = counters._find
    monkeypatch.setattr(counters, "_find", lambda *args: reads.append(args) or real_find(*args))
    moderation.moderate(action="spam", comment_ids=[first.id, second.id])
    assert reads == []
    assert assert_exact(post.id) == Counts(spam=2)


@pytest.mark.parametrize("meanwhile", ["another comment is posted", "another writer counts this one"])
def test_a_comment_counted_after_another_writer_moved_the_counters_is_counted_once(make_post, make_comment,
                                                                                   monkeypatch, meanwhile):
    """Between a comment's insert and its count, another writer moves the discussion's
    counters (its own comment), or counts this comment itself (a moderator who met its
    intent): the state the note returned is stale, and the count is still made once."""
    post = make_post()
    make_comment(post, text="First")
    real_insert = services._insert

    def insert_then_another_writer(*args, **kwargs):
        stored, duplicate = real_insert(*args, **kwargs)
        monkeypatch.setattr(services, "_insert", real_insert)
        if meanwhile == "another comment is posted":
            services.post_comment(post=post, text="Overtaking", author=READER)
        else:
            counters.finish(stored, store=get_store())
        return stored, duplicate

    monkeypatch.setattr(services, "_insert", insert_then_another_writer)
    make_comment(post, text="Overtaken")
    expected = 3 if meanwhile == "another comment is posted" else 2
    assert assert_exact(post.id) == Counts(approved=expected)
    assert discussion_state.get(post.id).applied == frozenset()


def test_every_kind_of_change_moves_the_counters_once(make_post, make_comment, settings):
    settings.COMMENTS_FLAGS_TO_HOLD = 1
    post = make_post()
    root = make_comment(post, text="Root")
    reply = make_comment(post, text="Reply", parent_slug=root.slug)
    other = make_comment(post, text="Other")
    assert assert_exact(post.id) == Counts(approved=3)
    moderation.moderate(action="delete", comment_ids=[root.id])  # with an approved reply: a placeholder
    assert assert_exact(post.id) == Counts(approved=2, deleted=1, placeholders=1)
    services.flag_comment(comment=get_store().find_by_id(other.id), flagger="ip:1", reason="spam")
    assert assert_exact(post.id) == Counts(approved=1, pending=1, deleted=1, placeholders=1)
    moderation.moderate(action="spam", comment_ids=[other.id, reply.id])
    assert assert_exact(post.id) == Counts(spam=2, deleted=1)  # no approved reply: no placeholder
    moderation.moderate(action="approve", comment_ids=[other.id, reply.id, root.id])
    assert assert_exact(post.id) == Counts(approved=3)
    mine = services.post_comment(post=post, text="Mine", author=READER).comment
    services.edit_comment(post=post, comment=mine, viewer=Viewer(own=frozenset({mine.id})), text="Mine, edited")
    services.delete_own_comment(comment=get_store().find_by_id(mine.id), viewer=Viewer(own=frozenset({mine.id})))
    assert assert_exact(post.id) == Counts(approved=3, deleted=1)
    moderation.remove_subthread(comment_id=root.id)
    assert assert_exact(post.id) == Counts(approved=1, deleted=3)


def test_a_change_that_moves_no_counter_still_gives_the_pages_a_new_version(make_post, make_comment):
    post = make_post()
    comment = make_comment(post, text="Before")
    before = counters.version(post.id, store=get_store())
    services.edit_comment(post=post, comment=comment, viewer=Viewer(own=frozenset({comment.id})), text="After")
    assert counters.version(post.id, store=get_store()) != before and assert_exact(post.id) == Counts(approved=1)


def test_a_ban_across_posts_counts_every_post_once(make_post, make_comment):
    many = [make_post() for _ in range(4)]
    theirs = [make_comment(post, text=f"Spam on {post.slug}", ip="203.0.113.9") for post in many]
    for post in many[:2]:
        make_comment(post, text="Kept", ip="198.51.100.1")
    moderation.ban_commenter(comment_id=theirs[0].id, editor="edith")
    for post in many:
        counts = assert_exact(post.id)
        assert counts.spam == 1 and counts.approved == (1 if post in many[:2] else 0)


@pytest.mark.parametrize("step", ["changed", "applied", "cleared"])
def test_a_crash_between_a_change_and_its_count_is_put_right_by_the_next_change(make_post, make_comment,
                                                                                monkeypatch, step):
    """The process dies after the comment's change (or after the counters moved, or
    after the intent was cleared): the next writer to meet the comment finishes it."""
    post = make_post()
    comment = make_comment(post)

    def crash(at: str) -> None:
        if at == step:
            raise Crash(at)

    monkeypatch.setattr(counters, "between_steps", crash)
    with pytest.raises(Crash):
        get_store().set_status(ids=[comment.id], status="spam")
    monkeypatch.setattr(counters, "between_steps", lambda at: None)
    moderation.moderate(action="approve", comment_ids=[comment.id])
    assert assert_exact(post.id) == Counts(approved=1)
    # After "cleared" the state still lists the intent (harmless: no comment carries
    # it); the repair drops it.
    counters.repair(post.id, store=get_store())
    assert discussion_state.get(post.id).applied == frozenset()


@pytest.mark.parametrize("step", ["changed", "applied"])
def test_a_crash_is_put_right_by_repair_summaries_and_check_reports_it_first(make_post, make_comment, monkeypatch,
                                                                            step):
    post = make_post()
    comment = make_comment(post)
    make_comment(post)

    def crash(at: str) -> None:
        if at == step:
            raise Crash(at)

    monkeypatch.setattr(counters, "between_steps", crash)
    with pytest.raises(Crash):
        get_store().set_status(ids=[comment.id], status="spam")
    monkeypatch.setattr(counters, "between_steps", lambda at: None)
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("repair_summaries", "--check", stdout=out)
    assert f"Post {post.id}" in out.getvalue()
    call_command("repair_summaries", stdout=StringIO())
    assert assert_exact(post.id) == Counts(approved=1, spam=1)
    call_command("repair_summaries", "--check", stdout=StringIO())


def test_check_reports_counters_written_wrong_and_repair_fixes_them(make_post, make_comment, mongo_db):
    post = make_post()
    make_comment(post)
    counters.state(post.id, store=get_store())
    mongo_db.discussion_state.update_one({"_id": post.id}, {"$set": {"counts.approved": 40}})
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("repair_summaries", "--check", stdout=out)
    assert "counters Counts(approved=40" in out.getvalue()
    assert discussion_state.get(post.id).counts.approved == 40
    call_command("repair_summaries", stdout=StringIO())
    assert assert_exact(post.id) == Counts(approved=1)


def test_a_discussion_from_before_the_counters_is_counted_once_from_its_comments(make_post, make_comment, mongo_db):
    """An upgrade: no state yet; the first read makes it from a recount (and the
    buckets store's page from its highest page)."""
    post = make_post()
    make_comment(post)
    get_store().set_status(ids=[make_comment(post).id], status="pending")
    mongo_db.discussion_state.delete_one({"_id": post.id})
    assert counters.state(post.id, store=get_store()).counts == Counts(approved=1, pending=1)
    make_comment(post)
    assert assert_exact(post.id) == Counts(approved=2, pending=1)


def test_the_state_opens_no_later_than_the_discussion_s_first_comment(make_post, make_comment, mongo_db):
    """A post's first comment opens its discussion; comments imported from before it
    open it earlier once they are counted (a recount), and a state made from a
    recount opens at the earliest stored comment."""
    post = make_post()
    first = make_comment(post)
    make_comment(post)
    assert counters.state(post.id, store=get_store()).opens == first.posted
    older = first.posted - timedelta(days=400)
    imported = new_document(discussion_id=post.id, parent=None, slug="imported", full_slug="imported",
                            posted=older, author=READER, text="From the old site.", html="<p>From the old site.</p>",
                            form_key=None, status="approved", ip=None)
    assert get_store().insert_documents(documents=[imported]) == 1
    counters.recount(post.id, store=get_store())
    assert counters.state(post.id, store=get_store()).opens == older
    mongo_db.discussion_state.delete_one({"_id": post.id})
    assert counters.state(post.id, store=get_store()).opens == older


def test_ensure_indexes_gives_an_upgraded_deployment_a_state_for_every_discussion(
        make_post, make_comment, mongo_db):
    """The release step's ensure_indexes makes the states an upgrade lacks, so the
    site-wide totals (the moderation queue's tabs) count every discussion at once."""
    first, second = make_post(), make_post()
    make_comment(first)
    get_store().set_status(ids=[make_comment(second).id], status="pending")
    mongo_db.discussion_state.delete_many({})
    call_command("ensure_indexes", stdout=StringIO())
    assert set(discussion_state.discussion_ids()) >= {first.id, second.id}
    assert counters.totals(store=get_store()).approved >= 1 and counters.totals(store=get_store()).pending >= 1
    assert discussion_state.get(first.id).counts == Counts(approved=1)
    assert discussion_state.get(second.id).counts == Counts(pending=1)


def test_the_post_summary_comes_from_the_counters_without_a_recount(make_post, make_comment, commands):
    post = make_post()
    for _ in range(3):
        make_comment(post)
    commands.reset()
    assert summaries.refresh_summary(post_id=post.id) == 3
    # The state by key, the newest few (a find, or one aggregation in the buckets
    # store), the host's update: the same three commands at any size.
    assert len(commands.names) == 3 and commands.names[0] == "find" and commands.names[-1] == "update"
