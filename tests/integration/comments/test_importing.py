"""The import engine (comments/transfer/importing.py and its comments/import_*.py modules): pure
helpers (bodies as Markdown, the safe XML reader, thread matching), and the writer in
every store: a run stopped half-way is completed by the next, a run stopped between
storing and recording adds nothing twice, replies find parents across batches and
beyond its memory."""

import threading
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from pymongo.collection import Collection

from cms import posts
from comments import records
from comments.stores import CommentStore, get_store
from comments.transfer import import_ledger, import_records, import_waiting, importing
from comments.transfer.import_records import SourceComment, SourceThread
from comments.transfer.importing import Importer

# --- Pure --------------------------------------------------------------------------------




















# --- Writing, in every store --------------------------------------------------------------


START = datetime(2015, 6, 1, 12, tzinfo=UTC)


def chain(n: int, *, thread: str = "t1") -> list[SourceComment]:
    """`n` comments, each a reply to the one before, a minute apart."""
    return [
        SourceComment(source="test", id=str(k), thread=thread, parent=str(k - 1) if k else None,
                      posted=START + timedelta(minutes=k), html=f"<p>Comment {k}</p>", author_name=f"R{k}")
        for k in range(n)
    ]


def forest(n: int) -> list[SourceComment]:
    """`n` comments: roots, each followed by two replies (the second to the first)."""
    comments = []
    for k in range(n):
        parent = None if k % 3 == 0 else str(k - 1)
        comments.append(SourceComment(source="test", id=str(k), thread="t1", parent=parent,
                                      posted=START + timedelta(minutes=k), html=f"<p>Comment {k}</p>",
                                      author_name="R"))
    return comments


def run(post, comments, *, batch_size=4, **options) -> import_records.Report:
    importer = Importer(source="test", batch_size=batch_size, **options)
    importer.add_thread(SourceThread(source="test", key="t1"), post_id=post.id)
    for comment in comments:
        importer.add(comment)
    return importer.finish()


def stored(post) -> dict[str, dict]:
    return {d["imported"]["id"]: d for d in get_store().iter_documents(discussion_id=post.id)}


def assert_faithful(post, comments):
    """Every comment stored once, under the parent it had."""
    docs = stored(post)
    assert len(list(get_store().iter_documents(discussion_id=post.id))) == len(comments) == len(docs)
    for comment in comments:
        parent = docs[comment.parent]["_id"] if comment.parent else None
        assert docs[comment.id]["parent_id"] == parent


@pytest.mark.usefixtures("each_store")
def test_a_run_stopped_half_way_is_completed_by_the_next(make_post):
    post, comments = make_post(), forest(30)
    importer = Importer(source="test", batch_size=4)
    importer.add_thread(SourceThread(source="test", key="t1"), post_id=post.id)
    for comment in comments[:14]:
        importer.add(comment)  # batches of 4 written; then the run is killed (no finish)
    importer.writer.wait()  # ... once the batch in flight is stored
    assert 0 < len(stored(post)) < 14
    report = run(post, comments)
    assert report.already == 12 and report.imported == 18
    assert_faithful(post, comments)
    assert posts.get_by_id(post.id).comment_count == 30


@pytest.mark.usefixtures("each_store")
def test_a_run_stopped_between_storing_and_recording_adds_nothing_twice(make_post, monkeypatch):
    """The comments went in but their ledger entries did not: the next run finds them
    by their slug and records them."""
    post, comments = make_post(), forest(9)

    collection = import_ledger.ledger().__class__
    insert_many = collection.insert_many

    def killed(self, *args, **kwargs):
        if self.name == import_ledger.ledger().name:
            raise KeyboardInterrupt
        return insert_many(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(collection, "insert_many", killed)
        with pytest.raises(KeyboardInterrupt):
            run(post, comments)
    assert len(stored(post)) == 4 and import_ledger.ledger().count_documents({}) == 0
    report = run(post, comments)
    assert report.already == 4 and report.imported == 5
    assert_faithful(post, comments)
    assert import_ledger.ledger().count_documents({}) == 9


WRITES = ("insert_one", "insert_many", "bulk_write", "update_one", "update_many", "replace_one",
          "find_one_and_update", "delete_many")


class Killed(BaseException):
    """The process is gone: nothing after it happens."""


def killed_after(monkeypatch, writes: int) -> None:
    """Every MongoDB write goes through until `writes` of them have; then the process
    is killed (kill -9): that write is done, and nothing after it happens, in any
    thread."""
    done = [0]

    def wrap(method):
        def write(self, *args, **kwargs):
            if done[0] >= writes:
                raise Killed
            result = method(self, *args, **kwargs)
            done[0] += 1
            if done[0] >= writes:
                raise Killed
            return result
        return write

    for name in WRITES:
        monkeypatch.setattr(Collection, name, wrap(getattr(Collection, name)))


@pytest.mark.stores("documents")
def test_a_run_killed_after_any_write_is_finished_by_the_next_with_each_comment_once(make_post, monkeypatch):
    """Killed after its first write, its second, ... and run again to the end: every
    comment once, under its parent, the counters, the post's count and the
    placeholders as if it had never stopped."""
    comments = forest(11)
    comments[3] = replace(comments[3], status="deleted", html="")  # a root with replies: a placeholder
    killed, post = 0, make_post()
    for writes in range(1, 100):
        import_ledger.ledger().delete_many({})
        get_store().drop_discussion(discussion_id=post.id)
        post = make_post()
        with monkeypatch.context() as patch:
            killed_after(patch, writes)
            try:
                run(post, comments, batch_size=4)
            except Killed:
                killed += 1
            else:
                break
        run(post, comments, batch_size=4)
        assert_faithful(post, comments)
        assert posts.get_by_id(post.id).comment_count == 10, writes
        shown = get_store().find_page(discussion_id=post.id, order="threaded", limit=20, viewer=records.READERS)
        assert [c.placeholder for c in shown if c.status == "deleted"] == [True], writes
    assert killed > 5


@pytest.mark.usefixtures("each_store")
def test_replies_find_parents_written_batches_ago_and_forgotten(make_post, monkeypatch, settings):
    """With room for two comments in memory, parents come from the ledger."""
    settings.COMMENTS_MAX_DEPTH = 100
    monkeypatch.setattr(importing, "KNOWN_LIMIT", 2)
    post = make_post()
    comments = [*chain(6), *[SourceComment(source="test", id=f"late{k}", thread="t1", parent=str(k),
                                          posted=START + timedelta(hours=1, minutes=k), html="<p>Late</p>")
                             for k in range(6)]]
    report = run(post, comments, batch_size=2)
    assert report.imported == 12 and report.orphans == []
    assert_faithful(post, comments)


@pytest.mark.stores("documents")
def test_a_reply_whose_parent_is_the_oldest_remembered_stays_under_it(make_post, monkeypatch):
    """Its parent is in memory when the batch is looked at, and is the first forgotten
    as the batch is placed: the reply still goes under it, not to the top level (it
    waited for a parent already written, then became an orphan)."""
    monkeypatch.setattr(importing, "KNOWN_LIMIT", 3)
    post = make_post()
    roots = [SourceComment(source="test", id=f"r{k}", thread="t1", parent=None, posted=START + timedelta(minutes=k),
                           html=f"<p>Root {k}</p>") for k in range(5)]
    reply = SourceComment(source="test", id="x", thread="t1", parent="r1", posted=START + timedelta(hours=1),
                          html="<p>Reply</p>")
    report = run(post, [*roots, reply], batch_size=2)
    assert report.orphans_total == 0
    assert_faithful(post, [*roots, reply])


@pytest.mark.usefixtures("each_store")
def test_replies_read_before_their_parents_wait_for_them_across_batches(make_post, settings):
    settings.COMMENTS_MAX_DEPTH = 100
    post, comments = make_post(), chain(9)
    report = run(post, list(reversed(comments)), batch_size=2)
    assert report.imported == 9 and report.orphans == []
    assert_faithful(post, comments)
    threaded = get_store().find_page(discussion_id=post.id, order="threaded", limit=20, viewer=records.READERS)
    assert [c.text for c in threaded] == [f"Comment {k}" for k in range(9)]


@pytest.mark.usefixtures("each_store")
def test_replies_deeper_than_the_site_allows_go_under_the_deepest_ancestor(make_post, settings):
    settings.COMMENTS_MAX_DEPTH = 2
    post, comments = make_post(), chain(5)
    report = run(post, comments)
    docs = stored(post)
    assert report.reattached == 2
    assert [docs[str(k)]["slug"].count("/") for k in range(5)] == [0, 1, 2, 2, 2]
    assert docs["3"]["parent_id"] == docs["1"]["_id"] and docs["4"]["parent_id"] == docs["1"]["_id"]


@pytest.mark.usefixtures("each_store")
def test_a_parent_on_another_thread_makes_an_orphan(make_post):
    post, other = make_post(), make_post()
    importer = Importer(source="test")
    importer.add_thread(SourceThread(source="test", key="t1"), post_id=post.id)
    importer.add_thread(SourceThread(source="test", key="t2"), post_id=other.id)
    importer.add(chain(1)[0])
    importer.add(SourceComment(source="test", id="x", thread="t2", parent="0", posted=START, html="<p>x</p>"))
    report = importer.finish()
    assert stored(other)["x"]["parent_id"] is None
    assert report.orphans == [importing.ORPHAN.format(source="test", id="x", line=0, parent="0",
                                                      why=importing.ORPHAN_ELSEWHERE)]


@pytest.mark.usefixtures("each_store")
def test_comments_with_a_bad_status_or_a_naive_time_are_refused(make_post):
    post = make_post()
    good = chain(1)[0]
    report = run(post, [
        SourceComment(source="test", id="a", thread="t1", parent=None, posted=START, html="a", status="hidden"),
        SourceComment(source="test", id="b", thread="t1", parent=None, posted=START.replace(tzinfo=None), html="b"),
        good,
    ])
    assert report.refused == {importing.BAD_STATUS.format(status="hidden"): 1, importing.NAIVE_TIME: 1}
    assert set(stored(post)) == {"0"}


@pytest.mark.usefixtures("each_store")
def test_a_hidden_comment_becomes_a_placeholder_when_its_reply_comes_batches_later(make_post, monkeypatch):
    """Its reply is written after the deleted comment was stored and forgotten: the
    ledger says a hidden comment is above it, so placeholders are repaired."""
    monkeypatch.setattr(importing, "KNOWN_LIMIT", 1)
    post = make_post()
    deleted, other, reply = (
        SourceComment(source="test", id="d", thread="t1", parent=None, posted=START, html="", status="deleted"),
        SourceComment(source="test", id="o", thread="t1", parent=None, posted=START, html="<p>o</p>"),
        SourceComment(source="test", id="r", thread="t1", parent="d", posted=START, html="<p>r</p>"),
    )
    run(post, [deleted, other, reply], batch_size=1)
    shown = get_store().find_page(discussion_id=post.id, order="threaded", limit=10, viewer=records.READERS)
    assert [(c.text, c.placeholder) for c in shown] == [("", True), ("r", False), ("o", False)]
    assert posts.get_by_id(post.id).comment_count == 2




# --- Waiting replies beyond memory, times out of range (issue 25) --------------------------


def scratch_collections(mongo_db) -> list[str]:
    return [n for n in mongo_db.list_collection_names() if n.startswith(import_waiting.SCRATCH_PREFIX)]


@pytest.mark.usefixtures("each_store")
def test_replies_waiting_beyond_memory_wait_in_a_scratch_collection_dropped_after(make_post, settings, mongo_db):
    """With room for three waiting replies, a chain read backwards, replies to a
    parent that comes late and orphans (one pair naming each other) still land where
    they belong; memory never holds more than three, and the scratch is dropped."""
    settings.COMMENTS_MAX_DEPTH = 100
    post = make_post()
    backwards = list(reversed(chain(12)))
    late = [SourceComment(source="test", id=f"late{k}", thread="t1", parent="root2",
                          posted=START + timedelta(hours=1, minutes=k), html=f"<p>Late {k}</p>") for k in range(5)]
    root2 = SourceComment(source="test", id="root2", thread="t1", parent=None, posted=START, html="<p>R2</p>")
    orphans = [SourceComment(source="test", id=f"o{k}", thread="t1", parent=f"gone{k}",
                             posted=START + timedelta(days=1, minutes=k), html=f"<p>O {k}</p>") for k in range(6)]
    loop = [SourceComment(source="test", id="a", thread="t1", parent="b", posted=START, html="<p>a</p>"),
            SourceComment(source="test", id="b", thread="t1", parent="a", posted=START, html="<p>b</p>")]
    importer = Importer(source="test", batch_size=2, waiting_limit=3)
    importer.add_thread(SourceThread(source="test", key="t1"), post_id=post.id)
    peak = 0
    for comment in [*backwards, *late, *orphans, *loop, root2]:
        importer.add(comment)
        peak = max(peak, importer.waiting.held)
        assert len(scratch_collections(mongo_db)) <= 1
    assert scratch_collections(mongo_db)  # replies did wait beyond memory
    report = importer.finish()
    assert peak <= 3 and not scratch_collections(mongo_db)
    docs = stored(post)
    assert len(docs) == 12 + 5 + 1 + 6 + 2 and report.imported == 26
    for comment in [*chain(12), *late]:
        assert docs[comment.id]["parent_id"] == (docs[comment.parent]["_id"] if comment.parent else None)
    assert all(docs[f"o{k}"]["parent_id"] is None for k in range(6))
    a, b = docs["a"], docs["b"]
    assert (a["parent_id"], b["parent_id"]) in {(None, a["_id"]), (b["_id"], None)}  # the pair: one breaks it
    assert report.orphans_total == 7  # six whose parent is gone, one of the pair


@pytest.mark.usefixtures("each_store")
def test_the_report_names_the_first_orphans_and_counts_the_others(make_post, monkeypatch):
    monkeypatch.setattr(importing, "ORPHANS_SHOWN", 2)
    post = make_post()
    report = run(post, [SourceComment(source="test", id=f"o{k}", thread="t1", parent=f"gone{k}",
                                      posted=START, html="<p>o</p>") for k in range(5)])
    assert len(report.orphans) == 2 and report.orphans_total == 5
    assert import_records.MORE_ORPHANS.format(count=3) in report.lines()


@pytest.mark.usefixtures("each_store")
@pytest.mark.parametrize("posted", [
    datetime.fromisoformat("9999-12-31T23:59:59-23:59"),
    datetime.fromisoformat("0001-01-01T00:00:00+00:01"),
    datetime.fromisoformat("0999-12-31T23:59:59+00:00"),
])
def test_a_time_out_of_range_in_utc_is_refused_and_a_rerun_does_not_crash(make_post, posted):
    """Its offset takes it past year 9999 (or before year 1, or before 1000, which
    slugs cannot sort): refused like any bad time, the rest imported, twice over."""
    post = make_post()
    comments = [SourceComment(source="test", id="far", thread="t1", parent=None, posted=posted, html="x"),
                *chain(2)]
    for _ in range(2):
        report = run(post, comments)
        assert report.refused == {import_records.TIME_OUT_OF_RANGE: 1}
    assert set(stored(post)) == {"0", "1"}


@pytest.mark.usefixtures("each_store")
def test_the_end_reads_summaries_in_its_threads_and_hands_them_to_the_host_in_the_importers(make_post,
                                                                                           monkeypatch):
    """The end settles END_THREADS discussions at once, but the host (which may keep its
    summaries in a database its threads should not share) is handed every summary in
    the importer's own thread, once per discussion, each right: its count and its three
    newest comments."""
    from comments.host import get_host
    from comments.transfer import import_end

    host, handed = get_host(), []
    real = host.store_comment_summary

    def recording(discussion_id, **summary):
        handed.append((discussion_id, threading.get_ident()))
        return real(discussion_id, **summary)

    monkeypatch.setattr(host, "store_comment_summary", recording)
    threads_used = set()
    real_read = import_end.summaries.read_summary

    def read(post_id, **hints):
        threads_used.add(threading.get_ident())
        return real_read(post_id, **hints)

    monkeypatch.setattr(import_end.summaries, "read_summary", read)
    discussions = [make_post() for _ in range(import_end.END_THREADS * 2)]
    importer = Importer(source="test", batch_size=4)
    for n, post in enumerate(discussions):
        importer.add_thread(SourceThread(source="test", key=f"t{n}"), post_id=post.id)
    for n, post in enumerate(discussions):
        for comment in chain(n + 2, thread=f"t{n}"):
            importer.add(replace(comment, id=f"{n}-{comment.id}",
                                 parent=f"{n}-{comment.parent}" if comment.parent else None))
    importer.finish()
    assert sorted(post_id for post_id, _ in handed) == sorted(post.id for post in discussions)
    assert {thread for _, thread in handed} == {threading.get_ident()}
    assert threads_used and threading.get_ident() not in threads_used  # read in the end's threads
    for n, post in enumerate(discussions):
        newest = sorted(stored(post).values(), key=lambda d: d["posted"], reverse=True)[:3]
        shown = posts.get_by_id(post.id)
        assert shown.comment_count == n + 2
        assert [c.slug for c in shown.latest_comments] == [d["slug"] for d in newest]


@pytest.mark.stores("documents")
def test_the_end_reads_each_summary_from_where_its_recount_saw_the_newest_comments(make_post, commands,
                                                                                   monkeypatch):
    """A discussion of years-old comments, more than one query reads at once: its
    summary's newest comments are one window of `posted`, from the third newest approved
    comment the recount saw on (a deleted one newer than them not counted), where the
    windows back from the last hour took several; every hidden comment under an
    approved reply becomes a placeholder without a query of its replies."""
    post = make_post()
    comments = forest(150)
    for k in (0, 3, 6):  # roots, each with an approved reply
        comments[k] = replace(comments[k], status="deleted", html="")
    newest = SourceComment(source="test", id="last", thread="t1", parent=None, status="deleted", html="",
                           posted=START + timedelta(days=1))
    asked = []
    has_approved_reply = CommentStore.has_approved_reply
    monkeypatch.setattr(CommentStore, "has_approved_reply",
                        lambda store, *, comment: asked.append(comment.slug) or has_approved_reply(store, comment=comment))
    commands.reset()
    run(post, [*comments, newest], batch_size=50)
    reads = [c for c in commands.finds("comments", hint="discussion_posted") if "posted" in c["filter"]]
    assert len(reads) == 1 and asked == [], (reads, asked)
    docs = sorted(stored(post).values(), key=lambda d: d["posted"], reverse=True)
    shown = posts.get_by_id(post.id)
    assert [c.slug for c in shown.latest_comments] == [d["slug"] for d in docs if d["status"] == "approved"][:3]
    assert shown.comment_count == 147
    placeholders = {d["imported"]["id"] for d in docs if d.get("placeholder")}
    assert placeholders == {"0", "3", "6"}

