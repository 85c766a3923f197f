"""The comment stores behind one interface (comments/stores/): get_store() and the one
owner of which store is in use, writes frozen during a migration, the Python half of
a `Query` (what the embedded store applies) checked against the MongoDB half (the
documents store's indexed queries), moving comments between stores
(comments/transfer/migration.py, comments_migrate), and the documents store with the posting
service against the real server (indexes, slugs, orders, pages, counts, depth)."""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from io import StringIO

import pytest
from bson import ObjectId
from django.core.management import CommandError, call_command
from pymongo.errors import DuplicateKeyError

from cms import posts
from comments import records, slugs
from comments.benchmark import discussion_documents
from comments.posting import services
from comments.posting.services import PARENT_NOT_FOUND, CommentError
from comments.records import DELETED, ORDERS, PENDING, RANKED_ORDERS, SPAM, Comment, CommentAuthor, QueueFilter, Viewer
from comments.stores import CommentStore, Query, get_store, store_switch, summaries
from comments.stores.containers import in_python, tally_of
from comments.transfer import migration
from comments.votes import collection as votes
from infra.mongo import get_db
from tests.page_reading import discussion_url, page, permalink_url, post_url, submit

BASE = datetime(2026, 2, 1, 8, 0, tzinfo=timezone.utc)
ROSA = CommentAuthor(id=None, name="Rosa", email="Rosa@Example.com")
MEMBER = CommentAuthor(id=7, name="Ada", email="ada@example.com")
EDITOR = Viewer(user_id=99, editor=True)


# --- One interface ----------------------------------------------------------------------


def test_an_unknown_store_name_is_refused_with_the_known_names(settings):
    """COMMENTS_STORE must name a store; the error lists the three."""
    settings.COMMENTS_STORE = "scrolls"
    with pytest.raises(ValueError, match="documents, embedded, buckets"):
        get_store()


def test_each_store_is_one_instance_like_django_s_caches():
    """get_store(name) gives the same object every time; each is a CommentStore of that name."""
    for name in ("documents", "embedded", "buckets"):
        assert get_store(name) is get_store(name)
        assert isinstance(get_store(name), CommentStore) and get_store(name).name == name


def test_the_setting_names_the_store_in_use_until_a_switch_is_recorded(settings):
    """COMMENTS_STORE picks the store; a switch recorded by comments_migrate wins."""
    settings.COMMENTS_STORE = "documents"
    assert get_store() is get_store("documents")
    store_switch.switch(target="buckets")
    assert get_store() is get_store("buckets")
    assert store_switch.in_use() == "buckets"


def test_writes_are_refused_while_a_migration_is_frozen_and_reads_go_on(make_post, make_comment):
    """During a migration's last pass a write raises Moving (an outage: 503), a read works."""
    post = make_post()
    comment = make_comment(post)
    store_switch.freeze(source="documents", target="buckets")
    assert get_store().find_by_id(comment.id) == comment
    for write in (
        lambda: get_store().set_status(ids=[comment.id], status=SPAM),
        lambda: get_store().insert_documents(documents=[{"discussion_id": post.id}]),
        lambda: get_store().drop_discussion(discussion_id=post.id),
        lambda: get_store().set_author_name(author_id=1, name="Someone"),
    ):
        with pytest.raises(store_switch.Moving, match=store_switch.MOVING):
            write()
    assert get_store().find_by_id(comment.id) == comment


def test_a_writer_that_chose_the_store_before_a_switch_is_refused_after_it(make_post, make_comment):
    """A request that took the store in use during the last pass and writes once the
    switch is recorded gets Moving (a 503 it may retry), not a write into the old
    store after its last copy."""
    post = make_post()
    comment = make_comment(post)
    store_switch.freeze(source="documents", target="buckets")
    chosen = get_store()
    store_switch.switch(target="buckets")
    with pytest.raises(store_switch.Moving, match=store_switch.MOVING):
        chosen.set_status(ids=[comment.id], status=SPAM)
    assert get_store("documents").find_by_id(comment.id).status == records.APPROVED


def test_the_migration_s_target_takes_writes_while_the_source_is_frozen(make_post, make_comment):
    """Freezing is the frozen store's: the last pass still copies into its target."""
    post = make_post()
    comment = make_comment(post)
    documents = list(get_store("documents").iter_documents(discussion_id=post.id))
    store_switch.freeze(source="documents", target="buckets")
    assert get_store("buckets").insert_documents(documents=documents) == 1
    assert get_store("buckets").find_by_id(comment.id) == comment


# --- A Query's Python ordering, cursors and slices agree with the server's -------------------
# (Which comments a Query selects is one MongoDB filter, evaluated in Python by
# infra/matching.py: tests/integration/infra/test_matching_server.py compares the two.)


class InPython(CommentStore):
    """The comments given, selected by `Query.matches` and ordered, paged and
    counted in Python (what the embedded store does with the comments it unpacks);
    read only."""

    name = "in python"

    def __init__(self, comments: list[Comment]):
        self.comments = comments

    def find(self, query: Query) -> list[Comment]:
        return in_python(self.comments, query)

    def tally(self, query: Query) -> records.Tally:
        return tally_of(self.comments, query)

    def ensure_indexes(self, db):
        raise NotImplementedError

    def _insert(self, *, document, parent):
        raise NotImplementedError

    def _change(self, query, *, fields, majority=False):
        raise NotImplementedError

    def _transition(self, *, comment, expect, fields):
        raise NotImplementedError

    def _increment(self, *, comment, up, down):
        raise NotImplementedError

    def iter_documents(self, *, discussion_id=None, batch_size=500) -> Iterator[dict]:
        raise NotImplementedError

    def _insert_documents(self, *, documents):
        raise NotImplementedError

    def discussion_ids(self):
        raise NotImplementedError

    def _drop_discussion(self, *, discussion_id):
        raise NotImplementedError

    def find_member_authors(self):
        raise NotImplementedError


@pytest.fixture
def mixed(make_post, make_comment):
    """A discussion with replies, two comments in the same millisecond, and every
    status: a pending one, a spam one, a deleted one that has an approved reply
    (a placeholder) and a member's pending reply."""
    post = make_post()
    made = {}
    made["a"] = make_comment(post, text="a", at=BASE)
    made["b"] = make_comment(post, text="b", at=BASE + timedelta(minutes=1))
    made["a1"] = make_comment(post, text="a1", parent_slug=made["a"].slug, at=BASE + timedelta(minutes=2))
    made["a1x"] = make_comment(post, text="a1x", parent_slug=made["a1"].slug, at=BASE + timedelta(minutes=3))
    made["c"] = make_comment(post, text="c", at=BASE + timedelta(minutes=3))
    made["b1"] = make_comment(post, text="b1", parent_slug=made["b"].slug, at=BASE + timedelta(minutes=4),
                              author=MEMBER)
    made["d"] = make_comment(post, text="d", at=BASE + timedelta(minutes=5))
    made["e"] = make_comment(post, text="e", at=BASE + timedelta(minutes=6))
    get_store().set_status(ids=[made["c"].id, made["b1"].id], status=PENDING)
    get_store().set_status(ids=[made["d"].id], status=SPAM)
    get_store().set_status(ids=[made["a1"].id], status=DELETED)
    get_store().set_placeholder(ids=[made["a1"].id], placeholder=True)
    get_store().set_flag_count(ids=[made["e"].id], flag_count=2)
    everything = [get_store().find_by_id(c.id) for c in made.values()]
    return post, {c.text: c for c in everything}


VIEWERS = [
    records.READERS,
    EDITOR,
    Viewer(user_id=MEMBER.id),
    Viewer(own=frozenset()),
]


def test_listing_pages_agree_with_the_documents_stores_queries(mixed):
    """Every order, viewer, page size, cursor and sub-thread gives the same comments."""
    post, made = mixed
    ours, theirs = InPython(list(made.values())), get_store("documents")
    viewers = VIEWERS + [Viewer(own=frozenset({made["c"].id}))]
    for order in ORDERS:
        for viewer in viewers:
            for below in (None, made["a"]):
                where = {"discussion_id": post.id, "order": order, "below": below, "viewer": viewer}
                every = theirs.find_page(**where, limit=100)
                assert ours.find_page(**where, limit=100) == every, (order, viewer, below)
                for skip in range(len(every) + 1):
                    assert ours.find_page(**where, limit=2, skip=skip) == every[skip:skip + 2]
                for i, comment in enumerate(every):
                    key = comment.key(order)
                    assert ours.find_page(**where, limit=2, after=key) == every[i + 1:i + 3]
                    assert ours.find_page(**where, limit=2, before=key) == every[max(0, i - 2):i]
                    assert ours.count_before(**where, key=key) == i == theirs.count_before(**where, key=key)
                listing = {"discussion_id": post.id, "below": below, "viewer": viewer}
                assert ours.tally_listing(**listing) == theirs.tally_listing(**listing)


@pytest.mark.parametrize("name", ["documents", "embedded", "buckets"])
def test_a_whole_listing_s_slugs_are_the_whole_listing_s_in_every_store(name, mixed, mongo_db):
    """`list_slugs` (what `comments_migrate` checks every view by) lists the slugs
    `find_page` with no limit lists, for every order and viewer, hidden comments,
    placeholders and a member's own pending reply included."""
    post, made = mixed
    store = get_store(name)
    store.ensure_indexes(mongo_db)
    if name != "documents":
        migration.copy_discussion(get_store("documents"), store, post.id)
    seen = set()
    for order in ORDERS:
        for viewer in VIEWERS + [Viewer(own=frozenset({made["c"].id}))]:
            listed = store.list_slugs(discussion_id=post.id, order=order, viewer=viewer)
            assert listed == [c.slug for c in store.find_page(discussion_id=post.id, order=order, limit=None,
                                                              viewer=viewer)], (order, viewer)
            seen.add(tuple(sorted(listed)))
    assert len(seen) == 4, "the viewers see different comments"


def test_ranked_roots_and_threads_agree_with_the_documents_stores_queries(mixed):
    """The best and top views' queries (top-level comments in rank order, by ids, the
    comments of some threads) select and order the same in Python as on the server."""
    post, made = mixed
    votes.cast(comment=made["b"], voter="b:1", vote="up")
    votes.cast(comment=made["e"], voter="b:1", vote="down")
    get_store().set_picked(comment=made["a"], picked=True)
    everything = [get_store().find_by_id(c.id) for c in made.values()]
    ours, theirs = InPython(everything), get_store("documents")
    for view in RANKED_ORDERS:
        for viewer in VIEWERS:
            where = {"discussion_id": post.id, "view": view, "viewer": viewer}
            every = theirs.find_ranked_roots(**where)
            assert ours.find_ranked_roots(**where) == every and every, (view, viewer)
            assert ours.find_ranked_roots(**where, limit=2) == every[:2]
            chosen = [c.id for c in every[1:]]
            assert ours.find_ranked_roots(**where, ids=chosen) == theirs.find_ranked_roots(**where, ids=chosen)
    threads = {made["a"].thread, made["b"].thread}
    assert ours.find_threads(discussion_id=post.id, threads=threads) == theirs.find_threads(
        discussion_id=post.id, threads=threads)
    assert [c.slug for c in theirs.find_ranked_roots(discussion_id=post.id, view="best")][:2] == [
        made["a"].slug, made["b"].slug]


def test_latest_subthread_and_duplicates_agree_with_the_documents_store(mixed):
    post, made = mixed
    ours, theirs = InPython(list(made.values())), get_store("documents")
    assert ours.find_latest(discussion_id=post.id, limit=3) == theirs.find_latest(discussion_id=post.id, limit=3)
    assert ours.count_approved(discussion_id=post.id) == theirs.count_approved(discussion_id=post.id) == 4
    for comment in made.values():
        assert ours.find_subthread(comment=comment) == theirs.find_subthread(comment=comment)
        assert ours.has_approved_reply(comment=comment) == theirs.has_approved_reply(comment=comment)
        assert ours.find_ancestors(comment=comment) == theirs.find_ancestors(comment=comment)
    a = made["a"]
    for since in (BASE - timedelta(days=1), BASE + timedelta(seconds=1)):
        duplicate = {"discussion_id": post.id, "parent_id": None, "author": ROSA, "ip": a.ip, "text": "a",
                     "since": since}
        assert ours.find_duplicate(**duplicate) == theirs.find_duplicate(**duplicate)


@pytest.mark.parametrize("tab", records.QUEUE_TABS)
def test_queue_predicates_agree_with_the_documents_stores_queue_queries(mixed, make_post, make_comment, tab):
    """Each tab and filter lists the same comments in the same order."""
    post, made = mixed
    other = make_post()
    make_comment(other, text="elsewhere", author=MEMBER)
    theirs = get_store("documents")
    ours = InPython(theirs.find_queue(tab="recent", filters=QueueFilter(), skip=0, limit=100))
    for filters in (QueueFilter(), QueueFilter(discussion_id=post.id), QueueFilter(name="ros"),
                    QueueFilter(email="rosa@EXAMPLE.com"), QueueFilter(ip="203.0.113.9"), QueueFilter(name="ADA")):
        expected = theirs.find_queue(tab=tab, filters=filters, skip=0, limit=100)
        assert ours.find_queue(tab=tab, filters=filters, skip=0, limit=100) == expected, filters
        assert ours.find_queue(tab=tab, filters=filters, skip=1, limit=2) == expected[1:3], filters
        assert len(expected) == theirs.count_queue(tab=tab, filters=filters) == ours.count_queue(
            tab=tab, filters=filters)


def test_a_commenter_needs_something_to_match():
    with pytest.raises(ValueError):
        records.by_commenter(ips=[""])


# --- Moving comments between stores --------------------------------------------------------


def views_of(client, post) -> dict[str, list]:
    """What readers see of a post's comments: every view's pages and each permalink."""
    seen = {}
    for view in ORDERS:
        url = f"{discussion_url(post)}?view={view}"
        shown = page(client.get(url))
        seen[view] = [(c["slug"], c["text"]) for c in shown.comments]
    seen["post"] = [(c["slug"], c["text"]) for c in page(client.get(post_url(post))).comments]
    for slug, _ in seen["threaded"]:
        seen[slug] = [(c["slug"], c["text"]) for c in page(client.get(permalink_url(post, slug))).comments]
    return seen


def run_migrate(*args, err: StringIO | None = None) -> str:
    out = StringIO()
    call_command("comments_migrate", *args, "--no-progress", stdout=out, stderr=err or StringIO())
    return out.getvalue()


@pytest.fixture
def no_grace(settings):
    """The last pass waits COMMENTS_STORE_RECHECK_SECONDS for every process; the test
    is the only process."""
    settings.COMMENTS_STORE_RECHECK_SECONDS = 0


def test_migrating_through_every_store_keeps_every_page_identical(mixed, make_post, make_comment, client, no_grace):
    """documents → embedded → buckets → documents: every view, for readers, is the same."""
    post, made = mixed
    second = make_post()
    for i in range(3):
        make_comment(second, text=f"second {i}", at=BASE + timedelta(hours=i))
    before = {p.slug: views_of(client, p) for p in (post, second)}
    for target in ("embedded", "buckets", "documents"):
        source = store_switch.in_use()
        out = run_migrate("--to", target)
        assert store_switch.in_use() == target
        assert f"from {source} to {target}" in out and "of 2 discussions" in out
        assert {p.slug: views_of(client, p) for p in (post, second)} == before, target


def test_an_interrupted_migration_resumes_and_switches_only_at_the_end(make_post, make_comment, no_grace):
    """A run stopped half-way has switched nothing; the next run skips what was verified."""
    made = [make_post() for _ in range(3)]
    for post in made:
        make_comment(post)

    class Stop(Exception):
        pass

    done = []

    def stop_after_two(n):
        done.append(n)
        if len(done) == 2:
            raise Stop

    with pytest.raises(Stop):
        migration.migrate(target="buckets", progress=stop_after_two)
    assert store_switch.recorded() is None, "the setting still names the store in use"
    assert store_switch.in_use() == "documents"
    report = migration.migrate(target="buckets")
    assert (report.copied, report.resumed, report.comments) == (1, 2, 3)
    assert store_switch.in_use() == "buckets"


def test_a_copy_that_does_not_verify_switches_nothing(make_post, make_comment, monkeypatch, no_grace):
    """If the target lost a comment, the command fails naming the discussion; the site stays."""
    post = make_post()
    make_comment(post)
    make_comment(post)
    embedded = get_store("embedded")
    real = embedded.insert_documents
    monkeypatch.setattr(embedded, "insert_documents", lambda *, documents: real(documents=documents[1:]))
    with pytest.raises(CommandError, match=f"Discussion {post.id}: counts"):
        run_migrate("--to", "embedded")
    assert store_switch.in_use() == "documents"
    assert get_store("documents").count_approved(discussion_id=post.id) == 2


def test_the_command_says_when_writes_pause_for_the_last_pass_and_for_how_long(make_post, make_comment, no_grace):
    make_comment(make_post())
    err = StringIO()
    out = run_migrate("--to", "buckets", err=err)
    assert "Last pass: comment writes are paused" in err.getvalue()
    paused = re.search(r"comment writes were paused for (\d+\.\d) s\.", out)
    assert paused, out


def test_migrating_to_the_store_in_use_is_refused(no_grace):
    with pytest.raises(CommandError, match="already in the 'documents' store"):
        run_migrate("--to", "documents")


def test_comments_posted_while_migrating_are_copied_in_the_last_pass(make_post, make_comment, no_grace):
    """A discussion that changes after its copy (or gets its first comment) is copied again."""
    early, late = make_post(), make_post()
    make_comment(early, text="first")

    def post_more(n):
        make_comment(early, text="while moving")
        make_comment(late, text="new discussion")

    report = migration.migrate(target="embedded", progress=post_more)
    assert report.recopied == 2
    assert [c.text for c in get_store().find_page(discussion_id=early.id, order="chronological", limit=9)] == [
        "first", "while moving"]
    assert [c.text for c in get_store().find_page(discussion_id=late.id, order="chronological", limit=9)] == [
        "new discussion"]


def test_the_last_pass_lists_again_only_the_discussions_changed_since_their_views_were_checked(
    make_post, make_comment, monkeypatch, no_grace,
):
    """The target's views are listed once per copy (the source's are worked out from
    the copied comments); while writes are paused, a discussion still holding exactly
    the comments its views were verified on has its comments compared, not its views
    listed again; one that changed after its copy is copied and listed again."""
    quiet, changed = make_post(), make_post()
    for post in (quiet, changed):
        make_comment(post, text="first")
        make_comment(post, text="second")
    listed: list[tuple[str, ObjectId]] = []
    real = migration.listings
    monkeypatch.setattr(migration, "listings", lambda store, discussion_id: (
        listed.append((store.name, discussion_id)), real(store, discussion_id))[1])
    frozen_at: list[int] = []
    changed_once: list = []  # the two copies run at once: the first to finish may see both listed

    def post_after_both_copies(n):
        if len(listed) == 2 and not changed_once:  # both copies' views listed
            changed_once.append(make_comment(changed, text="while moving"))

    report = migration.migrate(target="buckets", progress=post_after_both_copies,
                               last_pass=lambda: frozen_at.append(len(listed)))
    assert sorted(listed[:frozen_at[0]]) == sorted([("buckets", quiet.id), ("buckets", changed.id)])
    assert listed[frozen_at[0]:] == [("buckets", changed.id)]
    assert report.recopied == 1 and report.comments == 5
    assert report.paused_seconds >= store_switch.grace_seconds()  # the wait for every process included
    assert [c.text for c in get_store().find_page(discussion_id=changed.id, order="chronological", limit=9)] == [
        "first", "second", "while moving"]


def test_discussions_are_copied_workers_at_a_time_and_recorded_as_each_is_done(make_post, make_comment,
                                                                                 monkeypatch, no_grace):
    """`workers` discussions are copied at once, each in a thread (two copies meet at a
    barrier, which one worker would never reach), never more; each is recorded as
    verified, and counted, in the caller's thread, before `progress` hears of it."""
    made = [make_post() for _ in range(5)]
    for post in made:
        make_comment(post)
    meeting = threading.Barrier(2, timeout=10)
    lock, running, most = threading.Lock(), [0], [0]
    real = migration.copy_discussion

    def copy(source, target, discussion_id):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        try:
            if discussion_id == made[0].id or discussion_id == made[1].id:
                meeting.wait()  # the first two copies are under way together
            return real(source, target, discussion_id)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(migration, "copy_discussion", copy)
    heard: list[tuple[str, int]] = []  # (the thread progress was told in, the copies recorded by then)

    def progress(n):
        heard.append((threading.current_thread().name, get_db().comment_migrations.count_documents({})))

    report = migration.migrate(target="buckets", progress=progress, workers=2)
    assert most[0] == 2, "two copies at most, and two at once"
    assert [name for name, _ in heard] == [threading.main_thread().name] * 5
    assert [count for _, count in heard] == [1, 2, 3, 4, 5], "each recorded before progress hears of it"
    assert (report.copied, report.comments) == (5, 5)


def test_comments_migrate_takes_the_number_of_workers_and_refuses_one_it_cannot_use(make_post, make_comment,
                                                                                  monkeypatch, no_grace):
    make_comment(make_post())
    for wrong in ("0", "-1", "two", "33"):
        with pytest.raises(CommandError, match="a whole number from 1 to 32"):
            run_migrate("--to", "buckets", "--workers", wrong)
    assert store_switch.in_use() == "documents"
    asked: list[int] = []
    real = migration.in_threads
    monkeypatch.setattr(migration, "in_threads", lambda work, ids, workers: (
        asked.append(workers), real(work, ids, workers))[1])
    assert "Moved 1 comments of 1 discussions" in run_migrate("--to", "buckets", "--workers", "3")
    assert asked == [3, 3] and store_switch.in_use() == "buckets"  # the copies, then the last pass


def test_views_are_compared_unless_they_were_checked_on_exactly_these_comments(make_post, make_comment,
                                                                                monkeypatch):
    """A store that lists the same comments in another order is found out, unless the
    fingerprint given is that of the very comments both stores hold (their views were
    verified on them already)."""
    post = make_post()
    for text in ("one", "two", "three"):
        make_comment(post, text=text)
    source, target = get_store("documents"), get_store("buckets")
    migration.copy_discussion(source, target, post.id)
    assert migration.differences(source, target, post.id) == []
    real = target.list_slugs
    monkeypatch.setattr(target, "list_slugs", lambda **kwargs: list(reversed(real(**kwargs))))
    found = migration.differences(source, target, post.id)
    assert found and all("view" in what for what in found)
    held = migration.snapshot(source, post.id)
    assert migration.differences(source, target, post.id, migration.fingerprint(held)) == []
    assert migration.differences(source, target, post.id, migration.fingerprint(held[:2])) == found
    make_comment(post, text="four")  # the source changed: the comments themselves differ
    assert migration.differences(source, target, post.id, migration.fingerprint(held)) == ["counts (4 and 3)"]


@pytest.mark.parametrize("name", ["documents", "buckets"])
def test_a_discussion_listed_whole_comes_in_one_reply(name, mongo_db, commands):
    """Every view of a discussion listed whole (what `comments_migrate` verifies, six
    times a discussion) asks for all its comments in one reply, past the server's first
    batch of 101: on FerretDB with DocumentDB a sorted answer read in two costs about
    10 ms more (infra.mongo.WHOLE_BATCH)."""
    store = get_store(name)
    store.ensure_indexes(mongo_db)
    discussion_id = ObjectId()
    documents = discussion_documents(discussion_id=discussion_id, count=150, rng=random.Random(5), start=BASE)
    store.insert_documents(documents=documents)
    comments = [Comment.from_doc(doc) for doc in documents]
    commands.reset()
    for order in ORDERS:
        listed = store.find_page(discussion_id=discussion_id, order=order, limit=None, viewer=EDITOR)
        wanted = in_python(comments, Query(discussion_id=discussion_id, viewer=EDITOR, order=tuple(ORDERS[order])))
        assert [c.slug for c in listed] == [c.slug for c in wanted], order
    assert "getMore" not in commands.names, commands.names


def test_posting_during_the_last_pass_answers_503_and_keeps_the_text(make_post, client):
    """A reader posting while writes are frozen gets the form back with their words."""
    post = make_post()
    store_switch.freeze(source="documents", target="buckets")
    response = submit(client, post_url(post), text="Words worth keeping")
    assert response.status_code == 503
    assert "Words worth keeping" in response.content.decode()


# --- The documents store and the posting service ------------------------------------------

TREE_BASE = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)

# The discussion most tests page through: PARENTS[i] is the index of the comment
# that comment i replies to (None for a top-level comment), in posting order.
# Late replies to early threads make the threaded, chronological and newest
# orders all differ; depths go from 0 to 5.
PARENTS = [
    None, 0, 1, 2, None, 0, 4, 3, 6, None,
    1, 9, 11, 12, 5, None, 13, 4, 7, 0,
    10, 10, 15, 22, 23, 9, 16, 14, None, 28,
    29, 30, 8, 2, 19, 33, 24, 31, None, 38,
]
# Comments 20 and 21 (siblings) are posted within the same second, and their slug
# parts sort against their time order, so only the sub-second time orders them.
SAME_SECOND = (20, 21)
SAME_SECOND_PARTS = {20: "zzzzzzzz", 21: "aaaaaaaa"}

# The pattern's queries for each view (the orders find_page must reproduce).
PATTERN_SORTS = {
    "threaded": [("full_slug", 1)],
    "chronological": [("posted", 1)],
    "newest": [("thread", -1), ("full_slug", 1)],
}


def posting_time(i: int) -> datetime:
    """When comment i of PARENTS is posted: ten seconds apart, except that comment
    21 follows comment 20 by a quarter of a second (same second, other millisecond)."""
    if i == SAME_SECOND[1]:
        return posting_time(SAME_SECOND[0]) + timedelta(milliseconds=250)
    return TREE_BASE + timedelta(seconds=10 * i, milliseconds=100)


def build_tree(post, make_comment) -> list:
    """Posts the PARENTS discussion on `post`, oldest first; the comments in posting order."""
    made = []
    for i, parent in enumerate(PARENTS):
        parent_slug = made[parent].slug if parent is not None else None
        extra = {"new_part": parts(SAME_SECOND_PARTS[i])} if i in SAME_SECOND_PARTS else {}
        made.append(make_comment(
            post, text=f"Comment number {i}", parent_slug=parent_slug, at=posting_time(i),
            summarise=False, **extra,
        ))
    return made


def depth_first(roots: list[int]) -> list[int]:
    """Indexes of PARENTS in threaded order below `roots`: each comment, then its
    replies oldest first, recursively."""
    children: dict[int | None, list[int]] = {}
    for i, parent in enumerate(PARENTS):
        children.setdefault(parent, []).append(i)
    order: list[int] = []

    def visit(i):
        order.append(i)
        for child in children.get(i, []):
            visit(child)

    for root in roots:
        visit(root)
    return order


ROOTS = [i for i, parent in enumerate(PARENTS) if parent is None]
# The three views, computed independently of the database from PARENTS.
EXPECTED_INDEXES = {
    "threaded": depth_first(ROOTS),
    "chronological": list(range(len(PARENTS))),
    "newest": depth_first(ROOTS[::-1]),
}


def slugs_of(comments) -> list[str]:
    return [c.slug for c in comments]


def pattern_order(mongo_db, post, view: str) -> list[str]:
    """The slugs of the discussion in the order of the pattern's own query."""
    cursor = mongo_db.comments.find({"discussion_id": post.id}).sort(PATTERN_SORTS[view])
    return [doc["slug"] for doc in cursor]


def parts(*values):
    """A `new_part` that hands out `values` in turn."""
    it = iter(values)
    return lambda: next(it)


def pages_until_empty(first: list, next_page) -> list[list]:
    """`first` and each `next_page(previous)` after it, up to the first empty page;
    fails rather than loops if the pages never run out."""
    pages, current = [], first
    for _ in range(100):
        if not current:
            return pages
        pages.append(current)
        current = next_page(current)
    pytest.fail("paging never reached an empty page")


def reader(name="Reader"):
    return CommentAuthor(id=None, name=name, email="reader@example.com")


# --- Indexes --------------------------------------------------------------------------


def test_comments_collection_has_the_patterns_indexes(mongo_db):
    """The four documented indexes exist with their keys; only discussion_id+slug is unique among them."""
    info = mongo_db.comments.index_information()
    expected = {
        "discussion_slug": [("discussion_id", 1), ("slug", 1)],
        "discussion_full_slug": [("discussion_id", 1), ("full_slug", 1)],
        "discussion_posted": [("discussion_id", 1), ("posted", 1), ("_id", 1)],
        "discussion_thread_newest": [("discussion_id", 1), ("thread", -1), ("full_slug", 1)],
    }
    assert {name: info.get(name, {}).get("key") for name in expected} == expected
    assert {name for name in expected if info[name].get("unique")} == {"discussion_slug"}


def test_unique_index_refuses_a_second_document_with_the_same_discussion_and_slug(mongo_db):
    """The server itself refuses two comments with one slug in one discussion."""
    discussion = ObjectId()
    mongo_db.comments.insert_one({"discussion_id": discussion, "slug": "aaaaaaaa", "full_slug": "x"})
    with pytest.raises(DuplicateKeyError):
        mongo_db.comments.insert_one({"discussion_id": discussion, "slug": "aaaaaaaa", "full_slug": "y"})
    assert mongo_db.comments.count_documents({"discussion_id": discussion}) == 1


# --- Posting --------------------------------------------------------------------------


def test_root_comment_is_stored_as_one_document_with_slug_full_slug_and_thread(make_post, mongo_db):
    """A root comment is one document: slug = part, full_slug = microsecond time:part, thread = full_slug."""
    post = make_post()
    at = datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=timezone.utc)
    posted = services.post_comment(
        post=post, text="Hello *there*", author=CommentAuthor(id=None, name="Ada", email="ada@example.com"),
        at=at, new_part=parts("k3x7q2ab"),
    )
    assert posted.reattached is False
    comment = posted.comment
    doc = mongo_db.comments.find_one({"_id": comment.id})
    assert set(doc) >= {
        "_id", "discussion_id", "parent_id", "slug", "full_slug", "thread", "posted", "author",
        "text", "html",
    }
    assert doc["discussion_id"] == post.id
    assert doc["parent_id"] is None
    assert doc["slug"] == "k3x7q2ab"
    assert doc["full_slug"] == "2026.03.01.09.30.15.123456:k3x7q2ab"
    assert doc["thread"] == "2026.03.01.09.30.15.123456:k3x7q2ab"
    assert doc["posted"] == datetime(2026, 3, 1, 9, 30, 15, 123000, tzinfo=timezone.utc)
    assert doc["author"] == {"id": None, "name": "Ada", "email": "ada@example.com"}
    assert doc["text"] == "Hello *there*"
    assert doc["html"] == "<p>Hello <em>there</em></p>"
    assert comment.depth == 0
    assert comment.parent_slug is None
    assert get_store().find_by_slug(discussion_id=post.id, slug="k3x7q2ab") == comment


def test_reply_extends_its_parents_slug_and_full_slug_and_keeps_its_thread(make_post, make_comment, mongo_db):
    """A reply's slug and full_slug extend its parent's by one part; it keeps its root's thread."""
    post = make_post()
    root = make_comment(post, at=datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=timezone.utc),
                        new_part=parts("k3x7q2ab"))
    reply = make_comment(post, parent_slug=root.slug, new_part=parts("7mfp2d4c"),
                         at=datetime(2026, 3, 1, 9, 31, 0, 1, tzinfo=timezone.utc))
    deeper = make_comment(post, parent_slug=reply.slug, new_part=parts("22222222"),
                          at=datetime(2026, 3, 1, 9, 32, tzinfo=timezone.utc))

    doc = mongo_db.comments.find_one({"_id": reply.id})
    assert doc["parent_id"] == root.id
    assert doc["slug"] == "k3x7q2ab/7mfp2d4c"
    assert doc["full_slug"] == "2026.03.01.09.30.15.123456:k3x7q2ab/2026.03.01.09.31.00.000001:7mfp2d4c"
    assert doc["thread"] == root.full_slug
    assert reply.depth == 1 and reply.parent_slug == root.slug

    deep_doc = mongo_db.comments.find_one({"_id": deeper.id})
    assert deep_doc["parent_id"] == reply.id
    assert deep_doc["slug"] == "k3x7q2ab/7mfp2d4c/22222222"
    assert deep_doc["full_slug"].startswith(doc["full_slug"] + "/")
    assert deep_doc["thread"] == root.full_slug
    assert deeper.depth == 2
    assert mongo_db.comments.count_documents({"discussion_id": post.id}) == 3


def test_colliding_slug_part_is_redrawn_and_both_comments_are_stored(make_post, make_comment, mongo_db):
    """A drawn part already used in the discussion is drawn again and both comments are stored."""
    post = make_post()
    draws = parts("aaaaaaaa", "aaaaaaaa", "bbbbbbbb")
    first = make_comment(post, new_part=draws)
    second = make_comment(post, new_part=draws)
    assert first.slug == "aaaaaaaa"
    assert second.slug == "bbbbbbbb"
    stored = sorted(doc["slug"] for doc in mongo_db.comments.find({"discussion_id": post.id}))
    assert stored == ["aaaaaaaa", "bbbbbbbb"]


def test_colliding_reply_slug_is_redrawn_under_the_same_parent(make_post, make_comment, mongo_db):
    """Two replies to one comment that draw the same part get different slugs."""
    post = make_post()
    root = make_comment(post, new_part=parts("rrrrrrrr"))
    draws = parts("cccccccc", "cccccccc", "dddddddd")
    first = make_comment(post, parent_slug=root.slug, new_part=draws)
    second = make_comment(post, parent_slug=root.slug, new_part=draws)
    assert (first.slug, second.slug) == ("rrrrrrrr/cccccccc", "rrrrrrrr/dddddddd")
    assert mongo_db.comments.count_documents({"discussion_id": post.id, "parent_id": root.id}) == 2


def test_same_slug_is_allowed_in_two_discussions(make_post, make_comment, mongo_db):
    """Slugs are unique per discussion only: two posts can each have comment 'aaaaaaaa'."""
    one, other = make_post(), make_post()
    a = make_comment(one, new_part=parts("aaaaaaaa"))
    b = make_comment(other, new_part=parts("aaaaaaaa"))
    assert a.slug == b.slug == "aaaaaaaa"
    assert mongo_db.comments.count_documents({"slug": "aaaaaaaa"}) == 2
    assert get_store().find_by_slug(discussion_id=one.id, slug="aaaaaaaa").id == a.id
    assert get_store().find_by_slug(discussion_id=other.id, slug="aaaaaaaa").id == b.id


# --- Reading pages --------------------------------------------------------------------


def test_discussion_orders_match_the_pattern_queries_and_the_tree(make_post, make_comment, mongo_db):
    """The pattern's sorts give the threaded, chronological and newest-first orders the tree implies."""
    post = make_post()
    made = build_tree(post, make_comment)
    a, b = (made[i] for i in SAME_SECOND)
    assert a.posted.replace(microsecond=0) == b.posted.replace(microsecond=0) and a.posted < b.posted
    assert max(c.depth for c in made) == 5
    for view, indexes in EXPECTED_INDEXES.items():
        assert pattern_order(mongo_db, post, view) == [made[i].slug for i in indexes], view


@pytest.mark.parametrize("view", ["threaded", "chronological", "newest"])
@pytest.mark.parametrize("per_page", [7, 8])
def test_find_page_pages_concatenate_to_the_pattern_order(make_post, make_comment, mongo_db, view, per_page):
    """Pages by skip, after-cursor and before-cursor (backwards) each concatenate to the pattern order."""
    post = make_post()
    build_tree(post, make_comment)
    expected = pattern_order(mongo_db, post, view)
    total = len(expected)

    by_skip = []
    for skip in range(0, total, per_page):
        page = get_store().find_page(discussion_id=post.id, order=view, limit=per_page, skip=skip)
        assert 0 < len(page) <= per_page
        by_skip += page
    assert slugs_of(by_skip) == expected

    forwards = pages_until_empty(
        get_store().find_page(discussion_id=post.id, order=view, limit=per_page),
        lambda prev: get_store().find_page(discussion_id=post.id, order=view, limit=per_page,
                                     after=prev[-1].key(view)),
    )
    assert all(len(page) <= per_page for page in forwards)
    assert slugs_of(sum(forwards, [])) == expected

    last = get_store().find_page(discussion_id=post.id, order=view, limit=1, skip=total - 1)
    backwards = pages_until_empty(
        last,
        lambda prev: get_store().find_page(discussion_id=post.id, order=view, limit=per_page,
                                     before=prev[0].key(view)),
    )
    assert all(len(page) <= per_page for page in backwards)
    assert slugs_of(sum(reversed(backwards), [])) == expected


def test_chronological_keyset_breaks_ties_within_one_millisecond_by_insertion(
    make_post, make_comment, mongo_db,
):
    """Comments stored with the same millisecond page in insertion order, each exactly once."""
    post = make_post()
    at = datetime(2026, 3, 1, 9, 0, 0, 500000, tzinfo=timezone.utc)
    made = [make_comment(post, at=at + timedelta(microseconds=i), summarise=False) for i in range(6)]
    assert len({c.posted for c in made}) == 1
    pages = pages_until_empty(
        get_store().find_page(discussion_id=post.id, order="chronological", limit=2),
        lambda prev: get_store().find_page(discussion_id=post.id, order="chronological", limit=2,
                                     after=prev[-1].key("chronological")),
    )
    assert slugs_of(sum(pages, [])) == slugs_of(made)


def test_newest_view_puts_newest_threads_first_with_replies_in_time_order_under_parents(
    make_post, make_comment,
):
    """Newest view: newest thread first, replies oldest first under their parent, never above it."""
    post = make_post()
    made = build_tree(post, make_comment)
    page = get_store().find_page(discussion_id=post.id, order="newest", limit=100)
    assert slugs_of(page) == [made[i].slug for i in EXPECTED_INDEXES["newest"]]

    position = {c.slug: n for n, c in enumerate(page)}
    for comment in page:
        if comment.parent_slug is not None:
            assert position[comment.parent_slug] < position[comment.slug]
    roots = [c for c in page if c.depth == 0]
    assert [r.posted for r in roots] == sorted((r.posted for r in roots), reverse=True)
    # Inside each thread, siblings are in time order.
    for comment in page:
        siblings = [c for c in page if c.parent_slug == comment.slug]
        assert [s.posted for s in siblings] == sorted(s.posted for s in siblings)


def test_replies_in_the_same_second_keep_their_time_order_in_every_view(make_post, make_comment):
    """Sibling replies 250 ms apart in one second keep time order in all views, whatever their parts."""
    post = make_post()
    made = build_tree(post, make_comment)
    first, second = (made[i].slug for i in SAME_SECOND)
    for view in PATTERN_SORTS:
        order = slugs_of(get_store().find_page(discussion_id=post.id, order=view, limit=100))
        assert order.index(first) < order.index(second), view


# --- Sub-threads, ancestors, replies --------------------------------------------------


@pytest.fixture
def prefix_siblings(make_post, make_comment):
    """Two top-level comments posted at the same instant whose slugs share seven of
    eight letters ('aaaaaaaa', 'aaaaaaab'), each with a small reply tree whose parts
    are the same under both."""
    post = make_post()
    at = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
    tree = {}
    for root_part in ("aaaaaaaa", "aaaaaaab"):
        root = make_comment(post, at=at, new_part=parts(root_part), summarise=False)
        child = make_comment(post, parent_slug=root.slug, at=at + timedelta(seconds=1),
                             new_part=parts("cccccccc"), summarise=False)
        grandchild = make_comment(post, parent_slug=child.slug, at=at + timedelta(seconds=2),
                                  new_part=parts("dddddddd"), summarise=False)
        second_child = make_comment(post, parent_slug=root.slug, at=at + timedelta(seconds=3),
                                    new_part=parts("cccccccd"), summarise=False)
        tree[root_part] = [root, child, grandchild, second_child]
    # A third sibling whose slug starts like a reply part, to rule out suffix mix-ups.
    tree["cccccccc"] = [make_comment(post, at=at, new_part=parts("cccccccc"), summarise=False)]
    return post, tree


def test_find_subthread_returns_the_comment_and_its_descendants_only(prefix_siblings):
    """find_subthread returns the comment and its descendants, never a sibling sharing a slug prefix."""
    post, tree = prefix_siblings
    for root_part in ("aaaaaaaa", "aaaaaaab"):
        root, child, grandchild, second_child = tree[root_part]
        assert get_store().find_subthread(comment=root) == [root, child, grandchild, second_child]
        assert get_store().find_subthread(comment=child) == [child, grandchild]
        assert get_store().find_subthread(comment=grandchild) == [grandchild]
        assert get_store().find_subthread(comment=second_child) == [second_child]
    assert get_store().find_subthread(comment=tree["cccccccc"][0]) == tree["cccccccc"]


def test_find_subthread_excludes_a_sibling_reply_sharing_a_slug_prefix(make_post, make_comment):
    """Sibling replies 'aaaaaaaa' and 'aaaaaaab' posted at one instant each get only their own sub-thread."""
    post = make_post()
    at = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
    root = make_comment(post, at=at, new_part=parts("rrrrrrrr"), summarise=False)
    a = make_comment(post, parent_slug=root.slug, at=at, new_part=parts("aaaaaaaa"), summarise=False)
    b = make_comment(post, parent_slug=root.slug, at=at, new_part=parts("aaaaaaab"), summarise=False)
    a_reply = make_comment(post, parent_slug=a.slug, at=at, new_part=parts("eeeeeeee"), summarise=False)
    b_reply = make_comment(post, parent_slug=b.slug, at=at, new_part=parts("eeeeeeee"), summarise=False)
    assert get_store().find_subthread(comment=a) == [a, a_reply]
    assert get_store().find_subthread(comment=b) == [b, b_reply]
    assert get_store().find_subthread(comment=root) == [root, a, a_reply, b, b_reply]


def test_replies_below_a_comment_exclude_the_comment_and_its_siblings(prefix_siblings):
    """find_page and count with below= see the comment's descendants only."""
    post, tree = prefix_siblings
    root, child, grandchild, second_child = tree["aaaaaaaa"]
    replies = get_store().find_page(discussion_id=post.id, order="threaded", limit=100, below=root)
    assert replies == [child, grandchild, second_child]
    assert get_store().tally_listing(discussion_id=post.id, below=root).total == 3
    assert get_store().find_page(discussion_id=post.id, order="threaded", limit=100, below=child) == [grandchild]
    assert get_store().tally_listing(discussion_id=post.id, below=grandchild).total == 0
    assert get_store().find_page(discussion_id=post.id, order="threaded", limit=100, below=grandchild) == []
    chrono = get_store().find_page(discussion_id=post.id, order="chronological", limit=100, below=root)
    assert chrono == [child, grandchild, second_child]


def test_replies_below_a_comment_page_by_cursor_within_the_subthread(make_post, make_comment):
    """Keyset pages of the replies below a comment stay inside its sub-thread."""
    post = make_post()
    made = build_tree(post, make_comment)
    below = made[0]
    expected = get_store().find_subthread(comment=below)[1:]
    assert len(expected) > 6
    pages = pages_until_empty(
        get_store().find_page(discussion_id=post.id, order="threaded", limit=4, below=below),
        lambda prev: get_store().find_page(discussion_id=post.id, order="threaded", limit=4, below=below,
                                     after=prev[-1].key("threaded")),
    )
    assert sum(pages, []) == expected


def test_find_ancestors_returns_the_comments_above_root_first(make_post, make_comment, commands):
    """A depth-4 comment's ancestors come back root first, in one query; a root has none."""
    post = make_post()
    made = build_tree(post, make_comment)
    deepest = made[7]  # 0 -> 1 -> 2 -> 3 -> 7
    assert deepest.depth == 4
    commands.reset()
    ancestors = get_store().find_ancestors(comment=deepest)
    assert commands.names == ["find"]
    assert ancestors == [made[0], made[1], made[2], made[3]]
    assert get_store().find_ancestors(comment=made[0]) == []
    assert get_store().find_ancestors(comment=made[39]) == [made[38]]


def test_count_and_count_before_give_sizes_and_positions_in_every_view(make_post, make_comment, mongo_db):
    """count is the discussion's size; count_before is each comment's index in each view."""
    post = make_post()
    made = build_tree(post, make_comment)
    other = make_post()
    make_comment(other)
    assert get_store().tally_listing(discussion_id=post.id).total == len(PARENTS)
    assert get_store().tally_listing(discussion_id=other.id).total == 1
    by_slug = {c.slug: c for c in made}
    for view in PATTERN_SORTS:
        for index, slug in enumerate(pattern_order(mongo_db, post, view)):
            key = by_slug[slug].key(view)
            assert get_store().count_before(discussion_id=post.id, order=view, key=key) == index, (view, slug)


def test_count_before_below_a_comment_counts_within_its_replies(make_post, make_comment):
    """count_before with below= positions a reply among its ancestor's replies only."""
    post = make_post()
    made = build_tree(post, make_comment)
    below = made[9]
    replies = get_store().find_subthread(comment=below)[1:]
    assert len(replies) >= 5
    for index, reply in enumerate(replies):
        key = reply.key("threaded")
        assert get_store().count_before(discussion_id=post.id, order="threaded", key=key, below=below) == index


# --- Depth bound ----------------------------------------------------------------------


def test_reply_past_the_depth_limit_is_attached_to_the_deepest_allowed_ancestor(
    make_post, make_comment, settings, mongo_db,
):
    """With COMMENTS_MAX_DEPTH=2 a reply to a depth-2 comment goes under the depth-1 ancestor, reattached."""
    settings.COMMENTS_MAX_DEPTH = 2
    post = make_post()
    root = make_comment(post)
    d1 = make_comment(post, parent_slug=root.slug)
    d2 = make_comment(post, parent_slug=d1.slug)
    assert d2.depth == 2

    posted = services.post_comment(post=post, text="Too deep", author=reader(), parent_slug=d2.slug)
    assert posted.reattached is True
    reply = posted.comment
    assert reply.depth == 2
    assert reply.parent_id == d1.id
    assert reply.parent_slug == d1.slug
    assert reply.full_slug.startswith(d1.full_slug + "/")
    assert mongo_db.comments.find_one({"_id": reply.id})["parent_id"] == d1.id


def test_reply_within_the_depth_limit_is_not_reattached(make_post, make_comment, settings):
    """A reply that fits under the limit goes under its parent and is not marked reattached."""
    settings.COMMENTS_MAX_DEPTH = 2
    post = make_post()
    root = make_comment(post)
    d1 = make_comment(post, parent_slug=root.slug)
    posted = services.post_comment(post=post, text="Fits", author=reader(), parent_slug=d1.slug)
    assert posted.reattached is False
    assert posted.comment.parent_id == d1.id and posted.comment.depth == 2


def test_replies_with_depth_limit_zero_become_top_level_comments(make_post, make_comment, settings):
    """With COMMENTS_MAX_DEPTH=0 a reply is stored as a top-level comment, marked reattached."""
    settings.COMMENTS_MAX_DEPTH = 0
    post = make_post()
    root = make_comment(post)
    posted = services.post_comment(post=post, text="Flat", author=reader(), parent_slug=root.slug)
    assert posted.reattached is True
    assert posted.comment.depth == 0 and posted.comment.parent_id is None


def test_full_slug_stays_under_1024_bytes_at_the_maximum_depth(make_post, make_comment, settings, mongo_db):
    """Replies stop at the ceiling depth however high the setting, with full_slug under 1024 bytes."""

    settings.COMMENTS_MAX_DEPTH = 1000
    post = make_post()
    comment = make_comment(post, summarise=False)
    for _ in range(slugs.DEPTH_CEILING + 3):
        comment = make_comment(post, parent_slug=comment.slug, summarise=False)
    deepest = max(mongo_db.comments.find({"discussion_id": post.id}), key=lambda d: len(d["full_slug"]))
    assert deepest["slug"].count("/") == slugs.DEPTH_CEILING - 1
    assert len(deepest["full_slug"].encode()) < 1024
    assert slugs.is_slug_path(deepest["slug"])
    assert comment.depth == slugs.DEPTH_CEILING - 1


# --- Refused parents ------------------------------------------------------------------


@pytest.mark.parametrize("parent_slug", ["zzzzzzzz", "zzzzzzzz/yyyyyyyy", "aaaaaaaa/zzzzzzzz"])
def test_reply_to_a_missing_parent_is_refused_and_writes_nothing(
    make_post, make_comment, mongo_db, parent_slug,
):
    """A well-formed parent slug naming no comment raises PARENT_NOT_FOUND and writes nothing."""
    post = make_post()
    make_comment(post, new_part=parts("aaaaaaaa"))
    before_docs = list(mongo_db.comments.find({}))
    before_post = mongo_db.posts.find_one({"_id": post.id})
    with pytest.raises(CommentError, match=re.escape(PARENT_NOT_FOUND)) as caught:
        services.post_comment(post=post, text="Orphan", author=reader(), parent_slug=parent_slug)
    assert caught.value.code == "bad_parent"
    assert list(mongo_db.comments.find({})) == before_docs
    assert mongo_db.posts.find_one({"_id": post.id}) == before_post


@pytest.mark.parametrize(
    "parent_slug",
    [".*", "a|b", "AAAAAAAA", "aaaaaaaa/", "aaaaaaa", "aaaaaaaa\n", "aaaaaaaa/../bbbbbbbb", "^aaaaaaaa",
     "aaaaaaa1", "/".join(["aaaaaaaa"] * 21)],
)
def test_reply_to_a_malformed_parent_is_refused_before_any_query(
    make_post, make_comment, mongo_db, commands, parent_slug,
):
    """A malformed parent slug raises PARENT_NOT_FOUND without sending MongoDB a single command."""
    post = make_post()
    make_comment(post, new_part=parts("aaaaaaaa"))
    before_docs = list(mongo_db.comments.find({}))
    commands.reset()
    with pytest.raises(CommentError, match=re.escape(PARENT_NOT_FOUND)) as caught:
        services.post_comment(post=post, text="Orphan", author=reader(), parent_slug=parent_slug)
    assert commands.names == []
    assert caught.value.code == "bad_parent"
    assert list(mongo_db.comments.find({})) == before_docs


def test_reply_to_a_comment_of_another_post_is_refused_and_writes_nothing(make_post, make_comment, mongo_db):
    """A reply naming a comment that belongs to another post raises PARENT_NOT_FOUND and stores nothing."""
    post, other = make_post(), make_post()
    foreign = make_comment(other)
    with pytest.raises(CommentError, match=re.escape(PARENT_NOT_FOUND)):
        services.post_comment(post=post, text="Wrong post", author=reader(), parent_slug=foreign.slug)
    assert mongo_db.comments.count_documents({}) == 1
    assert mongo_db.comments.count_documents({"discussion_id": post.id}) == 0
    assert posts.get_by_id(post.id).comment_count == 0


# --- Summary --------------------------------------------------------------------------


def test_post_summary_keeps_count_and_three_latest_after_each_comment(make_post, make_comment):
    """After every comment or reply the post carries the right count and the three newest comments."""
    post = make_post()
    made = []
    for i in range(6):
        parent_slug = made[0].slug if i in (2, 4) else None
        made.append(make_comment(post, text=f"Number {i}", parent_slug=parent_slug,
                                 author=reader(f"Reader {i}"), at=TREE_BASE + timedelta(minutes=i)))
        stored = posts.get_by_id(post.id)
        assert stored.comment_count == i + 1
        newest = made[::-1][:3]
        assert [c.slug for c in stored.latest_comments] == [c.slug for c in newest]
        assert [c.author_name for c in stored.latest_comments] == [c.author.name for c in newest]
        assert [c.excerpt for c in stored.latest_comments] == [c.text for c in newest]
        assert [c.posted for c in stored.latest_comments] == [c.posted for c in newest]


def test_refresh_summary_brings_a_bulk_loaded_post_up_to_date(make_post, make_comment):
    """Comments added with summarise=False leave the summary alone until refresh_summary recomputes it."""
    post = make_post()
    made = [make_comment(post, at=TREE_BASE + timedelta(minutes=i), summarise=False) for i in range(5)]
    assert posts.get_by_id(post.id).comment_count == 0
    assert summaries.refresh_summary(post_id=post.id) == 5
    stored = posts.get_by_id(post.id)
    assert stored.comment_count == 5
    assert [c.slug for c in stored.latest_comments] == [made[4].slug, made[3].slug, made[2].slug]


def test_summary_of_one_post_ignores_comments_on_other_posts(make_post, make_comment):
    """Each post's count and latest comments come from its own discussion only."""
    post, other = make_post(), make_post()
    mine = make_comment(post, at=TREE_BASE)
    make_comment(other, at=TREE_BASE + timedelta(minutes=1))
    make_comment(other, at=TREE_BASE + timedelta(minutes=2))
    stored = posts.get_by_id(post.id)
    assert stored.comment_count == 1
    assert [c.slug for c in stored.latest_comments] == [mine.slug]
    assert posts.get_by_id(other.id).comment_count == 2


# --- Lookups by slug ------------------------------------------------------------------


@pytest.mark.parametrize("slug", [".*", "^a", "a|b", "[a-z]{8}", "(?:x)", "\\", "aaaaaaaa.*", "$where", "{}"])
def test_find_by_slug_treats_regex_metacharacters_as_plain_text(make_post, make_comment, slug):
    """A slug full of regex metacharacters matches no comment and raises nothing."""
    post = make_post()
    make_comment(post, new_part=parts("aaaaaaaa"))
    make_comment(post, new_part=parts("bbbbbbbb"))
    assert get_store().find_by_slug(discussion_id=post.id, slug=slug) is None


def test_find_by_slug_finds_only_the_exact_slug_in_its_own_discussion(make_post, make_comment):
    """find_by_slug matches the whole slug path of one discussion, not a prefix."""
    post, other = make_post(), make_post()
    root = make_comment(post, new_part=parts("aaaaaaaa"))
    reply = make_comment(post, parent_slug=root.slug, new_part=parts("bbbbbbbb"))
    assert get_store().find_by_slug(discussion_id=post.id, slug="aaaaaaaa/bbbbbbbb") == reply
    assert get_store().find_by_slug(discussion_id=post.id, slug="bbbbbbbb") is None
    assert get_store().find_by_slug(discussion_id=other.id, slug="aaaaaaaa") is None


# --- Moderation: statuses, tallies, the queue's indexes ---------------------------------------


def test_the_moderation_queue_has_its_indexes_and_none_is_unique(mongo_db):
    """The queue's indexes exist, those of a few comments partial, and none is unique
    (sharding on {discussion_id: "hashed"} stays possible)."""
    info = mongo_db.comments.index_information()
    expected = {
        "queue_held": ([("status", 1), ("posted", -1), ("_id", -1)], {"status": {"$gte": records.PENDING}}),
        "queue_flagged": ([("flag_count", -1), ("posted", -1), ("_id", -1)], {"flag_count": {"$gt": 0}}),
        "queue_downvoted": ([("score", 1), ("posted", -1), ("_id", -1)], {"score": {"$lt": 0}}),
        "queue_recent": ([("posted", -1), ("_id", -1)], None),
        "author_email": ([("author.email", 1), ("posted", -1)], None),
        "member_posted": ([("author.id", 1), ("posted", -1), ("_id", -1)], {"author.id": {"$gt": 0}}),
        "ip": ([("ip", 1), ("posted", -1)], None),
    }
    found = {name: (info.get(name, {}).get("key"), info.get(name, {}).get("partialFilterExpression"))
             for name in expected}
    assert found == expected
    assert not any(info[name].get("unique") for name in expected)


def test_a_document_without_a_status_counts_as_approved(make_post, make_comment, mongo_db):
    """Comments stored before moderation (or imported without a status) are approved for readers."""
    post = make_post()
    comment = make_comment(post)
    mongo_db.comments.update_one({"_id": comment.id}, {"$unset": {"status": ""}})
    assert get_store().find_by_id(comment.id).status == records.APPROVED
    assert get_store().tally_listing(discussion_id=post.id).total == get_store().count_approved(discussion_id=post.id) == 1
    assert get_store().find_latest(discussion_id=post.id, limit=3)[0].id == comment.id


def test_tally_counts_entries_and_placeholders_in_one_command(make_post, make_comment, commands):
    """One aggregate gives what a listing holds and how many are placeholders, per viewer."""
    post = make_post()
    parent = make_comment(post)
    make_comment(post, parent_slug=parent.slug)
    pending = make_comment(post)
    get_store().set_status(ids=[parent.id], status=records.DELETED)
    get_store().set_placeholder(ids=[parent.id], placeholder=True)
    get_store().set_status(ids=[pending.id], status=records.PENDING)
    commands.reset()
    assert get_store().tally_listing(discussion_id=post.id) == records.Tally(total=2, placeholders=1)
    assert commands.names == ["aggregate"]
    editor = records.Viewer(editor=True)
    assert get_store().tally_listing(discussion_id=post.id, viewer=editor) == records.Tally(total=3, placeholders=1)


def test_a_subthread_changes_status_in_one_update_on_its_anchored_prefix(make_post, make_comment, commands):
    """A sub-thread as moderation removes it (find_subthread on the anchored prefix, then
    set_status by id): one find for the thread and its comments by id, then per comment
    its conditional update and the counters' fixed steps (comments/stores/counters.py), never
    a count; a sibling sharing the slug's first characters is untouched."""
    post = make_post()
    root = make_comment(post, new_part=parts("aaaaaaaa"))
    sibling = make_comment(post, new_part=parts("aaaaaaab"))
    child = make_comment(post, parent_slug=root.slug)
    commands.reset()
    thread = get_store().find_subthread(comment=root)
    assert get_store().set_status(ids=[c.id for c in thread], status=records.DELETED) == 2
    # The state read before the intent is written, the intent, the count, clearing it,
    # dropping it from the state: the comment is not read back (comments/stores/counters.py).
    per_comment = ["find", "update", "findAndModify", "update", "update"]
    assert commands.names == ["find", "find", *per_comment, *per_comment]
    assert [get_store().find_by_id(c.id).status for c in (root, child, sibling)] == [
        records.DELETED, records.DELETED, records.APPROVED,
    ]


def test_find_duplicate_matches_author_text_place_and_time(make_post, make_comment):
    """The same author's same text under the same parent since `since`, and nothing else."""
    post = make_post()
    author = reader("Rosa")
    comment = make_comment(post, text="Same", author=author, at=TREE_BASE, ip="192.0.2.1")
    args = dict(discussion_id=post.id, parent_id=None, author=author, ip="192.0.2.1", text="Same")
    assert get_store().find_duplicate(**args, since=TREE_BASE - timedelta(seconds=1)).id == comment.id
    assert get_store().find_duplicate(**args, since=TREE_BASE + timedelta(seconds=1)) is None
    assert get_store().find_duplicate(**{**args, "text": "Other"}, since=TREE_BASE) is None
    assert get_store().find_duplicate(**{**args, "author": reader("Sam")}, since=TREE_BASE) is None
    assert get_store().find_duplicate(**{**args, "ip": "192.0.2.2"}, since=TREE_BASE) is None
