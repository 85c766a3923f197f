"""The documents store reads page 1 and cursor pages in windows of the sort key
(comments/stores/page_windows.py). On awkward data (replies in the same second and the same
microsecond, deep threads, placeholders, hidden comments, pages ending mid-thread,
years of silence, bursts) and whatever the hints say, every page is exactly the one
unbounded query's (CommentStore.find_page), for every view and viewer, both ways;
and a reader's listing has the same comments and the same next/prev cursors."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest
from bson import ObjectId
from django.core import signing
from django.core.cache import cache

from comments import slugs
from comments.benchmark import discussion_documents
from comments.host import get_host
from comments.reading import cursors, listers, listings
from comments.records import APPROVED, DELETED, ORDERS, PENDING, SPAM, Comment, CommentAuthor, Viewer, new_document
from comments.stores import counters, get_store, page_windows
from comments.stores.base import CommentStore
from comments.stores.documents import LATEST_IN_ONE, DocumentsStore
from infra import page_windows as infra_windows

DOCUMENTS = get_store("documents")
START = datetime(2026, 1, 1, tzinfo=timezone.utc)
LIMIT = 21
EDITORS = Viewer(editor=True)
VIEWS = ("threaded", "newest", "chronological")

pytestmark = pytest.mark.usefixtures("documents_store")


@pytest.fixture
def documents_store(settings, mongo_db):
    settings.COMMENTS_STORE = "documents"
    DOCUMENTS.ensure_indexes(mongo_db)


def _document(discussion_id, *, parent: dict | None, posted: datetime, part: str, status: str = APPROVED) -> dict:
    if parent:
        slug, full_slug = slugs.child_slugs(parent_slug=parent["slug"], parent_full_slug=parent["full_slug"],
                                            posted=posted, part=part)
    else:
        slug, full_slug = slugs.root_slugs(posted=posted, part=part)
    return new_document(
        discussion_id=discussion_id, parent=Comment.from_doc(parent) if parent else None, slug=slug,
        full_slug=full_slug, posted=posted, author=CommentAuthor(id=None, name="Ada", email="ada@example.com"),
        text="A comment.", html="<p>A comment.</p>", form_key=None, status=status, ip="192.0.2.1",
    )


def _part(rng: random.Random) -> str:
    return "".join(rng.choice(slugs.PART_ALPHABET) for _ in range(slugs.PART_LENGTH))


@pytest.fixture
def awkward():
    """A discussion of about 400 comments built to trip a window up; its id."""
    rng = random.Random(27)
    discussion_id = ObjectId()
    docs = discussion_documents(discussion_id=discussion_id, count=220, rng=rng, start=START)
    burst = START + timedelta(days=2)
    # Twenty top-level comments in the same microsecond, and a reply to each in the same second.
    roots = [_document(discussion_id, parent=None, posted=burst, part=_part(rng)) for _ in range(20)]
    docs += roots + [_document(discussion_id, parent=r, posted=burst + timedelta(microseconds=5), part=_part(rng))
                     for r in roots]
    # One thread as deep as threads go, with a long tail of replies at every level.
    chain = [_document(discussion_id, parent=None, posted=burst + timedelta(hours=1), part=_part(rng))]
    for depth in range(1, 8):
        chain.append(_document(discussion_id, parent=chain[-1], posted=burst + timedelta(hours=1, minutes=depth),
                               part=_part(rng)))
    docs += chain + [_document(discussion_id, parent=rng.choice(chain[:-1]),
                               posted=burst + timedelta(hours=2, seconds=n), part=_part(rng)) for n in range(60)]
    # Years of silence, then a few more; a reply years later to the first thread.
    later = START + timedelta(days=3 * 365)
    docs += [_document(discussion_id, parent=None, posted=later + timedelta(minutes=n), part=_part(rng))
             for n in range(30)]
    docs.append(_document(discussion_id, parent=docs[0], posted=later + timedelta(days=1), part=_part(rng)))
    # Hidden comments, some of them standing as placeholders for their replies.
    for doc in rng.sample(docs, 90):
        doc["status"] = rng.choice([PENDING, SPAM, DELETED])
        doc["placeholder"] = rng.random() < 0.4
    assert DOCUMENTS.insert_documents(documents=docs) == len(docs)
    return discussion_id


def _one_query(**page) -> list[Comment]:
    return CommentStore.find_page(DOCUMENTS, **page)


def _ids(comments: list[Comment]) -> list[ObjectId]:
    return [c.id for c in comments]


HINTS = {
    "none": lambda d, view: None,
    "tiny spans": lambda d, view: page_windows.PageHint(span=timedelta(milliseconds=1)),
    "stale end, too early": lambda d, view: page_windows.PageHint(end="2000.01.01.00.00.00.000000:aaaaaaaa"
                                                                  if view != "chronological"
                                                                  else datetime(2000, 1, 1, tzinfo=timezone.utc)),
    "stale end, too late": lambda d, view: page_windows.PageHint(end="2100.01.01.00.00.00.000000:aaaaaaaa"
                                                                 if view != "chronological"
                                                                 else datetime(2100, 1, 1, tzinfo=timezone.utc),
                                                                 span=timedelta(days=9000)),
}


@pytest.mark.parametrize("hints", sorted(HINTS))
@pytest.mark.parametrize("view", VIEWS)
def test_every_page_both_ways_is_the_one_query_s_page(awkward, view, hints):
    """Walking a discussion page by page, forwards from page 1 and backwards from each
    page's first comment, for readers and editors: windows read the same comments in
    the same order as one query, whatever hint is left (or none)."""
    for viewer in (Viewer(), EDITORS):
        cache.clear()
        key = None
        for _ in range(60):
            if (hint := HINTS[hints](awkward, view)) is not None:
                cache.set(page_windows._hint_key(awkward, view), hint)
            page = dict(discussion_id=awkward, order=view, limit=LIMIT, viewer=viewer)
            forward = {**page, "after": key} if key is not None else page
            expected = _one_query(**forward)
            assert _ids(DOCUMENTS.find_page(**forward)) == _ids(expected), (view, viewer, key)
            if not expected:
                break
            backward = {**page, "before": expected[0].key(view)}
            assert _ids(DOCUMENTS.find_page(**backward)) == _ids(_one_query(**backward)), (view, viewer, key)
            key = expected[-1].key(view)
        else:
            pytest.fail("the walk did not reach the end")


@pytest.mark.parametrize("view", VIEWS)
def test_a_reader_s_listing_has_the_same_comments_and_links_as_one_query_gave(awkward, view, monkeypatch):
    """Through comments.reading.listers.list_comments, page by page by the next link: the same
    comments drawn, the same page numbers and the same next and prev cursors as with
    the windows turned off (MAX_WINDOWS 0: one query)."""

    def listing(after: str | None) -> listings.Listing:
        return listers.list_comments(discussion_id=awkward, view=view, after=after)

    def payload(token: str | None):
        return signing.loads(token, salt=cursors.SALT) if token else None

    monkeypatch.setattr(page_windows, "SHORT_REACH", 0)  # windows even for a short rest

    after = None
    for _ in range(60):
        windows = listing(after)
        monkeypatch.setattr(infra_windows, "MAX_WINDOWS", 0)
        one = listing(after)
        monkeypatch.setattr(infra_windows, "MAX_WINDOWS", 10)
        assert [s.comment.slug for s in windows.shown] == [s.comment.slug for s in one.shown]
        assert (windows.number, windows.num_pages) == (one.number, one.num_pages)
        assert payload(windows.next_cursor) == payload(one.next_cursor)
        assert payload(windows.prev_cursor) == payload(one.prev_cursor)
        if windows.next_cursor is None:
            break
        after = windows.next_cursor
    else:
        pytest.fail("the walk did not reach the last page")


def test_a_hinted_page_one_reads_a_bounded_range_of_the_index(awkward, commands):
    """Once page 1 has been read, the next read of it asks for a range of the sort key
    bounded at where the page ended, not for every comment of the discussion."""
    DOCUMENTS.find_page(discussion_id=awkward, order="threaded", limit=LIMIT)
    commands.reset()
    DOCUMENTS.find_page(discussion_id=awkward, order="threaded", limit=LIMIT)
    finds = [c for c in commands.sent if "find" in c]
    assert finds and "$lte" in str(finds[0]["filter"].get("full_slug", finds[0]["filter"])), finds[0]


@pytest.mark.parametrize("view", VIEWS)
def test_a_short_discussion_s_page_one_is_read_whole_then_through_its_hint(awkward, view, commands):
    """A discussion known to be short (`reach`) has its page 1 read as one query the
    first time, which leaves the hint; then as one range bounded where page 1 ended,
    not the whole discussion sorted: the one query's page either way, whatever hint is
    left, for readers and editors."""
    for viewer in (Viewer(), EDITORS):
        page = dict(discussion_id=awkward, order=view, limit=LIMIT, viewer=viewer)
        expected = _ids(_one_query(**page))
        for hints in sorted(HINTS):
            cache.clear()
            if (hint := HINTS[hints](awkward, view)) is not None:
                cache.set(page_windows._hint_key(awkward, view), hint)
            assert _ids(DOCUMENTS.find_page(**page, reach=400)) == expected, (hints, viewer)
            assert _ids(DOCUMENTS.find_page(**page, reach=400)) == expected, (hints, viewer)
    cache.clear()
    commands.reset()
    end = DOCUMENTS.find_page(discussion_id=awkward, order=view, limit=LIMIT, reach=400)[-1].key(view)[0]
    DOCUMENTS.find_page(discussion_id=awkward, order=view, limit=LIMIT, reach=400)
    field = ORDERS[view][0][0]
    first, second = [c["filter"] for c in commands.sent if "find" in c]
    assert field not in first and second[field] in ({"$lte": end}, {"$gte": end}), (first, second)


OPENINGS = {
    "at the first comment": START,
    "years before it": START - timedelta(days=3650),
    "years after it (stale)": START + timedelta(days=3650),
}


@pytest.mark.parametrize("opening", sorted(OPENINGS))
@pytest.mark.parametrize("view", VIEWS)
def test_page_one_with_no_hint_is_the_one_query_s_page_whatever_the_opening(awkward, view, opening):
    """No hint cached (a restart, the first reader): page 1 starts from the
    discussion's `opens` (newest first: one open query) and is still exactly the one
    query's page, for readers and editors, even when `opens` is wrong."""
    for viewer in (Viewer(), EDITORS):
        cache.clear()
        page = dict(discussion_id=awkward, order=view, limit=LIMIT, viewer=viewer)
        assert _ids(DOCUMENTS.find_page(**page, opens=OPENINGS[opening])) == _ids(_one_query(**page)), viewer


def test_page_one_with_no_hint_reads_a_range_bounded_past_the_opening(awkward, commands):
    """The first read of page 1 asks for the comments of the discussion's first hour
    (here, page 1 lies in it), not for every comment of the discussion."""
    cache.clear()
    commands.reset()
    DOCUMENTS.find_page(discussion_id=awkward, order="threaded", limit=LIMIT, opens=START)
    finds = [c for c in commands.sent if "find" in c]
    bound = infra_windows.time_boundary(page_windows.KEYS["full_slug"], START + infra_windows.DEFAULT_SPAN).value
    assert len(finds) == 1 and finds[0]["filter"]["full_slug"] == {"$lt": bound}, finds


def test_the_store_is_the_documents_store():
    assert isinstance(DOCUMENTS, DocumentsStore)


def test_an_editor_s_page_one_leaves_the_readers_hint_as_it_is(awkward):
    """Where page 1 ends is learnt from readers' reads: an editor's page 1 (it holds
    pending comments too, so it ends earlier) does not move the hint back and forth."""
    cache.clear()
    readers = DOCUMENTS.find_page(discussion_id=awkward, order="threaded", limit=LIMIT)
    learnt = page_windows.get_hint(discussion_id=awkward, order="threaded")
    assert learnt.end == readers[-1].full_slug
    editors = DOCUMENTS.find_page(discussion_id=awkward, order="threaded", limit=LIMIT, viewer=EDITORS)
    assert editors[-1].full_slug != readers[-1].full_slug  # the data makes the two differ
    assert page_windows.get_hint(discussion_id=awkward, order="threaded").end == learnt.end


@pytest.mark.parametrize("limit", [1, 3, 7, 60])
def test_the_newest_comments_read_in_windows_are_those_of_one_query(awkward, limit):
    """A post's summary reads its newest approved comments in windows of `posted`, the
    last hour (and anything stamped later) first: exactly what the one unbounded query
    gives, in its order, even with years of silence, comments dated years ahead and
    hidden comments in between."""
    windowed = DOCUMENTS.find_latest(discussion_id=awkward, limit=limit)
    assert [c.id for c in windowed] == [c.id for c in CommentStore.find_latest(DOCUMENTS, discussion_id=awkward,
                                                                                limit=limit)]
    assert len(windowed) == limit


def test_the_newest_comments_are_read_through_a_bounded_range(awkward, commands):
    """The first query holds the last hour and later; each further one is a range of
    `posted` bounded on both sides (but a last open one if the windows run out), not
    every comment of the discussion sorted to keep the newest."""
    commands.reset()
    DOCUMENTS.find_latest(discussion_id=awkward, limit=60)
    ranges = [set(c["filter"].get("posted", {})) for c in commands.sent if "find" in c]
    assert len(ranges) >= 3, ranges
    assert ranges[0] == {"$gte"}
    assert all(r & {"$lt", "$lte"} and r & {"$gt", "$gte"} for r in ranges[1:-1]), ranges
    assert ranges[-1] & {"$lt", "$lte"}, ranges


@pytest.mark.parametrize("reach", [1, 100, 10_000])
@pytest.mark.parametrize("limit", [3, 60])
def test_the_newest_comments_of_a_discussion_said_to_be_small_are_one_query_and_the_same(awkward, commands,
                                                                                        reach, limit):
    """A summary passes the comments its counters hold (`reach`): a small discussion's
    newest comments are one query, a larger one's are read in windows, and a reach that
    is wrong (the awkward discussion holds about 400) changes the cost, never the
    answer."""
    commands.reset()
    got = DOCUMENTS.find_latest(discussion_id=awkward, limit=limit, reach=reach)
    finds = [c for c in commands.sent if "find" in c]
    assert [c.id for c in got] == [c.id for c in CommentStore.find_latest(DOCUMENTS, discussion_id=awkward,
                                                                           limit=limit)]
    if reach <= LATEST_IN_ONE:
        assert len(finds) == 1 and "posted" not in finds[0]["filter"], finds
    else:
        assert "posted" in finds[0]["filter"], finds


@pytest.mark.parametrize("hidden", [0, 1, 3])
def test_the_newest_comments_since_a_recount_saw_them_are_one_window_and_right_when_that_is_stale(
        awkward, commands, hidden):
    """A recount keeps the times of the newest approved comments (`Survey.newest`, hidden
    ones left out); read `since` the last of them, they are one window, and when some
    of them were hidden since, the read goes on back in time to the same comments as
    one query."""
    surveyed = counters.recount(awkward, store=DOCUMENTS, newest=3)
    newest = CommentStore.find_latest(DOCUMENTS, discussion_id=awkward, limit=3)
    assert [t.replace(tzinfo=None) for t in surveyed.newest] == [c.posted.replace(tzinfo=None) for c in newest]
    if hidden:
        assert DOCUMENTS.set_status(ids=[c.id for c in newest[:hidden]], status=SPAM) == hidden
    commands.reset()
    got = DOCUMENTS.find_latest(discussion_id=awkward, limit=3, reach=10_000, since=surveyed.newest[-1])
    finds = [c for c in commands.sent if "find" in c]
    assert _ids(got) == _ids(CommentStore.find_latest(DOCUMENTS, discussion_id=awkward, limit=3))
    assert (len(finds) == 1) == (hidden == 0), finds


def test_a_new_discussion_s_summary_reads_its_few_comments_once(documents_store, make_post, make_comment, commands):
    """Posting into a discussion of a few comments refreshes the post's summary from
    one read of its newest comments (its counters say it is small), where the windows
    went back through ten of them and the open rest to find that there were no more."""
    post = make_post()
    first = make_comment(post, text="First")
    commands.reset()
    reply = make_comment(post, text="A reply", parent_slug=first.slug)
    latest_reads = [c for c in commands.finds("comments", hint="discussion_posted")
                    if set(c["filter"]) <= {"discussion_id", "status", "posted"}]
    assert len(latest_reads) == 1, latest_reads
    assert [c.slug for c in get_host().get(post.id).latest_comments] == [reply.slug, first.slug]
