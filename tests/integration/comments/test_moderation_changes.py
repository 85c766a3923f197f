"""Moderation that completes or converges (comments/moderation/changes.py), and bans that
reach only whom they should and can be undone, against the real server for every comment
store (a comment whose settling was cut short: tests/integration/comments/test_unsettled_changes.py).

Where a test needs an action cut short, it makes one step of ours raise the error a
spent request budget raises (pymongo's NetworkTimeout); the database itself is real.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

import pytest
from django.core.management import call_command
from pymongo.errors import NetworkTimeout

from cms import posts
from comments.moderation import blocklist, changes, queue as moderation
from comments.posting import services
from comments.records import APPROVED, PENDING, SPAM, CommentAuthor
from comments.stores import get_store, summaries

pytestmark = pytest.mark.usefixtures("each_store")

BASE = datetime.now(timezone.utc) - timedelta(hours=2)
ANON = CommentAuthor(id=None, name="Sam Lee", email="sam@example.net")
CAFE = "198.51.100.7"


def status_of(comment) -> str:
    return get_store().find_by_id(comment.id).status


def spent_after(monkeypatch, calls: int):
    """Let `summaries.settle` run `calls` times, then fail as a spent budget does."""
    real, seen = summaries.settle, []

    def settle(**kwargs):
        seen.append(kwargs["discussion_id"])
        if len(seen) > calls:
            raise NetworkTimeout("the request's time budget is spent")
        return real(**kwargs)

    monkeypatch.setattr(summaries, "settle", settle)


def test_a_spam_action_cut_short_is_finished_by_repair_summaries(make_post, make_comment, monkeypatch):
    """Spamming comments on three posts, cut short after the first post is settled: the
    comments are spam, the editor is not told it failed, and `repair_summaries` leaves
    every post's count and latest comments right."""
    three = [make_post() for _ in range(3)]
    chosen = [make_comment(post, author=ANON, text=f"Spam on {post.slug}") for post in three]
    kept = [make_comment(post, text=f"Kept on {post.slug}") for post in three]
    spent_after(monkeypatch, calls=1)
    assert moderation.moderate(action="spam", comment_ids=[c.id for c in chosen]).total == 3
    assert [status_of(c) for c in chosen] == [SPAM] * 3
    assert sorted(posts.get_by_id(p.id).comment_count for p in three) == [1, 2, 2], "cut short after one post"
    monkeypatch.undo()
    call_command("repair_summaries", "--pending-only")
    # Younger than the margin `repair_summaries` leaves for actions still running:
    assert sorted(posts.get_by_id(p.id).comment_count for p in three) == [1, 2, 2]
    assert changes.finish_pending(older_than=timedelta(0)) == 1
    for post, comment in zip(three, kept):
        after = posts.get_by_id(post.id)
        assert after.comment_count == 1
        assert [latest.slug for latest in after.latest_comments] == [comment.slug]
    assert changes.unfinished(older_than=timedelta(0)) == []


def test_trying_again_finishes_an_action_that_was_cut_short(make_post, make_comment, monkeypatch):
    """The editor tries the same ban again after the first try ran out of time: nothing
    is left to mark, and the retry still puts every post right."""
    two = [make_post() for _ in range(2)]
    for post in two:
        make_comment(post, author=ANON, text=f"Sam on {post.slug}", ip=CAFE)
    first = make_comment(two[0], author=ANON, text="Sam again", ip=CAFE)
    spent_after(monkeypatch, calls=0)
    banned = moderation.ban_commenter(comment_id=first.id, editor="edith")
    assert banned.marked == 3
    assert [posts.get_by_id(p.id).comment_count for p in two] == [2, 1]
    monkeypatch.undo()
    again = moderation.ban_commenter(comment_id=first.id, editor="edith")
    assert again.marked == 0
    assert [posts.get_by_id(p.id).comment_count for p in two] == [0, 0]
    assert [posts.get_by_id(p.id).latest_comments for p in two] == [(), ()]


def test_an_address_ban_never_reaches_members_or_editors(make_post, make_comment, make_user):
    """On a shared address, banning an anonymous commenter marks the anonymous comments
    from it, not the member's or the editor's, and they can still comment from it."""
    post = make_post()
    member = make_user("mira", role="reader")
    editor = make_user("edith", role="editor")
    troll = make_comment(post, author=ANON, text="Trolling", ip=CAFE)
    other_anon = make_comment(post, author=CommentAuthor(id=None, name="Kim"), text="Hi", ip=CAFE)
    by_member = make_comment(post, author=CommentAuthor(id=member.pk, name="Mira"), text="Member", ip=CAFE)
    by_editor = make_comment(post, author=CommentAuthor(id=editor.pk, name="Edith"), text="Editor", ip=CAFE)
    preview = moderation.preview_ban(comment_id=troll.id)
    assert (preview.count, preview.names, preview.keys) == (2, ["Kim", "Sam Lee"], [(blocklist.BAN_IP, CAFE)])
    moderation.ban_commenter(comment_id=troll.id, editor="edith")
    assert [status_of(c) for c in (troll, other_anon, by_member, by_editor)] == [SPAM, SPAM, APPROVED, APPROVED]
    again = services.post_comment(post=post, text="Still here", ip=CAFE,
                                  author=CommentAuthor(id=member.pk, name="Mira"))
    assert again.comment.status == APPROVED
    with pytest.raises(services.CommentError) as refused:
        services.post_comment(post=post, text="Back", author=ANON, ip=CAFE)
    assert refused.value.code == "banned"


def test_banning_an_impostor_does_not_ban_the_address_they_typed(make_post, make_comment):
    """Someone typed a known commenter's e-mail address: banning them bans their IP
    address, not the e-mail address, so the owner of the address can still comment."""
    post = make_post()
    impostor = make_comment(post, author=ANON, text="Pretending", ip="203.0.113.66")
    moderation.ban_commenter(comment_id=impostor.id, editor="edith")
    assert {(e.kind, e.value) for e in blocklist.find_entries()} == {(blocklist.BAN_IP, "203.0.113.66")}
    owner = services.post_comment(post=post, text="The real Sam", author=ANON, ip="192.0.2.1")
    assert owner.comment.status == APPROVED


def test_lifting_a_ban_can_restore_what_it_changed(make_post, make_comment, settings):
    """Lifting a ban with restore gives its comments back the status each had (approved,
    pending), except one an editor has changed since; without restore they stay spam."""
    settings.COMMENTS_MODERATION = ["post"]
    post = make_post()
    one = make_comment(post, author=ANON, text="One", ip=CAFE)
    two = make_comment(post, author=ANON, text="Two", ip=CAFE)
    held = make_comment(post, author=ANON, text="Held", ip=CAFE)
    get_store().set_status(ids=[held.id], status=PENDING)
    moderation.ban_commenter(comment_id=one.id, editor="edith")
    moderation.moderate(action="delete", comment_ids=[two.id])
    entry = blocklist.find_entries(kinds=(blocklist.BAN_IP,))[0]
    assert {c.id for c in moderation.restorable_for(entry=entry)} == {one.id, held.id}
    lifted = moderation.lift_ban(entry_id=entry.id, restore=True, editor="edith")
    assert (lifted.removed, lifted.restored) == (True, 2)
    assert [status_of(c) for c in (one, two, held)] == [APPROVED, "deleted", PENDING]
    assert posts.get_by_id(post.id).comment_count == 1
    assert blocklist.find_entries(kinds=(blocklist.BAN_IP,)) == []


def test_lifting_without_restore_leaves_the_comments_as_spam(make_post, make_comment):
    post = make_post()
    one = make_comment(post, author=ANON, text="One", ip=CAFE)
    moderation.ban_commenter(comment_id=one.id, editor="edith")
    entry = blocklist.find_entries(kinds=(blocklist.BAN_IP,))[0]
    assert moderation.lift_ban(entry_id=entry.id, restore=False) == moderation.Lifted(removed=True, restored=0)
    assert status_of(one) == SPAM


def test_an_action_too_large_changes_nothing(make_post, make_comment, monkeypatch):
    post = make_post()
    chosen = [make_comment(post, text=f"C{n}") for n in range(3)]
    monkeypatch.setattr(changes, "MAX_CHANGES", 2)
    with pytest.raises(changes.TooMany):
        moderation.moderate(action="spam", comment_ids=[c.id for c in chosen])
    assert [status_of(c) for c in chosen] == [APPROVED] * 3


@pytest.mark.stores("documents")
@pytest.mark.django_db
def test_a_ban_too_large_is_refused_whole_with_a_message(make_post, make_comment, make_user, monkeypatch):
    """Through the dashboard: the editor reads why, no ban is recorded and no comment
    changes (it used to answer 500 after recording the ban)."""
    from django.test import Client

    post = make_post()
    theirs = [make_comment(post, author=ANON, text=f"Spam {n}", ip=CAFE) for n in range(3)]
    monkeypatch.setattr(changes, "MAX_CHANGES", 2)
    editor = Client()
    editor.force_login(make_user("edith", role="editor"))
    answer = editor.post("/dashboard/moderation/actions/", {"one": f"ban:{theirs[0].id}", "confirmed": "yes",
                                                             "next": "/dashboard/moderation/"}, follow=True)
    assert answer.status_code == 200 and "the most one action may change is 2" in answer.content.decode()
    assert blocklist.find_entries(kinds=blocklist.BANS) == []
    assert [status_of(c) for c in theirs] == [APPROVED] * 3


def test_repair_summaries_recomputes_every_post(make_post, make_comment, mongo_db):
    """A summary that disagrees with the comments (written by hand here) is put right,
    and so is one of a post whose comments are all gone."""
    post, emptied = make_post(), make_post()
    make_comment(post, text="Counted")
    make_comment(emptied, text="Gone")
    get_store().drop_discussion(discussion_id=emptied.id)
    mongo_db.posts.update_many({"_id": {"$in": [post.id, emptied.id]}},
                               {"$set": {"comment_count": 317, "latest_comments": []}})
    call_command("repair_summaries")
    assert posts.get_by_id(post.id).comment_count == 1
    assert [latest.excerpt for latest in posts.get_by_id(post.id).latest_comments] == ["Counted"]
    assert posts.get_by_id(emptied.id).comment_count == 0


@pytest.mark.stores("documents")
@pytest.mark.django_db
def test_a_ban_that_outruns_the_request_budget_is_not_reported_as_failed(make_post, make_comment, make_user,
                                                                         settings):
    """Through the dashboard with a tight MongoDB budget (enough to look the commenter
    up and record the ban, far too little to settle 160 posts), a ban touching every
    post: the editor is told it is recorded and being finished (303, never 503), and
    once the background loop has run every comment is spam and every count right."""
    from django.test import Client

    from comments.moderation.views import STILL_APPLYING

    many = [make_post() for _ in range(160)]
    with ThreadPoolExecutor(max_workers=8) as pool:  # each through the service, eight at a time
        theirs = list(pool.map(lambda post: make_comment(post, author=ANON, text=f"Spam on {post.slug}", ip=CAFE),
                               many))
    for post in many[:5]:
        make_comment(post, text="Kept")
    editor = Client()
    editor.force_login(make_user("edith", role="editor"))
    settings.MONGODB_REQUEST_BUDGET_MS = 600
    answer = editor.post("/dashboard/moderation/actions/", {"one": f"ban:{theirs[0].id}", "confirmed": "yes",
                                                             "next": "/dashboard/moderation/"})
    settings.MONGODB_REQUEST_BUDGET_MS = 1500
    assert answer.status_code == 303
    shown = editor.get(answer["Location"]).content.decode()
    assert "marked 160 comments as spam" in shown
    late = [post for post in many if posts.get_by_id(post.id).comment_count != (1 if post in many[:5] else 0)]
    assert late and STILL_APPLYING.split(";")[0] in shown, "the budget was not tight enough to test anything"
    changes.finish_pending(older_than=timedelta(0))
    assert all(status_of(c) == SPAM for c in theirs)
    assert [posts.get_by_id(p.id).comment_count for p in many] == [1] * 5 + [0] * 155


def test_concurrent_actions_on_the_same_comments_leave_every_summary_right(make_post, make_comment):
    """Editors approving and spamming the same comments at the same moment: neither
    fails, and every post's count and latest comments match its comments afterwards."""
    from tests.threads import at_once

    few = [make_post() for _ in range(4)]
    chosen = [make_comment(post, text=f"Disputed {n}") for n in range(3) for post in few]
    ids = [c.id for c in chosen]
    outcomes = at_once([
        lambda: moderation.moderate(action="spam", comment_ids=ids, editor="edith"),
        lambda: moderation.moderate(action="approve", comment_ids=ids, editor="bruno"),
        lambda: moderation.moderate(action="delete", comment_ids=ids[:6], editor="ines"),
    ])
    assert not [o for o in outcomes if isinstance(o, BaseException)], outcomes
    changes.finish_pending(older_than=timedelta(0))
    for post in few:
        summary = posts.get_by_id(post.id)
        assert summary.comment_count == get_store().tally_listing(discussion_id=post.id).comments
        assert [c.slug for c in summary.latest_comments] == \
            [c.slug for c in get_store().find_latest(discussion_id=post.id, limit=summaries.LATEST_COUNT)]


def test_repair_summaries_check_reports_drift_and_changes_nothing(make_post, make_comment, mongo_db):
    """--check names each post whose summary disagrees with a recount, exits 1 and
    leaves the summary as it was; after a repair it finds nothing."""
    from io import StringIO

    from django.core.management.base import CommandError

    from comments.management.commands.repair_summaries import DRIFT_FOUND

    post, right = make_post(), make_post()
    make_comment(post, text="Counted")
    make_comment(right, text="Also counted")
    mongo_db.posts.update_one({"_id": post.id}, {"$set": {"comment_count": 317}})
    out = StringIO()
    with pytest.raises(CommandError, match=DRIFT_FOUND.format(count=1, ies="y").split(";")[0]):
        call_command("repair_summaries", "--check", stdout=out)
    assert f"Post {post.id}: stored 317 comments" in out.getvalue() and str(right.id) not in out.getvalue()
    assert posts.get_by_id(post.id).comment_count == 317
    call_command("repair_summaries", stdout=StringIO())
    out = StringIO()
    call_command("repair_summaries", "--check", stdout=out)
    assert "agrees with a recount" in out.getvalue()
