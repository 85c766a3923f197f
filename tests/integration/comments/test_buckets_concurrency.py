"""The buckets store (comments/stores/buckets.py) under real concurrency, on the server the
tests run against: threads released together by a barrier post one form many times
(also while its page rolls over), post many comments at once, and change comments
of one bucket at once. No lease: only single-document atomic writes."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from bson import ObjectId

from comments.records import PENDING, SPAM, CommentAuthor, SlugTaken
from comments.stores import bucket_writes, counters, get_store
from tests.integration.comments.test_buckets import READER, fill, new_comment, page_numbers, stored_ids
from tests.threads import at_once

BUCKETS = get_store("buckets")
ROUNDS = 3


@pytest.fixture
def bucket_store(settings, mongo_db):
    settings.COMMENTS_STORE = "buckets"
    BUCKETS.ensure_indexes(mongo_db)
    return mongo_db


def assert_buckets_sound(mongo_db, discussion_id: ObjectId) -> None:
    """Pages run 1..n, each count is its length, no slug is stored twice, and
    num_pages names the last page, or the next one once the last is past PAGE_SIZE."""
    numbers = page_numbers(mongo_db, discussion_id)
    assert numbers == list(range(1, len(numbers) + 1))
    found = list(mongo_db.comment_pages.find({"discussion_id": discussion_id}))
    for bucket in found:
        assert bucket["count"] == len(bucket["comments"])
    all_slugs = [c["slug"] for b in found for c in b["comments"]]
    assert len(all_slugs) == len(set(all_slugs))
    last = max(found, key=lambda b: b["page"])
    assert counters.state(discussion_id, store=BUCKETS).num_pages == numbers[-1] + (last["count"] > bucket_writes.PAGE_SIZE)


@pytest.mark.parametrize("before", [99, 100, 101])
def test_eight_submits_of_one_form_store_one_comment_as_the_page_rolls_over(
    bucket_store, make_post, post_at_once, before
):
    """Eight threads send the same form key at once onto a page holding 99, 100 or
    101 comments (the push that passes 100 advances num_pages while the others are
    on their way): one comment, the same slug for all, one of them not a duplicate."""
    for round_number in range(ROUNDS):
        post = make_post()
        fill(post.id, before)
        key = f"{round_number}".rjust(22, "k")
        results = post_at_once(post, times=8, form_key=key, author=READER)
        raced = [d for d in BUCKETS.iter_documents(discussion_id=post.id) if d["text"] == "Raced"]
        assert len(raced) == 1 and raced[0]["form_key"] == key
        assert {r.comment.slug for r in results} == {raced[0]["slug"]}
        assert sorted(r.duplicate for r in results) == [False] + [True] * 7
        assert_buckets_sound(bucket_store, post.id)


def test_one_slug_sent_by_eight_writers_among_sixteen_others_is_stored_once(bucket_store, make_post):
    """Onto a full page, eight writers of one slug and sixteen writers of their own
    slugs post at once: the page rolls over under them, the raced slug is stored once
    (seven writers get SlugTaken), every other comment once, and no count is lost."""
    for _ in range(ROUNDS):
        post = make_post()
        fill(post.id, 100)
        raced = new_comment(post.id, 5000)

        def send(document: dict) -> Callable[[], object]:
            fields = {k: document[k] for k in ("slug", "full_slug", "posted", "text", "html")}
            return lambda: BUCKETS.insert_comment(discussion_id=post.id, parent=None, author=READER, **fields)

        jobs = [send(raced) for _ in range(8)] + [send(new_comment(post.id, 6000 + n)) for n in range(16)]
        results = at_once(jobs)
        raced_results = results[:8]
        assert sum(isinstance(r, SlugTaken) for r in raced_results) == 7
        assert all(not isinstance(r, Exception) for r in results[8:])
        stored = list(BUCKETS.iter_documents(discussion_id=post.id))
        assert len(stored) == 100 + 1 + 16
        assert sum(d["slug"] == raced["slug"] for d in stored) == 1
        assert_buckets_sound(bucket_store, post.id)


def test_eight_writers_of_twenty_five_comments_each_lose_no_count(bucket_store, make_post):
    """200 comments from eight threads at once, over two rollovers: each bucket's
    `count` (`$inc` in the push) is its length and every comment is stored once."""
    post = make_post()
    fill(post.id, 10)

    def writer(first: int) -> Callable[[], object]:
        def run() -> None:
            for n in range(first, first + 25):
                document = new_comment(post.id, n)
                fields = {k: document[k] for k in ("slug", "full_slug", "posted", "text", "html")}
                BUCKETS.insert_comment(discussion_id=post.id, parent=None, author=READER, **fields)
        return run

    assert at_once([writer(1000 * (w + 1)) for w in range(8)]) == [None] * 8
    ids = stored_ids(bucket_store, post.id)
    assert len(ids) == len(set(ids)) == 210
    assert BUCKETS.tally_listing(discussion_id=post.id).total == 210
    assert_buckets_sound(bucket_store, post.id)


def test_changes_to_different_comments_of_one_bucket_at_once_all_land(bucket_store, make_post):
    """Sixteen threads each change another comment of the same bucket (statuses and
    flag counts through arrayFilters): no change overwrites another."""
    post = make_post()
    fill(post.id, 40)
    comments = BUCKETS.find_page(discussion_id=post.id, order="chronological", limit=40)
    jobs = [
        (lambda c=c: BUCKETS.set_status(ids=[c.id], status=SPAM)) for c in comments[:8]
    ] + [
        (lambda c=c, n=n: BUCKETS.set_flag_count(ids=[c.id], flag_count=n + 1)) for n, c in enumerate(comments[8:16])
    ]
    results = at_once(jobs)
    assert results[:8] == [1] * 8
    after = {c.id: c for c in BUCKETS.find_by_ids(ids=[c.id for c in comments])}
    assert [after[c.id].status for c in comments[:8]] == [SPAM] * 8
    assert [after[c.id].flag_count for c in comments[8:16]] == list(range(1, 9))
    assert all(after[c.id].status != SPAM and after[c.id].flag_count == 0 for c in comments[16:])
    assert BUCKETS.tally_listing(discussion_id=post.id).total == 32


def test_a_moderator_and_a_commenter_changing_one_comment_at_once_leave_one_status(bucket_store, make_post):
    """Eight threads set one comment to pending or spam at once: it ends with one of
    the two, the others of its bucket untouched."""
    post = make_post()
    fill(post.id, 5)
    target = BUCKETS.find_page(discussion_id=post.id, order="chronological", limit=1)[0]
    at_once([(lambda s=s: BUCKETS.set_status(ids=[target.id], status=s)) for s in [PENDING, SPAM] * 4])
    assert BUCKETS.find_by_id(target.id).status in (PENDING, SPAM)
    assert BUCKETS.tally_listing(discussion_id=post.id).total == 4


def test_member_comments_renamed_while_others_are_posted_keep_both(bucket_store, make_post):
    """A rename (arrayFilters on author.id) and eight new comments hit the same
    bucket at once: every comment is stored and every copy of the member renamed."""
    post = make_post()
    member = CommentAuthor(id=42, name="Old", email="m@example.com")
    for n in range(5):
        document = new_comment(post.id, n)
        fields = {k: document[k] for k in ("slug", "full_slug", "posted", "text", "html")}
        BUCKETS.insert_comment(discussion_id=post.id, parent=None, author=member, **fields)

    def post_one(n: int) -> Callable[[], object]:
        document = new_comment(post.id, 100 + n)
        fields = {k: document[k] for k in ("slug", "full_slug", "posted", "text", "html")}
        return lambda: BUCKETS.insert_comment(discussion_id=post.id, parent=None, author=READER, **fields)

    results = at_once([lambda: BUCKETS.set_author_name(author_id=42, name="New")] + [post_one(n) for n in range(8)])
    assert results[0] == 5
    stored = list(BUCKETS.iter_documents(discussion_id=post.id))
    assert len(stored) == 13
    assert [d["author"]["name"] for d in stored if d["author"]["id"] == 42] == ["New"] * 5
