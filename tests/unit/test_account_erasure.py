"""The pure parts of closing an account: the mailed code's checks, the erasure's steps
and what an erased comment keeps."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bson import ObjectId

from accounts import closing
from comments.erasure import jobs, work
from comments.records import APPROVED, DELETED, Comment, CommentAuthor

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def test_the_mailed_code_works_once_for_its_minutes():
    kept = closing.remember_code("123456", user_id=7, now=NOW)
    assert closing.check_code(kept, " 123456 ", user_id=7, now=NOW).ok
    assert closing.check_code(kept, "123456", user_id=7, now=NOW).kept is None  # used up
    assert not closing.check_code(kept, "123456", user_id=8, now=NOW).ok  # another account's
    late = closing.check_code(kept, "123456", user_id=7, now=NOW + timedelta(minutes=11))
    assert (late.ok, late.reason, late.kept) == (False, "missing", None)


def test_three_wrong_codes_end_it():
    kept = closing.remember_code("123456", user_id=7, now=NOW)
    for tries in (1, 2):
        checked = closing.check_code(kept, "654321", user_id=7, now=NOW)
        assert (checked.ok, checked.reason, checked.kept["tries"]) == (False, "wrong", tries)
        kept = checked.kept
    assert closing.check_code(kept, "654321", user_id=7, now=NOW).kept is None


def test_new_codes_are_six_digits():
    assert all(len(code) == 6 and code.isdigit() for code in (closing.new_code() for _ in range(50)))


def test_the_steps_run_in_order_and_stop_at_done():
    assert [jobs.step_after(step) for step in jobs.STEPS] == ["votes", "addresses", "done", "done"]


def test_an_erasure_shows_its_counts_and_nothing_else():
    doc = {"_id": ObjectId(), "started": NOW, "step": "votes", "user_id": 7, "emails": ["a@b.c"],
           "counts": {"comments": 3}}
    erasure = jobs.Erasure.from_doc(doc)
    assert not erasure.done and erasure.counts == {"comments": 3, "votes": 0, "subscriptions": 0, "mail": 0,
                                                   "addresses": 0}


def _comment(**fields) -> Comment:
    base = {"_id": ObjectId(), "discussion_id": ObjectId(), "slug": "a", "full_slug": "a", "thread": "a",
            "posted": NOW, "text": "", "html": "", "status": DELETED,
            "author": {"id": None, "name": "", "email": ""}}
    return Comment.from_doc({**base, **fields})


def test_a_comment_is_erased_only_when_nothing_of_its_author_is_left():
    assert work.erased(_comment())
    assert not work.erased(_comment(status=APPROVED))
    assert not work.erased(_comment(text="words"))
    assert not work.erased(_comment(ip="10.0.0.1"))
    assert not work.erased(_comment(author={"id": 7, "name": "", "email": ""}))
    assert CommentAuthor(**work.ERASED_FIELDS["author"]).id is None
