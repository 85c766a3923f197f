"""The comment stores behind one interface (comments/store.py), the Python listings
the container stores share (comments/listing.py, comments/records.py) checked against
the one-document store's MongoDB queries, and moving comments between stores
(comments/migration.py, comments_migrate)."""

from __future__ import annotations

import inspect
from datetime import datetime, timedelta, timezone
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from comments import documents, listing, migration, records, store, store_switch
from comments.records import DELETED, ORDERS, PENDING, SPAM, CommentAuthor, QueueFilter, Viewer
from tests.pages import discussion_url, page, permalink_url, post_url, submit

BASE = datetime(2026, 2, 1, 8, 0, tzinfo=timezone.utc)
ROSA = CommentAuthor(id=None, name="Rosa", email="Rosa@Example.com")
MEMBER = CommentAuthor(id=7, name="Ada", email="ada@example.com")
EDITOR = Viewer(user_id=99, editor=True)


# --- One interface ----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(store.STORES))
def test_every_store_defines_every_operation_with_the_documents_stores_signature(name):
    """A store module is a sibling with the same function names and signatures."""
    module = store.named(name)
    for operation in store.OPERATIONS:
        assert callable(getattr(module, operation, None)), (name, operation)
        assert inspect.signature(getattr(module, operation)) == inspect.signature(
            getattr(documents, operation)
        ), (name, operation)


def test_every_write_operation_is_an_operation():
    assert store.WRITES <= set(store.OPERATIONS)


def test_an_unknown_store_name_is_refused_with_the_known_names(settings):
    """COMMENTS_STORE must name a store; the error lists the three."""
    settings.COMMENTS_STORE = "scrolls"
    with pytest.raises(ValueError, match="documents, embedded, buckets"):
        store.find_latest(discussion_id=None, limit=1)


def test_the_setting_names_the_store_in_use_until_a_switch_is_recorded(settings):
    """COMMENTS_STORE picks the store; a switch recorded by comments_migrate wins."""
    settings.COMMENTS_STORE = "documents"
    assert store.active() is documents
    store_switch.switch(target="buckets")
    assert store.active() is store.named("buckets")
    assert store_switch.in_use() == "buckets"


def test_writes_are_refused_while_a_migration_is_frozen_and_reads_go_on(make_post, make_comment):
    """During a migration's last pass a write raises Moving (an outage: 503), a read works."""
    post = make_post()
    comment = make_comment(post)
    store_switch.freeze(source="documents", target="buckets")
    assert store.find_by_id(comment.id) == comment
    with pytest.raises(store_switch.Moving, match=store_switch.MOVING):
        store.set_status(ids=[comment.id], status=SPAM)


# --- listing.py agrees with the documents store's indexed queries ----------------------


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
    store.set_status(ids=[made["c"].id, made["b1"].id], status=PENDING)
    store.set_status(ids=[made["d"].id], status=SPAM)
    store.set_status(ids=[made["a1"].id], status=DELETED)
    store.set_placeholder(ids=[made["a1"].id], placeholder=True)
    store.set_flag_count(ids=[made["e"].id], flag_count=2)
    everything = [store.find_by_id(c.id) for c in made.values()]
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
    comments = list(made.values())
    viewers = VIEWERS + [Viewer(own=frozenset({made["c"].id}))]
    for order in ORDERS:
        for viewer in viewers:
            for parent in (None, made["a"]):
                every = documents.find_page(discussion_id=post.id, order=order, limit=100, below=parent,
                                            viewer=viewer)
                ours = listing.page(comments, order=order, limit=100, parent=parent, viewer=viewer)
                assert ours == every, (order, viewer, parent)
                for skip in range(len(every) + 1):
                    assert listing.page(comments, order=order, limit=2, skip=skip, parent=parent,
                                        viewer=viewer) == every[skip:skip + 2]
                for i, comment in enumerate(every):
                    key = comment.key(order)
                    assert listing.page(comments, order=order, limit=2, after=key, parent=parent,
                                        viewer=viewer) == every[i + 1:i + 3]
                    assert listing.page(comments, order=order, limit=2, before=key, parent=parent,
                                        viewer=viewer) == every[max(0, i - 2):i]
                    assert listing.count_before(comments, order=order, key=key, parent=parent,
                                                viewer=viewer) == i
                assert listing.tally(comments, parent=parent, viewer=viewer) == documents.tally(
                    discussion_id=post.id, below=parent, viewer=viewer)


def test_listing_latest_subthread_and_duplicates_agree_with_the_documents_store(mixed):
    post, made = mixed
    comments = list(made.values())
    assert listing.latest(comments, limit=3) == documents.find_latest(discussion_id=post.id, limit=3)
    assert len(listing.approved(comments)) == documents.count_approved(discussion_id=post.id)
    for comment in comments:
        assert listing.subthread(comments, comment) == documents.find_subthread(comment=comment)
    a = made["a"]
    for since in (BASE - timedelta(days=1), BASE + timedelta(seconds=1)):
        assert listing.duplicate(comments, parent_id=None, author=ROSA, ip=a.ip, text="a", since=since) == (
            documents.find_duplicate(discussion_id=post.id, parent_id=None, author=ROSA, ip=a.ip, text="a",
                                     since=since))


@pytest.mark.parametrize("tab", records.QUEUE_TABS)
def test_queue_predicates_agree_with_the_documents_stores_queue_queries(mixed, make_post, make_comment, tab):
    """Each tab and filter lists the same comments in the same order."""
    post, made = mixed
    other = make_post()
    make_comment(other, text="elsewhere", author=MEMBER)
    comments = [c for c in documents.find_queue(tab="recent", filters=QueueFilter(), skip=0, limit=100)]
    for filters in (QueueFilter(), QueueFilter(discussion_id=post.id), QueueFilter(name="ros"),
                    QueueFilter(email="rosa@EXAMPLE.com"), QueueFilter(ip="203.0.113.9"), QueueFilter(name="ADA")):
        expected = documents.find_queue(tab=tab, filters=filters, skip=0, limit=100)
        assert listing.queue(comments, tab=tab, filters=filters) == expected, filters
        assert len(expected) == documents.count_queue(tab=tab, filters=filters)


def test_commenter_matches_what_the_documents_store_finds(mixed):
    """A member by id, an e-mail address whatever its case, an IP address."""
    post, made = mixed
    comments = list(made.values())
    for commenter in (records.by_commenter(user_id=MEMBER.id), records.by_commenter(emails=["ROSA@example.COM"]),
                      records.by_commenter(ips=["198.51.100.1"])):
        expected = sorted(c.slug for c in documents.find_by_commenter(commenter=commenter))
        assert sorted(c.slug for c in comments if commenter.matches(c)) == expected, commenter


def test_a_commenter_needs_something_to_match():
    with pytest.raises(ValueError):
        records.by_commenter(emails=[""], ips=[])


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
    assert store_switch.in_use() == "documents"
    report = migration.migrate(target="buckets")
    assert (report.copied, report.resumed, report.comments) == (1, 2, 3)
    assert store_switch.in_use() == "buckets"


def test_a_copy_that_does_not_verify_switches_nothing(make_post, make_comment, monkeypatch, no_grace):
    """If the target lost a comment, the command fails naming the discussion; the site stays."""
    post = make_post()
    make_comment(post)
    make_comment(post)
    embedded = store.named("embedded")
    real = embedded.insert_documents
    monkeypatch.setattr(embedded, "insert_documents", lambda *, documents: real(documents=documents[1:]))
    with pytest.raises(CommandError, match=f"Discussion {post.id}: counts"):
        run_migrate("--to", "embedded")
    assert store_switch.in_use() == "documents"
    assert store.named("documents").count_approved(discussion_id=post.id) == 2


def test_the_command_says_when_writes_pause_for_the_last_pass(make_post, make_comment, no_grace):
    make_comment(make_post())
    err = StringIO()
    run_migrate("--to", "buckets", err=err)
    assert "Last pass: comment writes are paused" in err.getvalue()


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
    assert [c.text for c in store.find_page(discussion_id=early.id, order="chronological", limit=9)] == [
        "first", "while moving"]
    assert [c.text for c in store.find_page(discussion_id=late.id, order="chronological", limit=9)] == [
        "new discussion"]


def test_posting_during_the_last_pass_answers_503_and_keeps_the_text(make_post, client):
    """A reader posting while writes are frozen gets the form back with their words."""
    post = make_post()
    store_switch.freeze(source="documents", target="buckets")
    response = submit(client, post_url(post), text="Words worth keeping")
    assert response.status_code == 503
    assert "Words worth keeping" in response.content.decode()
