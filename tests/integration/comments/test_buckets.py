"""The buckets comment store (comments/stores/buckets.py): the skip/limit walk across
buckets, page rollover with `num_pages` on the post, two writers interleaved step by
step and for real in threads, permalinks, indexes, and exports and imports of flat
documents. The shared behaviour suite runs against it through `each_store`."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from bson import ObjectId
from hypothesis import given
from hypothesis import strategies as st

from comments import slugs
from comments.records import APPROVED, PENDING, READERS, CommentAuthor, SlugTaken, Viewer, new_document
from comments.stores import bucket_writes, buckets, counters, get_store
from tests.threads import at_once, split

DOCUMENTS = get_store("documents")
BUCKETS = get_store("buckets")
READER = CommentAuthor(id=None, name="Reader", email="reader@example.com")
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def bucket_store(settings, mongo_db):
    """The buckets store in use, with its indexes."""
    settings.COMMENTS_STORE = "buckets"
    BUCKETS.ensure_indexes(mongo_db)
    return mongo_db


def new_comment(discussion_id: ObjectId, n: int, *, parent=None, status: str = APPROVED) -> dict:
    """A records.new_document for comment number `n`, posted n seconds after START."""
    posted = START + timedelta(seconds=n)
    part = slugs.derived_part(f"{discussion_id}:{n}")
    if parent is None:
        slug, full_slug = slugs.root_slugs(posted=posted, part=part)
    else:
        slug, full_slug = slugs.child_slugs(
            parent_slug=parent.slug, parent_full_slug=parent.full_slug, posted=posted, part=part
        )
    return new_document(
        discussion_id=discussion_id, parent=parent, slug=slug, full_slug=full_slug, posted=posted,
        author=READER, text=f"Comment {n}", html=f"<p>Comment {n}</p>", form_key=None, status=status, ip=None,
    )


def insert(discussion_id: ObjectId, n: int, **extra):
    """Comment number `n` through the store's insert_comment."""
    doc = new_comment(discussion_id, n, **extra)
    fields = {k: doc[k] for k in ("slug", "full_slug", "posted", "text", "html", "status")}
    return BUCKETS.insert_comment(discussion_id=discussion_id, parent=extra.get("parent"), author=READER, **fields)


def fill(discussion_id: ObjectId, how_many: int, *, first: int = 0) -> None:
    """`how_many` comments in one fast migration (whole pages, num_pages set)."""
    assert BUCKETS.insert_documents(
        documents=[new_comment(discussion_id, first + n) for n in range(how_many)]
    ) == how_many


def page_numbers(mongo_db, discussion_id: ObjectId) -> list[int]:
    return [b["page"] for b in mongo_db.comment_pages.find({"discussion_id": discussion_id}).sort("page", 1)]


def stored_ids(mongo_db, discussion_id: ObjectId) -> list[ObjectId]:
    pages = mongo_db.comment_pages.find({"discussion_id": discussion_id}).sort("page", 1)
    return [c["_id"] for b in pages for c in b["comments"]]


# --- The walk: pure arithmetic ---------------------------------------------------------


def test_the_patterns_example_takes_the_end_of_bucket_3_and_all_of_bucket_4():
    """Buckets of 100, 102, 101 and 22, skip=300, limit=50: nothing from buckets 1 and
    2, then the last 3 of bucket 3 and all 22 of bucket 4. The write-up's "2 from
    bucket 3, 48 from bucket 4" cannot be: bucket 4 holds 22 and skip=300 leaves 25."""
    assert buckets.walk(counts=[100, 102, 101, 22], skip=300, limit=50) == [(2, 98, 101), (3, 0, 22)]


def test_the_walk_stops_when_the_limit_is_spent():
    """skip=150, limit=60 over 100, 102, 101: the last 52 of bucket 2, the first 8 of 3."""
    assert buckets.walk(counts=[100, 102, 101], skip=150, limit=60) == [(1, 50, 102), (2, 0, 8)]


def test_the_walk_past_the_end_takes_nothing():
    assert buckets.walk(counts=[100, 3], skip=103, limit=10) == []
    assert buckets.walk(counts=[], skip=0, limit=10) == []
    assert buckets.walk(counts=[5], skip=0, limit=0) == []


@given(
    counts=st.lists(st.integers(min_value=0, max_value=12), max_size=8),
    skip=st.integers(min_value=0, max_value=100),
    limit=st.integers(min_value=0, max_value=100),
)
def test_the_walk_takes_what_slicing_the_concatenated_buckets_takes(counts, skip, limit):
    """Whatever the counts: the slices are exactly comments[skip:skip + limit]."""
    flat = [(b, i) for b, count in enumerate(counts) for i in range(count)]
    taken = [(b, i) for b, start, stop in buckets.walk(counts=counts, skip=skip, limit=limit)
             for i in range(start, stop)]
    assert taken == flat[skip:skip + limit]


# --- Posting: rollover, num_pages, two writers -------------------------------------------


def test_a_page_rolls_over_after_100_and_num_pages_lives_in_the_discussion_state(bucket_store, make_post):
    """The 101st comment still goes to page 1 (the push happens before the check) and
    moves num_pages to 2; the 102nd opens page 2."""
    post = make_post()
    assert counters.state(post.id, store=BUCKETS).num_pages == 1
    for n in range(bucket_writes.PAGE_SIZE):
        insert(post.id, n)
    assert counters.state(post.id, store=BUCKETS).num_pages == 1 and page_numbers(bucket_store, post.id) == [1]
    insert(post.id, 100)
    assert counters.state(post.id, store=BUCKETS).num_pages == 2
    assert bucket_store.comment_pages.find_one({"discussion_id": post.id, "page": 1})["count"] == 101
    insert(post.id, 101)
    assert page_numbers(bucket_store, post.id) == [1, 2]
    assert bucket_store.discussion_state.find_one({"_id": post.id})["num_pages"] == 2


def test_two_writers_past_a_full_page_advance_it_once(bucket_store, make_post):
    """A and B both read page 1, both push (101, 102), both try to advance: exactly
    one does, the next comment opens page 2, and no comment is lost."""
    post = make_post()
    fill(post.id, 100)
    page_a = counters.state(post.id, store=BUCKETS).num_pages
    page_b = counters.state(post.id, store=BUCKETS).num_pages
    a = bucket_writes.push_comment(discussion_id=post.id, page=page_a, document=new_comment(post.id, 100))
    b = bucket_writes.push_comment(discussion_id=post.id, page=page_b, document=new_comment(post.id, 101))
    assert (a["count"], b["count"]) == (101, 102)
    advanced = [
        bucket_writes.advance_page(discussion_id=post.id, page=page_a, count=a["count"]),
        bucket_writes.advance_page(discussion_id=post.id, page=page_b, count=b["count"]),
    ]
    assert advanced == [True, False]
    assert counters.state(post.id, store=BUCKETS).num_pages == 2
    insert(post.id, 102)
    assert page_numbers(bucket_store, post.id) == [1, 2]
    assert len(set(stored_ids(bucket_store, post.id))) == 103


def test_a_writer_late_on_a_page_another_advanced_only_overfills_it(bucket_store, make_post):
    """A pushes and advances; B, who read page 1 before, pushes there afterwards: page
    1 holds one more, B's advance does nothing, and page 3 is never skipped to."""
    post = make_post()
    fill(post.id, 100)
    page_b = counters.state(post.id, store=BUCKETS).num_pages
    a = bucket_writes.push_comment(discussion_id=post.id, page=1, document=new_comment(post.id, 100))
    assert bucket_writes.advance_page(discussion_id=post.id, page=1, count=a["count"])
    b = bucket_writes.push_comment(discussion_id=post.id, page=page_b, document=new_comment(post.id, 101))
    assert not bucket_writes.advance_page(discussion_id=post.id, page=page_b, count=b["count"])
    assert counters.state(post.id, store=BUCKETS).num_pages == 2 and b["count"] == 102


def test_two_writers_of_a_new_page_both_land_in_one_bucket(bucket_store, make_post):
    """Both push to page 2, which does not exist yet: the first creates its bucket
    under the page's own `_id`, the second finds it; one bucket per page."""
    post = make_post()
    fill(post.id, 100)
    first = bucket_writes.push_comment(discussion_id=post.id, page=2, document=new_comment(post.id, 200))
    second = bucket_writes.push_comment(discussion_id=post.id, page=2, document=new_comment(post.id, 201))
    assert (first["count"], second["count"]) == (1, 2)
    stored = list(bucket_store.comment_pages.find({"discussion_id": post.id, "page": 2}))
    assert [b["_id"] for b in stored] == [f"{post.id}/2"]


def test_sixteen_writers_creating_one_page_at_once_all_land_in_it(bucket_store, make_post):
    """Sixteen threads released together push to a page no one has created: they meet
    on the bucket's `_id` (one insert wins, the others wait for it and push), so every
    comment lands once in the one bucket and its count is its length."""
    post = make_post()
    results, errors = split(at_once([
        lambda n=n: bucket_writes.push_comment(discussion_id=post.id, page=1, document=new_comment(post.id, n))
        for n in range(16)
    ]))
    assert errors == []
    assert sorted(r["count"] for r in results) == list(range(1, 17))
    (bucket,) = bucket_store.comment_pages.find({"discussion_id": post.id})
    assert bucket["count"] == len(bucket["comments"]) == 16 and buckets.in_posting_order([bucket])


def test_a_page_created_before_pages_had_their_own_id_still_takes_pushes(bucket_store, make_post):
    """A bucket stored by the pattern's upsert has an ObjectId `_id`: pushes find it
    by `{discussion_id, page}` and never make a second bucket for the page."""
    post = make_post()
    first = new_comment(post.id, 1)
    bucket_store.comment_pages.insert_one({
        "discussion_id": post.id, "page": 1, "count": 1, "ordered": True, "first": first["posted"],
        "last": first["posted"], "comments": [{k: v for k, v in first.items() if k != "discussion_id"}],
    })
    pushed = bucket_writes.push_comment(discussion_id=post.id, page=1, document=new_comment(post.id, 2))
    assert pushed["count"] == 2
    assert bucket_store.comment_pages.count_documents({"discussion_id": post.id}) == 1
    with pytest.raises(SlugTaken):
        bucket_writes.push_comment(discussion_id=post.id, page=1, document=new_comment(post.id, 2))


def test_an_empty_page_left_by_a_writer_that_died_is_filled_and_walked(bucket_store, make_post):
    """A writer that created page 2 and died before pushing leaves an empty bucket: the
    discussion is still walked in posting order, and the next push fills the page."""
    post = make_post()
    fill(post.id, 3)
    bucket_store.comment_pages.insert_one({"_id": f"{post.id}/2", "discussion_id": post.id, "page": 2,
                                           "count": 0, "comments": [], "ordered": True})
    assert buckets.in_posting_order(heads(bucket_store, post.id))
    pushed = bucket_writes.push_comment(discussion_id=post.id, page=2, document=new_comment(post.id, 50))
    assert pushed["count"] == 1 and buckets.in_posting_order(heads(bucket_store, post.id))
    page = BUCKETS.find_page(discussion_id=post.id, order="chronological", skip=2, limit=5)
    assert [c.text for c in page] == ["Comment 2", "Comment 50"]


def test_writers_in_threads_across_a_rollover_lose_nothing_and_skip_no_page(bucket_store, make_post):
    """Two threads post 40 comments each onto a discussion of 90 (crossing two page
    boundaries): every comment is stored once, pages run 1..n without a gap, each
    page's count is its length, and num_pages names the last page."""
    post = make_post()
    fill(post.id, 90)
    errors: list[BaseException] = []

    def writer(first: int) -> None:
        try:
            for n in range(first, first + 40):
                insert(post.id, n)
        except BaseException as exc:  # noqa: BLE001 - reported by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(first,)) for first in (1000, 2000)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    ids = stored_ids(bucket_store, post.id)
    assert len(ids) == len(set(ids)) == 170
    numbers = page_numbers(bucket_store, post.id)
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 2
    for bucket in bucket_store.comment_pages.find({"discussion_id": post.id}):
        assert bucket["count"] == len(bucket["comments"])
    assert counters.state(post.id, store=BUCKETS).num_pages == numbers[-1]


def test_a_slug_used_on_an_earlier_page_is_taken(bucket_store, make_post):
    """The permalink query covers every page, not only the last one."""
    post = make_post()
    fill(post.id, 150)
    first = bucket_store.comment_pages.find_one({"discussion_id": post.id, "page": 1})["comments"][0]
    with pytest.raises(SlugTaken):
        BUCKETS.insert_comment(
            discussion_id=post.id, parent=None, slug=first["slug"], full_slug=first["full_slug"],
            posted=START, author=READER, text="Again", html="",
        )
    assert len(stored_ids(bucket_store, post.id)) == 150


def test_a_push_onto_a_page_holding_the_slug_is_taken(bucket_store, make_post):
    """push_comment refuses a slug its page has."""
    post = make_post()
    doc = new_comment(post.id, 1)
    bucket_writes.push_comment(discussion_id=post.id, page=1, document=doc)
    with pytest.raises(SlugTaken):
        bucket_writes.push_comment(discussion_id=post.id, page=1, document={**doc, "_id": ObjectId()})


def test_a_form_sent_again_after_its_page_rolled_over_goes_to_the_claimed_page(bucket_store, make_post):
    """Writer A claims the slug on page 1 and has not pushed yet; page 1 fills and
    num_pages moves to 2; writer B of the same slug pushes to page 1, the claimed
    page, not 2; A's push then finds the slug there: one comment."""
    post = make_post()
    fill(post.id, 99)
    raced = new_comment(post.id, 7000)
    assert bucket_writes.claim_page(discussion_id=post.id, slug=raced["slug"], page=1) == 1  # writer A
    insert(post.id, 100)
    insert(post.id, 101)
    assert counters.state(post.id, store=BUCKETS).num_pages == 2
    fields = {k: raced[k] for k in ("slug", "full_slug", "posted", "text", "html")}
    b = BUCKETS.insert_comment(discussion_id=post.id, parent=None, author=READER, **fields)  # writer B
    with pytest.raises(SlugTaken):
        bucket_writes.push_comment(discussion_id=post.id, page=1, document=raced)  # writer A, late
    assert bucket_store.comment_pages.find_one({"comments.slug": raced["slug"]})["page"] == 1
    assert [c["_id"] for c in bucket_store.comment_pages.find_one({"page": 1})["comments"]].count(b.id) == 1
    assert sum(d["slug"] == raced["slug"] for d in BUCKETS.iter_documents(discussion_id=post.id)) == 1


def test_a_claim_left_by_a_writer_that_died_does_not_block_the_form(bucket_store, make_post):
    """A claim without its comment (the claimer died before pushing): the form sent
    again stores its comment in the claimed page, once."""
    post = make_post()
    raced = new_comment(post.id, 1)
    bucket_writes.claim_page(discussion_id=post.id, slug=raced["slug"], page=1)
    fields = {k: raced[k] for k in ("slug", "full_slug", "posted", "text", "html")}
    stored = BUCKETS.insert_comment(discussion_id=post.id, parent=None, author=READER, **fields)
    assert BUCKETS.find_by_slug(discussion_id=post.id, slug=raced["slug"]) == stored
    with pytest.raises(SlugTaken):
        BUCKETS.insert_comment(discussion_id=post.id, parent=None, author=READER, **fields)


def test_a_claim_names_the_first_claimers_page_only(bucket_store, make_post):
    """The first claim of a slug keeps its page; later claims are told that page."""
    post = make_post()
    assert bucket_writes.claim_page(discussion_id=post.id, slug="abcdefgh", page=3) == 3
    assert bucket_writes.claim_page(discussion_id=post.id, slug="abcdefgh", page=4) == 3
    assert bucket_writes.claim_page(discussion_id=ObjectId(), slug="abcdefgh", page=4) == 4


# --- Reading -------------------------------------------------------------------------------


def test_a_permalink_finds_a_reply_inside_a_later_bucket(bucket_store, make_post):
    """find_by_slug goes through comments.slug to the bucket, then into it."""
    post = make_post()
    fill(post.id, 120)
    root = BUCKETS.find_by_slug(discussion_id=post.id, slug=new_comment(post.id, 3)["slug"])
    reply = insert(post.id, 500, parent=root)
    found = BUCKETS.find_by_slug(discussion_id=post.id, slug=reply.slug)
    assert found == reply and found.slug.startswith(root.slug + "/")
    assert bucket_store.comment_pages.find_one({"comments.slug": reply.slug})["page"] == 2
    assert BUCKETS.find_by_slug(discussion_id=post.id, slug="nosuchsl") is None
    assert BUCKETS.find_by_slug(discussion_id=ObjectId(), slug=reply.slug) is None


def heads(mongo_db, discussion_id: ObjectId) -> list[dict]:
    return list(mongo_db.comment_pages.find({"discussion_id": discussion_id}, buckets.HEAD_FIELDS).sort("page", 1))


def test_a_chronological_page_by_position_reads_only_its_buckets(bucket_store, make_post, commands):
    """Comments in posting order: skip=95, limit=10 reads the bucket heads, checks
    that nothing is hidden, then cuts the end of page 1 and the start of page 2 with
    `$slice` projections."""
    post = make_post()
    fill(post.id, 250)
    assert buckets.in_posting_order(heads(bucket_store, post.id))
    commands.reset()
    page = BUCKETS.find_page(discussion_id=post.id, order="chronological", skip=95, limit=10)
    assert [c.text for c in page] == [f"Comment {n}" for n in range(95, 105)]
    assert commands.names == ["find", "find", "find", "find"]


def test_comments_posted_in_order_keep_their_buckets_ordered(bucket_store, make_post):
    """Pushes in posting order across a rollover leave every bucket `ordered`, with
    `first` and `last` its oldest and newest comment."""
    post = make_post()
    for n in range(bucket_writes.PAGE_SIZE + 5):
        insert(post.id, n)
    found = heads(bucket_store, post.id)
    assert [h["page"] for h in found] == [1, 2] and buckets.in_posting_order(found)
    assert found[1]["first"] == START + timedelta(seconds=bucket_writes.PAGE_SIZE + 1)
    assert found[1]["last"] == START + timedelta(seconds=bucket_writes.PAGE_SIZE + 4)


def test_comments_pushed_out_of_posting_order_are_kept_in_posting_order(bucket_store, make_post):
    """A comment stamped earlier than those before it is sorted into place by the
    push (`$sort`), so the bucket stays ordered and the walk stays exact."""
    post = make_post()
    for n in (5, 1, 9, 3):
        insert(post.id, n)
    stored = bucket_store.comment_pages.find_one({"discussion_id": post.id})
    assert [c["text"] for c in stored["comments"]] == ["Comment 1", "Comment 3", "Comment 5", "Comment 9"]
    assert buckets.in_posting_order(heads(bucket_store, post.id))
    page = BUCKETS.find_page(discussion_id=post.id, order="chronological", skip=1, limit=2)
    assert [c.text for c in page] == ["Comment 3", "Comment 5"]


def test_a_bucket_stored_without_the_ordered_marker_is_never_walked(bucket_store, make_post):
    """A bucket written before the marker existed may be in any order: the page comes
    from the aggregation, in (posted, _id) order."""
    post = make_post()
    documents_in_push_order = [new_comment(post.id, n) for n in (5, 1, 9, 3)]
    bucket_store.comment_pages.insert_one({
        "discussion_id": post.id, "page": 1, "count": 4,
        "comments": [{k: v for k, v in d.items() if k != "discussion_id"} for d in documents_in_push_order],
    })
    assert not buckets.in_posting_order(heads(bucket_store, post.id))
    page = BUCKETS.find_page(discussion_id=post.id, order="chronological", skip=1, limit=2)
    assert [c.text for c in page] == ["Comment 3", "Comment 5"]


def test_a_late_comment_on_an_earlier_page_stops_the_walk(bucket_store, make_post):
    """Page 1 taking a comment newer than page 2's first breaks the order across
    buckets, though each bucket is ordered: the walk would put it between comments
    99 and 100, the aggregation puts it last."""
    post = make_post()
    fill(post.id, 150)
    bucket_writes.push_comment(discussion_id=post.id, page=1, document=new_comment(post.id, 500))
    assert bucket_store.comment_pages.find_one({"discussion_id": post.id, "page": 1})["ordered"] is True
    assert not buckets.in_posting_order(heads(bucket_store, post.id))
    page = BUCKETS.find_page(discussion_id=post.id, order="chronological", skip=98, limit=4)
    assert [c.text for c in page] == ["Comment 98", "Comment 99", "Comment 100", "Comment 101"]
    last = BUCKETS.find_page(discussion_id=post.id, order="chronological", skip=150, limit=4)
    assert [c.text for c in last] == ["Comment 500"]


def test_a_pending_comment_is_skipped_for_readers_and_listed_for_editors(bucket_store, make_post):
    """The viewer filter applies to bucket listings too (no walk past hidden ones)."""
    post = make_post()
    insert(post.id, 1)
    insert(post.id, 2, status=PENDING)
    insert(post.id, 3)
    readers = BUCKETS.find_page(discussion_id=post.id, order="chronological", limit=10)
    editors = BUCKETS.find_page(discussion_id=post.id, order="chronological", limit=10, viewer=Viewer(editor=True))
    assert [c.text for c in readers] == ["Comment 1", "Comment 3"]
    assert [c.text for c in editors] == ["Comment 1", "Comment 2", "Comment 3"]
    assert BUCKETS.tally_listing(discussion_id=post.id).total == 2 and BUCKETS.count_approved(discussion_id=post.id) == 2


def test_every_view_and_cursor_matches_the_documents_store(bucket_store, mongo_db, make_post):
    """The same comments (out of posting order, threaded, some hidden) in both
    stores give the same pages in every order, by position and by key."""
    post = make_post()
    roots = [insert(post.id, n) for n in (4, 1, 7)]
    replies = [insert(post.id, 10 + n, parent=roots[n % 3]) for n in range(6)]
    insert(post.id, 30, parent=replies[0], status=PENDING)
    fill(post.id, 130, first=100)
    DOCUMENTS.insert_documents(documents=list(BUCKETS.iter_documents(discussion_id=post.id)))
    for order in ("threaded", "chronological", "newest"):
        for viewer in (READERS, Viewer(editor=True)):
            for skip in (0, 3, 100, 137):
                query = {"discussion_id": post.id, "order": order, "limit": 7, "skip": skip, "viewer": viewer}
                expected = DOCUMENTS.find_page(**query)
                assert BUCKETS.find_page(**query) == expected
            key = expected[0].key(order) if expected else None
            if key:
                for side in ("after", "before"):
                    query = dict(discussion_id=post.id, order=order, limit=5, viewer=viewer, **{side: key})
                    assert BUCKETS.find_page(**query) == DOCUMENTS.find_page(**query)
            assert BUCKETS.tally_listing(discussion_id=post.id, viewer=viewer) == DOCUMENTS.tally_listing(
                discussion_id=post.id, viewer=viewer)


# --- Indexes, export and import ------------------------------------------------------------


def test_the_indexes_exist_and_only_the_page_index_is_unique(bucket_store):
    info = bucket_store.comment_pages.index_information()
    keys = {tuple(k for k, _ in spec["key"]): spec.get("unique", False) for spec in info.values()}
    assert keys[("discussion_id", "page")] is True
    assert keys[("discussion_id", "comments.slug")] is False
    for field in ("comments._id", "comments.status", "comments.author.id", "comments.author.email", "comments.ip"):
        assert keys[(field,)] is False


def test_an_export_imported_again_is_the_same_documents(bucket_store, make_post):
    """iter_documents gives flat documents in posting order; dropping the discussion
    and inserting them back restores the same documents, pages and num_pages, and a
    second insert adds nothing."""
    post = make_post()
    fill(post.id, 200)
    root = insert(post.id, 300)
    for n in range(301, 305):
        insert(post.id, n, parent=root)
    exported = list(BUCKETS.iter_documents(discussion_id=post.id))
    assert len(exported) == 205 and all(d["discussion_id"] == post.id for d in exported)
    assert [d["posted"] for d in exported] == sorted(d["posted"] for d in exported)
    assert BUCKETS.discussion_ids() == [post.id]
    assert bucket_store.comment_claims.count_documents({"discussion_id": post.id}) == 5
    assert BUCKETS.drop_discussion(discussion_id=post.id) == 205
    assert bucket_store.comment_claims.count_documents({"discussion_id": post.id}) == 0
    assert BUCKETS.discussion_ids() == [] and counters.state(post.id, store=BUCKETS).num_pages == 1
    assert BUCKETS.insert_documents(documents=exported) == 205
    assert list(BUCKETS.iter_documents(discussion_id=post.id)) == exported
    assert page_numbers(bucket_store, post.id) == [1, 2, 3]
    assert counters.state(post.id, store=BUCKETS).num_pages == 3
    assert BUCKETS.insert_documents(documents=exported) == 0
    insert(post.id, 999)
    assert len(stored_ids(bucket_store, post.id)) == 206 and page_numbers(bucket_store, post.id) == [1, 2, 3]


def test_documents_imported_into_a_discussion_with_comments_fill_its_last_page(bucket_store, make_post):
    """New documents top up the last page to 100, then open new pages; slugs the
    discussion has are skipped."""
    post = make_post()
    fill(post.id, 60)
    more = [new_comment(post.id, n) for n in range(50, 160)]  # 10 slugs it has, 100 new
    assert BUCKETS.insert_documents(documents=more) == 100
    counts = [b["count"] for b in bucket_store.comment_pages.find({"discussion_id": post.id}).sort("page", 1)]
    assert counts == [100, 60] and counters.state(post.id, store=BUCKETS).num_pages == 2


def test_concurrent_submits_of_one_form_store_one_comment_even_on_a_full_page(
    bucket_store, make_post, post_at_once
):
    """Four threads posting the same form key at once onto a page about to roll over
    leave exactly one comment (tests/integration/comments/test_buckets_concurrency.py races eight)."""
    post = make_post()
    fill(post.id, 100)
    results = post_at_once(post, times=4, form_key="k" * 22, author=READER)
    raced = [d for d in BUCKETS.iter_documents(discussion_id=post.id) if d["text"] == "Raced"]
    assert len(raced) == 1 and len({r.comment.slug for r in results}) == 1
    assert sorted(r.duplicate for r in results) == [False, True, True, True]
