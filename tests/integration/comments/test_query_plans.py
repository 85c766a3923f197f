"""The documents store's queries are served from their indexes (the table in
docs/comment-stores.md): the server's own `explain` of each query the store sends
shows the index that query is listed with, and no scan of the whole collection; the
reader's pages through the discussion's indexes, the moderation queue (its tabs,
counts and filters, the dashboard's and the admin page) and a commenter's comments
through theirs, most of them partial. Runs against the real server (MongoDB's plan,
or PostgreSQL's plan under FerretDB v2/DocumentDB)."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

import pytest
from django.test import Client
from pymongo import ASCENDING, DESCENDING, IndexModel

from comments.benchmark import insert_discussion
from comments.moderation import queue as moderation
from comments.records import PENDING, QUEUE_TABS, READERS, SPAM, QueueFilter, by_commenter, queue_order
from comments.stores import Query, counters, get_store
from comments.stores.containers import sort
from comments.stores.documents import INDEXES
from devdb.statistics import analyze
from tests.database import shard_where_the_server_shards
from tests.plans import SHARD_KEY_INDEX, collection_scans, explain, indexes_used, sent_queries

DOCUMENTS = get_store("documents")
pytestmark = pytest.mark.usefixtures("documents_store")

PER_DISCUSSION = 150


@pytest.fixture
def documents_store(settings, mongo_db):
    settings.COMMENTS_STORE = "documents"
    DOCUMENTS.ensure_indexes(mongo_db)


def _assert_indexed(db, commands, call, *expected: str) -> None:
    sent = sent_queries(commands, call, "comments")
    assert sent, "the store sent no query"
    for command in sent:
        nodes = explain(db, command)
        used = indexes_used(nodes)
        assert not collection_scans(nodes), f"{command} scans the collection: {nodes[:1]}"
        assert used & set(expected), f"{command} used {used or 'no index'}, not {expected}"


# --- The moderation queue and commenters: their own indexes, most of them partial ------------------

POSTS = 12
MEMBERS = 40
# The index each queue tab is read from (documents.py INDEXES), and the recent tab's
# when a filter narrows it to one discussion, address or e-mail address.
TAB_INDEXES = {"pending": "queue_held", "spam": "queue_held", "flagged": "queue_flagged",
               "downvoted": "queue_downvoted", "recent": "queue_recent"}
DISCUSSION_INDEXES = ("discussion_posted", "discussion_full_slug", "discussion_thread_newest", "discussion_slug",
                      SHARD_KEY_INDEX)
# The indexes of what a filter narrows a tab to.
NARROWED_RECENT = {"discussion": DISCUSSION_INDEXES, "ip": ("ip",), "email": ("author_email",)}
DECLARED = {model.document["name"] for model in INDEXES}


@pytest.fixture
def queue_collection(mongo_db, make_post):
    """Posts whose discussions hold what the queue lists: about 2% each pending, spam,
    flagged and down-voted comments, and a third of the comments by members. The
    posts, and one member's id, an address and an e-mail address in use."""
    _fresh_collection(mongo_db)
    rng = random.Random(39)
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    made = [make_post() for _ in range(POSTS)]
    for post in made:
        insert_discussion(DOCUMENTS, discussion_id=post.id, count=PER_DISCUSSION, rng=rng, start=start)
    ids = [document["_id"] for document in mongo_db.comments.find({}, {"_id": 1})]
    rng.shuffle(ids)
    n = len(ids) // 50
    changes = [({"status": PENDING}, ids[:n]), ({"status": SPAM}, ids[n:2 * n]),
               ({"flag_count": 2}, ids[2 * n:3 * n]), ({"score": -2, "votes": {"up": 1, "down": 3}}, ids[3 * n:4 * n])]
    changes += [({"author.id": k + 1, "author.email": f"member{k}@example.com", "ip": f"198.51.100.{k}"},
                 ids[4 * n + k::3 * MEMBERS]) for k in range(MEMBERS)]
    for fields, chosen in changes:
        mongo_db.comments.update_many({"_id": {"$in": chosen}}, {"$set": fields})
    for post in made:
        counters.recount(post.id, store=DOCUMENTS)
    analyze(mongo_db.client.address, mongo_db.name, "comments")
    return made, 7, "198.51.100.6", "member6@example.com"


def _fresh_collection(mongo_db) -> None:
    """The comments collection made anew, with the store's indexes (and sharded, on a
    server that shards): the plans checked here must not depend on what earlier tests
    of the session wrote into the table and its indexes, and emptied, nor on when
    autovacuum last took its statistics (made current once the rows are in)."""
    mongo_db.drop_collection("comments")
    DOCUMENTS.ensure_indexes(mongo_db)
    shard_where_the_server_shards(mongo_db)


def _queue_filters(queue_collection) -> dict[str, QueueFilter]:
    made, _, ip, email = queue_collection
    return {"none": QueueFilter(), "discussion": QueueFilter(discussion_id=made[3].id), "name": QueueFilter(name="ada"),
            "ip": QueueFilter(ip=ip), "email": QueueFilter(email=email.upper())}


# A query the server may read from another index: those it may pick instead.
COUNT_INDEXES = ("discussion_posted", "discussion_thread_newest", "discussion_slug", SHARD_KEY_INDEX)


def _index_queries(made, member: int, ip: str, email: str) -> list[tuple[str, str, Callable[[], object], tuple]]:
    """Each index of the store (documents.py INDEXES, with `_id_`) with the queries that
    read it, the table of docs/comment-stores.md: (index, query, the call, indexes the
    server may read that query from instead)."""
    post, ranked = made[3].id, made[0].id

    def page(order: str, after: tuple | None = None) -> Callable[[], object]:
        return lambda: DOCUMENTS.find_page(discussion_id=post, order=order, limit=51, after=after)

    def cursor(order: str) -> Callable[[], object]:
        return page(order, after=DOCUMENTS.find_page(discussion_id=post, order=order, limit=51)[49].key(order))

    def tab(name: str, **filters: str) -> Callable[[], object]:
        return lambda: DOCUMENTS.find_queue(tab=name, filters=QueueFilter(**filters), skip=0, limit=20)

    some = DOCUMENTS.find_page(discussion_id=post, order="threaded", limit=80)[-1]
    threads = [c.thread for c in DOCUMENTS.find_ranked_roots(discussion_id=post, view="best", limit=5)]
    return [
        ("_id_", "comments by id (moderation, flags, votes)", lambda: DOCUMENTS.find_by_ids(ids=[some.id]),
         (SHARD_KEY_INDEX,)),  # DocumentDB's `_id_` leads with the shard key's value
        ("discussion_slug", "a permalink", lambda: DOCUMENTS.find_by_slug(discussion_id=post, slug=some.slug), ()),
        ("discussion_full_slug", "threaded page 1", page("threaded"), ()),
        ("discussion_full_slug", "threaded page by cursor", cursor("threaded"), ()),
        ("discussion_full_slug", "a listing's count",
         lambda: DOCUMENTS.tally_listing(discussion_id=post, viewer=READERS), COUNT_INDEXES),
        ("discussion_posted", "chronological page 1", page("chronological"), ()),
        ("discussion_posted", "chronological page by cursor", cursor("chronological"), ()),
        ("discussion_posted", "a post's latest comments", lambda: DOCUMENTS.find_latest(discussion_id=post, limit=3),
         ()),
        ("discussion_thread_newest", "newest page 1", page("newest"), ()),
        ("discussion_thread_newest", "newest page by cursor", cursor("newest"), ()),
        ("discussion_thread_newest", "a ranked page's threads",
         lambda: DOCUMENTS.find_threads(discussion_id=post, threads=threads), ()),
        ("discussion_best_roots", "the best view's first page",
         lambda: DOCUMENTS.find_ranked_roots(discussion_id=ranked, view="best", limit=10), ()),
        ("discussion_top_roots", "the top view's first page",
         lambda: DOCUMENTS.find_ranked_roots(discussion_id=ranked, view="top", limit=10), ()),
        ("queue_held", "the pending tab", tab("pending"), ()),
        ("queue_held", "the spam tab's count", lambda: DOCUMENTS.count_queue(tab="spam", filters=QueueFilter()), ()),
        ("queue_flagged", "the flagged tab", tab("flagged"), ()),
        ("queue_downvoted", "the most down-voted tab", tab("downvoted"), ()),
        ("queue_recent", "the recent tab", tab("recent"), ()),
        ("author_email", "the recent tab's e-mail filter", tab("recent", email=email.upper()), ()),
        ("member_posted", "the first-comment check", lambda: DOCUMENTS.has_approved_by(author_id=member), ()),
        ("member_posted", "a member's latest comments",
         lambda: DOCUMENTS.find_latest_by_author(author_id=member, limit=5), ()),
        ("member_posted", "a member's discussions", lambda: DOCUMENTS.find_discussion_ids_by_author(author_id=member),
         ()),
        ("member_posted", "a member's ban", lambda: DOCUMENTS.find_by_commenter(
            commenter=by_commenter(user_id=member), exclude_status=SPAM), ()),
        ("member_posted", "a member's rename", lambda: DOCUMENTS.set_author_name(author_id=member, name="Renamed"),
         ()),
        ("ip", "a ban of an address", lambda: DOCUMENTS.find_by_commenter(commenter=by_commenter(ips=[ip])), ()),
        ("ip", "the recent tab's IP filter", tab("recent", ip=ip), ()),
    ]


def test_each_index_is_read_by_the_queries_listed_with_it(mongo_db, commands, queue_collection):
    """Every index the store declares is listed with the queries that read it (one
    that no query reads would cost every write for nothing), and the server's plan of
    each of those queries reads that index and scans nothing whole: a discussion's
    pages of each view, page 1 and by cursor, its permalinks, count and latest
    comments, the ranked views, the queue's tabs and filters, a member's and an
    address's comments."""
    rows = _index_queries(*queue_collection)
    assert {index for index, *_ in rows} == DECLARED | {"_id_"}, "an index that no listed query reads"
    for index, label, call, instead in rows:
        sent = sent_queries(commands, call, "comments")
        assert sent, f"{label}: no query sent"
        for command in sent:
            nodes = explain(mongo_db, command)
            assert not collection_scans(nodes), f"{label}: {command} scans the collection"
            assert indexes_used(nodes) & {index, *instead}, f"{label}: {command} reads {indexes_used(nodes)}"

def test_each_queue_tab_is_read_from_its_index(mongo_db, commands, queue_collection):
    """Every tab's page and count, with each filter, is read from the tab's index or
    from that of the discussion, address or e-mail address a filter narrows it to,
    whichever the planner finds narrower (the recent tab so narrowed: from the
    latter; its count, which the counters give, or by a name, which counts every
    comment: from none)."""
    for label, filters in _queue_filters(queue_collection).items():
        for tab in QUEUE_TABS:
            narrowed = NARROWED_RECENT.get(label, ())
            expected = (narrowed or (TAB_INDEXES[tab],)) if tab == "recent" else (TAB_INDEXES[tab], *narrowed)
            _assert_indexed(mongo_db, commands,
                            lambda: moderation.queue_page(tab=tab, filters=filters, skip=0, limit=20), *expected)
            if tab != "recent" or label in NARROWED_RECENT:  # else every comment: documents.py `_queue_hint`
                _assert_indexed(mongo_db, commands, lambda: DOCUMENTS.count_queue(tab=tab, filters=filters), *expected)


def test_the_partial_indexes_give_every_comment_of_their_tab(queue_collection):
    """A tab read from its partial index lists what the tab's condition selects, every
    comment of it (compared with the same condition evaluated in Python)."""
    everything = DOCUMENTS.find(Query())
    for tab in QUEUE_TABS:
        query = Query(tab=tab, order=tuple(queue_order(tab)))
        listed = DOCUMENTS.find(query)
        assert listed == sort([c for c in everything if query.matches(c)], query.order)
        assert DOCUMENTS.count_queue(tab=tab, filters=QueueFilter()) == len(listed)
        assert len(listed) >= (1 if tab != "recent" else POSTS * PER_DISCUSSION)


def test_the_recent_tab_read_in_windows_is_the_slice_of_every_comment(mongo_db, queue_collection):
    """The recent tab's pages, read in windows of `posted` going back from the last
    hour (then from where page 1 ended), are the slices of every comment newest
    first: also past a comment dated ahead of the clock, with a filter by name, past
    the last comment, and with a comment newer than the remembered page 1."""
    made = queue_collection[0]
    ahead = (datetime.now(timezone.utc) + timedelta(days=3)).replace(microsecond=0)
    mongo_db.comments.update_one({"discussion_id": made[5].id}, {"$set": {"posted": ahead}})
    for filters in (QueueFilter(), QueueFilter(name="bo")):
        query = Query(tab="recent", filters=filters, order=tuple(queue_order("recent")))
        every = sort([c for c in DOCUMENTS.find(Query()) if query.matches(c)], query.order)
        assert len(every) > 40, filters  # pages to slice, else every slice below is []
        if filters == QueueFilter():  # every comment: the one dated ahead of the clock leads
            assert every[0].posted == ahead
        for skip in (0, 30, 500, len(every) - 10, len(every) + 5):
            assert DOCUMENTS.find_queue(tab="recent", filters=filters, skip=skip, limit=30) == every[skip:skip + 30]
    # Page 1's end is remembered (a hint): a comment that arrives later is still on top.
    later = mongo_db.comments.find_one_and_update({"discussion_id": made[6].id},
                                                  {"$set": {"posted": ahead + timedelta(hours=1)}})
    assert DOCUMENTS.find_queue(tab="recent", filters=QueueFilter(), skip=0, limit=30)[0].id == later["_id"]


@pytest.mark.urls("tests.integration.comments.moderation_host_urls")
def test_the_queue_pages_and_the_admin_page_read_comments_from_indexes(mongo_db, commands, queue_collection,
                                                                       make_user):
    """Every query the dashboard's queue (each tab) and the admin page of comments send
    to the comments collection reads an index and scans nothing whole."""
    client = Client()
    client.force_login(make_user("bruno", role="editor"))
    pages = [f"/dashboard/moderation/?tab={tab}" for tab in QUEUE_TABS] + ["/admin/comments/"]
    for address in pages:
        sent = sent_queries(commands, lambda: client.get(address), "comments")
        assert sent, f"{address} sent no query to the comments collection"
        for command in sent:
            nodes = explain(mongo_db, command)
            assert not collection_scans(nodes) and indexes_used(nodes) & DECLARED, \
                f"{address}: {command} reads no index"


def test_ensure_indexes_drops_the_indexes_the_store_no_longer_has(mongo_db):
    """A database made before issue 39 sheds the global queue indexes on its next
    ensure_indexes, and has the partial ones instead; a second run changes nothing."""
    mongo_db.comments.drop_indexes()
    mongo_db.comments.create_indexes([IndexModel([("posted", DESCENDING)], name="posted"),
                                      IndexModel([("flag_count", DESCENDING), ("posted", DESCENDING)], name="flagged"),
                                      IndexModel([("author.id", ASCENDING), ("posted", DESCENDING)], name="author_id")])
    DOCUMENTS.ensure_indexes(mongo_db)
    DOCUMENTS.ensure_indexes(mongo_db)
    info = mongo_db.comments.index_information()
    assert set(info) == {"_id_"} | {model.document["name"] for model in INDEXES}
    assert info["queue_flagged"]["partialFilterExpression"] == {"flag_count": {"$gt": 0}}
