"""The embedded comment store (comments/stores/embedded.py, its pure helpers in
embedded_tree.py): the comment tree inside one
`discussions` document per post. Its own edge cases: positions and dotted paths,
where a reply is pushed, slug uniqueness, the document size limit (through the
service and the view, the reader's text kept), the guards of its updates, and
export / import as the documents store's flat documents. Concurrent writers are
tests/integration/comments/test_embedded_concurrency.py's; the behaviour it shares with the other stores
is the shared suite's (each_store)."""

from __future__ import annotations

import functools
import random
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest
from bson import ObjectId

from comments.posting import services
from comments.records import (
    APPROVED,
    DELETED,
    ORDERS,
    PENDING,
    SPAM,
    CommentAuthor,
    DiscussionFull,
    QueueFilter,
    SlugTaken,
)
from comments.stores import embedded, embedded_tree, get_store
from tests.page_reading import page, post_url, submit
from tests.threads import at_once

DOCUMENTS = get_store("documents")
EMBEDDED = get_store("embedded")
BASE = datetime(2026, 4, 1, 12, 0, tzinfo=timezone.utc)
ROSA = CommentAuthor(id=None, name="Rosa", email="rosa@example.com")
MEMBER = CommentAuthor(id=7, name="Ada", email="ada@example.com")


@pytest.fixture
def embedded_store(settings):
    settings.COMMENTS_STORE = "embedded"
    return embedded


def node(slug: str, *replies: dict) -> dict:
    return {"_id": ObjectId(), "slug": slug, "replies": list(replies)}


# --- Pure: positions, dotted names, the tree ------------------------------------------


def test_a_chain_is_the_slugs_from_the_root():
    assert embedded_tree.chain_of("aaaaaaaa") == ("aaaaaaaa",)
    assert embedded_tree.chain_of("aaaaaaaa/bbbbbbbb/cccccccc") == (
        "aaaaaaaa", "aaaaaaaa/bbbbbbbb", "aaaaaaaa/bbbbbbbb/cccccccc",
    )


def test_a_chain_names_one_array_filter_per_depth():
    """The empty chain is the discussion's own field; each depth has its identifier
    and the filter that picks its slug."""
    assert embedded_tree.chain_field((), "replies") == "replies"
    assert embedded_tree.chain_field(("a",), "status") == "replies.$[c0].status"
    assert embedded_tree.chain_field(("a", "a/b"), "replies") == "replies.$[c0].replies.$[c1].replies"
    assert embedded_tree.chain_filters(()) is None
    assert embedded_tree.chain_filters(("a", "a/b")) == [{"c0.slug": "a"}, {"c1.slug": "a/b"}]


def test_a_chain_exists_as_nested_elem_matches():
    """Each node inside its parent's replies; the condition applies to the last one."""
    assert embedded_tree.chain_exists(()) == {}
    assert embedded_tree.chain_exists(("a", "a/b"), _id=5) == {
        "replies": {"$elemMatch": {"slug": "a", "replies": {"$elemMatch": {"slug": "a/b", "_id": 5}}}}
    }


def test_flatten_walks_the_tree_depth_first_with_chains():
    """Each comment comes before its replies, each level in array order."""
    tree = [node("a", node("a/b", node("a/b/c")), node("a/d")), node("e")]
    walked = [(chain, n["slug"]) for chain, n in embedded_tree.flatten(tree)]
    assert walked == [
        (("a",), "a"), (("a", "a/b"), "a/b"), (("a", "a/b", "a/b/c"), "a/b/c"), (("a", "a/d"), "a/d"),
        (("e",), "e"),
    ]


def test_a_query_at_any_depth_names_each_depth():
    query = embedded_tree.any_depth("_id", 5, depth=3)
    assert query == {
        "$or": [{"replies._id": 5}, {"replies.replies._id": 5}, {"replies.replies.replies._id": 5}]
    }


def flat(slug: str, minutes: int, **extra) -> dict:
    posted = BASE + timedelta(minutes=minutes)
    return {"_id": ObjectId(), "discussion_id": ObjectId(), "slug": slug, "posted": posted, **extra}


def test_graft_nests_new_replies_in_their_new_parents_and_skips_known_slugs():
    """Children given before their parents still land under them; a slug the tree has is
    skipped; a reply to a comment already there is one subtree under its position."""
    tree = [node("a", node("a/b"))]
    docs = [flat("c/d", 3), flat("c", 2), flat("a", 1), flat("a/b/x", 4), flat("c/d/e", 5)]
    grafts, added = embedded_tree.graft(tree, docs)
    assert added == 4
    assert set(grafts) == {(), ("a", "a/b")}
    [c] = grafts[()]
    assert c["slug"] == "c" and "discussion_id" not in c
    assert [r["slug"] for r in c["replies"]] == ["c/d"]
    assert [r["slug"] for r in c["replies"][0]["replies"]] == ["c/d/e"]
    assert [n["slug"] for n in grafts[("a", "a/b")]] == ["a/b/x"]


def test_graft_keeps_an_orphan_at_the_top_level_and_skips_a_known_id():
    tree = [node("a")]
    known = flat("z", 1)
    known["_id"] = tree[0]["_id"]
    grafts, added = embedded_tree.graft(tree, [flat("q/r", 2), known])
    assert added == 1
    assert [n["slug"] for n in grafts[()]] == ["q/r"]


def test_an_import_update_pushes_under_one_comment_of_each_top_level_subtree():
    """New top-level comments alone; then one chain per top-level comment an update,
    never an ancestor's with its descendant's or two siblings' (DocumentDB drops one)."""
    grafts = {("a",): [node("a/x")], ("a", "a/b"): [node("a/b/y")], ("c",): [node("c/z")], (): [node("e")]}
    assert [list(r) for r in embedded_tree.in_rounds(grafts)] == [[()], [("a",), ("c",)], [("a", "a/b")]]
    assert embedded_tree.deepest([node("a/b/y"), node("e")]) == 3


# --- The tree in MongoDB -----------------------------------------------------------------


def test_replies_are_pushed_under_their_parents_position(embedded_store, make_post, make_comment, mongo_db):
    """The second root's reply's reply sits at replies.1.replies.0.replies.0, and no
    node repeats the discussion id (the document holds it once)."""
    post = make_post()
    make_comment(post, text="first")
    second = make_comment(post, text="second")
    reply = make_comment(post, text="reply", parent_slug=second.slug)
    deeper = make_comment(post, text="deeper", parent_slug=reply.slug)
    stored = mongo_db.discussions.find_one({"_id": post.id})
    assert stored["discussion_id"] == post.id
    assert [n["text"] for n in stored["replies"]] == ["first", "second"]
    placed = stored["replies"][1]["replies"][0]["replies"][0]
    assert placed["_id"] == deeper.id and placed["slug"] == deeper.slug and placed["replies"] == []
    assert placed["parent_id"] == reply.id
    assert all("discussion_id" not in n for _, n in embedded_tree.flatten(stored["replies"]))
    assert mongo_db.comments.count_documents({}) == 0


def test_a_node_holds_the_fields_of_a_documents_store_comment(embedded_store, make_post, mongo_db):
    """Every field records.new_document gives, except discussion_id, plus replies (and
    `intent`, null once its insert is counted: comments/stores/counters.py)."""
    post = make_post()
    services.post_comment(post=post, text="Hello", author=MEMBER, form_key="k" * 20, ip="10.0.0.1")
    [stored] = mongo_db.discussions.find_one({"_id": post.id})["replies"]
    assert set(stored) == {
        "_id", "parent_id", "slug", "full_slug", "thread", "posted", "author", "text", "html", "form_key", "status",
        "ip", "votes", "score", "rank", "picked", "replies", "intent",
    }
    assert stored["intent"] is None
    assert stored["author"] == {"id": 7, "name": "Ada", "email": "ada@example.com"}


def insert(post, slug: str, *, parent=None, at: datetime = BASE):
    """A comment straight into the store (a slug of our choosing)."""
    full = f"{at.strftime('%Y.%m.%d.%H.%M.%S.%f')}:{slug.rsplit('/', 1)[-1]}"
    return EMBEDDED.insert_comment(
        discussion_id=post.id, parent=parent, slug=slug, posted=at, author=ROSA, text=f"text of {slug}", html="",
        full_slug=(parent.full_slug + "/" + full) if parent else full,
    )


def test_a_slug_the_discussion_has_is_refused_at_the_top_and_below(embedded_store, make_post, mongo_db):
    """SlugTaken, and the document keeps one comment per slug."""
    post = make_post()
    root = insert(post, "aaaaaaaa")
    reply = insert(post, "aaaaaaaa/bbbbbbbb", parent=root)
    with pytest.raises(SlugTaken):
        insert(post, "aaaaaaaa", at=BASE + timedelta(seconds=1))
    with pytest.raises(SlugTaken):
        insert(post, "aaaaaaaa/bbbbbbbb", parent=root, at=BASE + timedelta(seconds=1))
    assert insert(post, "aaaaaaaa/bbbbbbbb/aaaaaaaa", parent=reply).depth == 2
    stored = mongo_db.discussions.find_one({"_id": post.id})
    assert [n["slug"] for _, n in embedded_tree.flatten(stored["replies"])] == [
        "aaaaaaaa", "aaaaaaaa/bbbbbbbb", "aaaaaaaa/bbbbbbbb/aaaaaaaa",
    ]


def test_the_same_slug_in_another_discussion_is_fine(embedded_store, make_post):
    one, two = make_post(), make_post()
    insert(one, "aaaaaaaa")
    assert insert(two, "aaaaaaaa").discussion_id == two.id


def test_reads_unpack_the_tree_with_the_discussion_id(embedded_store, make_post, make_comment):
    post = make_post()
    root = make_comment(post, at=BASE)
    reply = make_comment(post, parent_slug=root.slug, at=BASE + timedelta(minutes=1))
    assert EMBEDDED.find_by_slug(discussion_id=post.id, slug=reply.slug) == reply
    assert EMBEDDED.find_by_id(reply.id) == reply
    assert EMBEDDED.find_subthread(comment=root) == [root, reply]
    assert EMBEDDED.find_page(discussion_id=post.id, order="threaded", limit=10) == [root, reply]


# --- The document size limit ---------------------------------------------------------------


def full_discussion(settings, make_post, make_comment):
    """A post whose discussion document is just under a small COMMENTS_EMBEDDED_MAX_BYTES."""
    post = make_post()
    make_comment(post, text="x" * 400)
    size = len(embedded.bson.encode(EMBEDDED._load(post.id)))
    settings.COMMENTS_EMBEDDED_MAX_BYTES = size + 300
    return post


def test_a_comment_past_the_limit_is_refused_with_the_way_out(
    embedded_store, settings, make_post, make_comment, mongo_db,
):
    """DiscussionFull names the discussion and the migration command; nothing is written."""
    post = full_discussion(settings, make_post, make_comment)
    before = mongo_db.discussions.find_one({"_id": post.id})
    with pytest.raises(DiscussionFull) as refused:
        insert(post, "zzzzzzzz", at=BASE + timedelta(days=1))
    opening = embedded.DISCUSSION_FULL.split("{size}")[0].format(discussion_id=post.id)
    assert str(refused.value).startswith(opening)
    assert "python manage.py comments_migrate --to buckets" in str(refused.value)
    assert mongo_db.discussions.find_one({"_id": post.id}) == before


def test_the_default_limit_is_the_servers_minus_the_margin(embedded_store, settings):
    settings.COMMENTS_EMBEDDED_MAX_BYTES = 0
    assert embedded.max_bytes() == embedded.max_document_bytes() - 512 * 1024


def test_posting_to_a_full_discussion_is_a_comment_error(embedded_store, settings, make_post, make_comment):
    post = full_discussion(settings, make_post, make_comment)
    with pytest.raises(services.CommentError, match=services.DISCUSSION_FULL) as refused:
        services.post_comment(post=post, text="y" * 400, author=ROSA)
    assert refused.value.code == "discussion_full"


def test_a_reader_posting_to_a_full_discussion_sees_why_and_keeps_the_text(
    embedded_store, settings, make_post, make_comment, client,
):
    """The form comes back with the refusal and the reader's words; nothing is stored."""
    post = full_discussion(settings, make_post, make_comment)
    words = "My long reply\n" + "z" * 400
    response = submit(client, post_url(post), text=words)
    assert response.status_code == 400
    shown = page(response)
    assert shown.text_of("form-errors") == [services.DISCUSSION_FULL]
    assert shown.textareas["text"] == words
    assert EMBEDDED.tally_listing(discussion_id=post.id).total == 1


# --- Concurrent writers ------------------------------------------------------------------


def test_concurrent_replies_to_one_discussion_all_land(embedded_store, make_post, make_comment):
    """Eight threads reply to the same comments at once through the service; every
    reply is stored (each is one atomic `$push`, none rewrites another's)."""
    post = make_post()
    root = make_comment(post, summarise=False)
    other = make_comment(post, summarise=False)
    threads_count, per_thread = 8, 5

    def write(n: int) -> None:
        for i in range(per_thread):
            parent = (root, other, None)[(n + i) % 3]
            services.post_comment(post=post, text=f"reply {n}.{i}", author=ROSA,
                                  parent_slug=parent and parent.slug, summarise=False)

    outcomes = at_once([functools.partial(write, n) for n in range(threads_count)])
    assert outcomes == [None] * threads_count
    texts = {c.text for c in EMBEDDED.find_page(discussion_id=post.id, order="chronological", limit=1000)}
    assert {f"reply {n}.{i}" for n in range(threads_count) for i in range(per_thread)} <= texts
    assert EMBEDDED.tally_listing(discussion_id=post.id).total == 2 + threads_count * per_thread


def test_the_same_form_posted_twice_is_one_comment(embedded_store, make_post):
    """The form's key derives the slug: the second post meets SlugTaken in the tree and
    gets the first comment back (the shared posting-once tests count raw documents)."""
    post = make_post()
    first = services.post_comment(post=post, text="Once", author=ROSA, form_key="f" * 22)
    again = services.post_comment(post=post, text="Once", author=ROSA, form_key="f" * 22)
    assert (again.comment, again.duplicate) == (first.comment, True)
    assert EMBEDDED.tally_listing(discussion_id=post.id).total == 1


def test_a_form_key_the_discussion_holds_is_refused_under_another_slug(
    embedded_store, make_post, mongo_db,
):
    """The push's filter refuses a second comment with the same form key anywhere in
    the tree, even when its slug differs (SlugTaken, nothing written)."""
    post = make_post()
    root = insert(post, "aaaaaaaa")
    EMBEDDED.insert_comment(
        discussion_id=post.id, parent=root, slug="aaaaaaaa/bbbbbbbb", full_slug=root.full_slug + "/b",
        posted=BASE, author=ROSA, text="once", html="", form_key="f" * 22,
    )
    before = mongo_db.discussions.find_one({"_id": post.id})
    with pytest.raises(SlugTaken):
        EMBEDDED.insert_comment(
            discussion_id=post.id, parent=None, slug="cccccccc", full_slug="c", posted=BASE,
            author=ROSA, text="again", html="", form_key="f" * 22,
        )
    assert mongo_db.discussions.find_one({"_id": post.id}) == before


def test_a_reply_to_a_missing_parent_is_refused(embedded_store, make_post):
    post = make_post()
    root = insert(post, "aaaaaaaa")
    ghost = replace(root, id=ObjectId(), slug="aaaaaaaa/gggggggg", full_slug=root.full_slug + "/g")
    with pytest.raises(LookupError, match="aaaaaaaa/gggggggg"):
        insert(post, "aaaaaaaa/gggggggg/hhhhhhhh", parent=ghost)


def test_a_reply_to_an_orphan_kept_at_the_top_level_lands_under_it(embedded_store, make_post, mongo_db):
    """An import keeps a reply whose parent is nowhere at the top level; replying to
    it, and changing that reply, go through where it actually sits."""
    post = make_post()
    orphan = {**flat("qqqqqqqq/rrrrrrrr", 1, full_slug="fq/fr", text="orphan"), "discussion_id": post.id}
    assert EMBEDDED.insert_documents(documents=[orphan]) == 1
    parent = EMBEDDED.find_by_slug(discussion_id=post.id, slug="qqqqqqqq/rrrrrrrr")
    reply = insert(post, "qqqqqqqq/rrrrrrrr/ssssssss", parent=parent)
    assert EMBEDDED.set_status(ids=[reply.id], status=SPAM) == 1
    [top] = mongo_db.discussions.find_one({"_id": post.id})["replies"]
    assert top["slug"] == parent.slug
    assert [(n["_id"], n["status"]) for n in top["replies"]] == [(reply.id, SPAM)]


def test_a_change_through_a_chain_that_is_not_there_writes_nothing(embedded_store, make_post, mongo_db):
    """The nested $elemMatch guard: an update whose chain walks into an empty replies
    array matches no document, so no null is ever written there (documentdb#507)."""
    post = make_post()
    leaf = insert(post, "aaaaaaaa")
    before = mongo_db.discussions.find_one({"_id": post.id})
    result = EMBEDDED._set(post.id, ("aaaaaaaa", "aaaaaaaa/zzzzzzzz"), ObjectId(), {"status": SPAM})
    assert result.modified_count == 0
    assert mongo_db.discussions.find_one({"_id": post.id}) == before
    assert before["replies"][0]["replies"] == [] and leaf.depth == 0


def test_an_edit_gives_back_the_comment_after_it(embedded_store, make_post, make_comment):
    post = make_post()
    reply = make_comment(post, parent_slug=make_comment(post).slug)
    edited = EMBEDDED.update_text(
        comment_id=reply.id, text="new words", html="<p>new words</p>", status=PENDING, edited=BASE
    )
    assert (edited.id, edited.text, edited.status, edited.edited) == (reply.id, "new words", PENDING, BASE)
    assert EMBEDDED.find_by_id(reply.id) == edited
    assert EMBEDDED.update_text(comment_id=ObjectId(), text="", html="", status=PENDING, edited=BASE) is None


def test_the_approved_count_counts_every_depth(embedded_store, make_post, make_comment):
    """A post's approved count (read as statuses only) reaches nested comments."""
    post = make_post()
    root = make_comment(post, text="x" * 1000)
    reply = make_comment(post, parent_slug=root.slug, text="y" * 1000)
    make_comment(post, parent_slug=reply.slug)
    EMBEDDED.set_status(ids=[reply.id], status=SPAM)
    assert EMBEDDED.count_approved(discussion_id=post.id) == 2


# --- Changes in place, across discussions --------------------------------------------------


def test_status_changes_reach_nested_comments_in_several_discussions(embedded_store, make_post, make_comment,
                                                                    mongo_db):
    """One set_status over ids of two discussions changes exactly those comments, at
    their positions; a second run changes nothing."""
    one, two = make_post(), make_post()
    root = make_comment(one)
    deep = make_comment(one, parent_slug=make_comment(one, parent_slug=root.slug).slug)
    elsewhere = make_comment(two)
    untouched = make_comment(two)
    assert EMBEDDED.set_status(ids=[deep.id, elsewhere.id], status=SPAM) == 2
    assert EMBEDDED.set_status(ids=[deep.id, elsewhere.id], status=SPAM) == 0
    stored = mongo_db.discussions.find_one({"_id": one.id})
    assert stored["replies"][0]["replies"][0]["replies"][0]["status"] == SPAM
    assert EMBEDDED.find_by_id(elsewhere.id).status == SPAM
    assert EMBEDDED.find_by_id(untouched.id).status == APPROVED
    assert EMBEDDED.find_by_id(root.id).status == APPROVED


def test_the_queue_pages_across_discussions_newest_first(embedded_store, make_post, make_comment):
    """Pending comments of three discussions, newest first, sliced after the sort."""
    posts_ = [make_post() for _ in range(3)]
    made = [make_comment(posts_[i % 3], at=BASE + timedelta(minutes=i), summarise=False) for i in range(9)]
    make_comment(posts_[0], at=BASE + timedelta(hours=1), summarise=False)  # approved: not in the tab
    assert EMBEDDED.set_status(ids=[c.id for c in made], status=PENDING) == 9
    newest = [c.id for c in reversed(made)]
    assert EMBEDDED.count_queue(tab="pending", filters=QueueFilter()) == 9
    page_ = EMBEDDED.find_queue(tab="pending", filters=QueueFilter(), skip=2, limit=4)
    assert [c.id for c in page_] == newest[2:6]
    assert EMBEDDED.count_queue(tab="pending", filters=QueueFilter(discussion_id=posts_[0].id)) == 3


def test_a_rename_reaches_every_copy_once(embedded_store, make_post, make_comment):
    """Every copy of a member's name, nested or not, in every discussion; a rerun writes nothing."""
    one, two = make_post(), make_post()
    mine = [make_comment(one, author=MEMBER), make_comment(two, author=MEMBER)]
    mine.append(make_comment(one, author=MEMBER, parent_slug=mine[0].slug))
    make_comment(one)
    assert EMBEDDED.set_author_name(author_id=7, name="Ada L.") == 3
    assert EMBEDDED.set_author_name(author_id=7, name="Ada L.") == 0
    assert {c.author.name for c in EMBEDDED.find_by_ids(ids=[c.id for c in mine])} == {"Ada L."}
    assert set(EMBEDDED.find_discussion_ids_by_author(author_id=7)) == {one.id, two.id}
    assert EMBEDDED.find_member_authors() == [CommentAuthor(id=7, name="Ada L.", email="ada@example.com")]


# --- Export and import ----------------------------------------------------------------------


def discussion_with_replies(post, make_comment) -> list:
    made = [make_comment(post, at=BASE, summarise=False)]
    for i, parent in enumerate([0, 0, 1, None, 3, 2], start=1):
        slug = made[parent].slug if parent is not None else None
        made.append(make_comment(post, parent_slug=slug, at=BASE + timedelta(minutes=i), summarise=False))
    EMBEDDED.set_status(ids=[made[2].id], status=DELETED, blank=True)
    return made


def test_export_gives_the_documents_stores_flat_documents(embedded_store, make_post, make_comment):
    """Each comment as one flat document with discussion_id and no replies, in
    discussion and posting order; the documents store given them exports the same."""
    one, two = make_post(), make_post()
    discussion_with_replies(one, make_comment)
    discussion_with_replies(two, make_comment)
    exported = list(EMBEDDED.iter_documents())
    assert len(exported) == 14
    assert all("replies" not in d and list(d)[:2] == ["_id", "discussion_id"] for d in exported)
    assert [(d["discussion_id"], d["posted"], d["_id"]) for d in exported] == sorted(
        (d["discussion_id"], d["posted"], d["_id"]) for d in exported
    )
    assert DOCUMENTS.insert_documents(documents=exported) == 14
    assert list(DOCUMENTS.iter_documents()) == exported


def test_import_rebuilds_the_tree_whatever_the_order_and_skips_what_is_there(
    embedded_store, make_post, make_comment,
):
    """Dropped and imported back in shuffled batches, a discussion pages exactly as
    before; importing again adds nothing."""
    post = make_post()
    discussion_with_replies(post, make_comment)
    before = {order: EMBEDDED.find_page(discussion_id=post.id, order=order, limit=100) for order in ORDERS}
    exported = list(EMBEDDED.iter_documents(discussion_id=post.id))
    assert EMBEDDED.drop_discussion(discussion_id=post.id) == 7
    assert EMBEDDED.discussion_ids() == []
    shuffled = exported[:]
    random.Random(4).shuffle(shuffled)
    assert EMBEDDED.insert_documents(documents=shuffled[:3]) == 3
    assert EMBEDDED.insert_documents(documents=shuffled) == 4
    assert EMBEDDED.insert_documents(documents=exported) == 0
    after = {order: EMBEDDED.find_page(discussion_id=post.id, order=order, limit=100) for order in ORDERS}
    assert after == before
    assert list(EMBEDDED.iter_documents(discussion_id=post.id)) == exported
    assert EMBEDDED.discussion_ids() == [post.id]


def test_an_import_past_the_limit_is_refused(embedded_store, settings, make_post, make_comment):
    post = make_post()
    discussion_with_replies(post, make_comment)
    exported = list(EMBEDDED.iter_documents(discussion_id=post.id))
    EMBEDDED.drop_discussion(discussion_id=post.id)
    settings.COMMENTS_EMBEDDED_MAX_BYTES = 1000
    with pytest.raises(DiscussionFull):
        EMBEDDED.insert_documents(documents=exported)
    assert EMBEDDED.tally_listing(discussion_id=post.id).total == 0


def test_an_import_batch_under_an_ancestor_and_its_descendant_lands_whole(
    embedded_store, make_post, make_comment, mongo_db,
):
    """The second batch pushes under a root, under that root's reply and under another
    root at once (a new reply nested in its new parent): every comment lands where it
    was, counted once."""
    post = make_post()
    discussion_with_replies(post, make_comment)
    exported = list(EMBEDDED.iter_documents(discussion_id=post.id))
    EMBEDDED.drop_discussion(discussion_id=post.id)
    assert EMBEDDED.insert_documents(documents=[exported[k] for k in (0, 1, 4)]) == 3
    assert EMBEDDED.insert_documents(documents=[exported[k] for k in (2, 3, 5, 6)]) == 4
    assert list(EMBEDDED.iter_documents(discussion_id=post.id)) == exported
    tree = mongo_db.discussions.find_one({"_id": post.id})["replies"]
    assert all(chain == embedded_tree.chain_of(n["slug"]) for chain, n in embedded_tree.flatten(tree))


def test_an_imported_id_stored_deeper_under_another_slug_is_skipped(embedded_store, make_post, make_comment):
    """A comment stored before as a reply of a reply comes again as a top-level one (a
    rerun after COMMENTS_MAX_DEPTH changed): its id is found at the depth it sits at."""
    post = make_post()
    made = discussion_with_replies(post, make_comment)
    [deep] = [d for d in EMBEDDED.iter_documents(discussion_id=post.id) if d["_id"] == made[3].id]
    assert EMBEDDED.insert_documents(documents=[{**deep, "slug": "again", "parent_id": None}]) == 0
    assert len(list(EMBEDDED.iter_documents(discussion_id=post.id))) == 7
