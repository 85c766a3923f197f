"""The embedded store under concurrent writers (comments/stores/embedded.py): every write is
one conditional update of one discussion document, with no lease, so the rules in
the update's filter must hold however many writers race. Threads start together at
a barrier; each test counts what the document holds afterwards."""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

import bson
import pytest

from comments.records import PENDING, CommentAuthor, DiscussionFull, SlugTaken
from comments.stores import embedded, embedded_tree, get_store
from tests import threads
from tests.threads import split

EMBEDDED = get_store("embedded")
BASE = datetime(2026, 4, 1, 12, 0, tzinfo=timezone.utc)
ROSA = CommentAuthor(id=None, name="Rosa", email="rosa@example.com")
THREADS = 8


@pytest.fixture(autouse=True)
def embedded_store(settings):
    settings.COMMENTS_STORE = "embedded"


def at_once(work: Callable[[int], object], times: int = THREADS) -> tuple[list, list[BaseException]]:
    """work(0) ... work(times - 1) in threads released together; their results and
    their exceptions."""
    return split(threads.at_once([functools.partial(work, n) for n in range(times)]))


def stored_nodes(mongo_db, post) -> list[dict]:
    discussion = mongo_db.discussions.find_one({"_id": post.id}) or {}
    return [node for _, node in embedded_tree.flatten(discussion.get("replies") or [])]


def insert(post, slug: str, *, parent=None, form_key=None, text="", minutes=0):
    """A comment straight into the store, with a slug of our choosing."""
    at = BASE + timedelta(minutes=minutes)
    part = f"{at.strftime('%Y.%m.%d.%H.%M.%S.%f')}:{slug.rsplit('/', 1)[-1]}"
    return EMBEDDED.insert_comment(
        discussion_id=post.id, parent=parent, slug=slug, posted=at, author=ROSA,
        text=text or f"text of {slug}", html="", form_key=form_key,
        full_slug=(parent.full_slug + "/" + part) if parent else part,
    )


@pytest.mark.parametrize("as_reply", [False, True], ids=["root", "reply"])
def test_one_form_sent_by_eight_threads_is_one_comment(
    make_post, make_comment, post_at_once, mongo_db, as_reply,
):
    """Eight submits of one form at the same moment store one comment; the seven
    others are answered with it as a duplicate."""
    post = make_post()
    parent = make_comment(post, summarise=False) if as_reply else None
    results = post_at_once(post, times=THREADS, form_key="k" * 22, parent_slug=parent and parent.slug)
    raced = [node for node in stored_nodes(mongo_db, post) if node["text"] == "Raced"]
    assert len(raced) == 1
    assert {r.comment.id for r in results} == {raced[0]["_id"]}
    assert sorted(r.duplicate for r in results) == [False] + [True] * (THREADS - 1)


def test_one_form_key_under_eight_slugs_at_once_is_one_comment(make_post, mongo_db):
    """The store itself refuses a second comment with a form key the discussion holds,
    whatever its slug: one insert wins, seven meet SlugTaken."""
    post = make_post()
    root = insert(post, "aaaaaaaa")
    slugs_ = [f"aaaaaaaa/{chr(ord('a') + n) * 8}" for n in range(THREADS)]
    results, errors = at_once(
        lambda n: insert(post, slugs_[n], parent=root, form_key="f" * 22, minutes=1)
    )
    assert len(results) == 1
    assert len(errors) == THREADS - 1 and all(isinstance(e, SlugTaken) for e in errors)
    keyed = [n["_id"] for n in stored_nodes(mongo_db, post) if n.get("form_key") == "f" * 22]
    assert keyed == [results[0].id]


def test_eight_different_replies_at_once_all_land_under_their_parents(make_post, mongo_db):
    """Replies to comments at several depths, sent together: each is stored once,
    under its own parent; no null stands in for a node anywhere."""
    post = make_post()
    chain = [insert(post, "aaaaaaaa")]
    for depth in range(1, 4):
        chain.append(insert(post, chain[-1].slug + "/" + "abcd"[depth] * 8, parent=chain[-1], minutes=depth))
    leaf = insert(post, "qqqqqqqq", minutes=5)
    parents = [chain[n % 4] if n % 5 else leaf for n in range(THREADS)]
    results, errors = at_once(
        lambda n: insert(post, f"{parents[n].slug}/{'mnopqrst'[n] * 8}", parent=parents[n], minutes=10 + n)
    )
    assert errors == []
    by_id = {n["_id"]: n for n in stored_nodes(mongo_db, post)}
    assert len(by_id) == 5 + THREADS
    for reply in results:
        assert by_id[reply.id]["parent_id"] == reply.parent_id
    tree = mongo_db.discussions.find_one({"_id": post.id})["replies"]
    for _, node in embedded_tree.flatten(tree):
        assert None not in node["replies"]
        assert all(r["parent_id"] == node["_id"] for r in node["replies"])


def test_eight_first_comments_of_a_new_discussion_all_land(make_post, mongo_db):
    """The discussion document is created once; the other writers push into it."""
    post = make_post()
    results, errors = at_once(lambda n: insert(post, "abcdefgh"[n] * 8, minutes=n))
    assert errors == []
    assert sorted(n["slug"] for n in stored_nodes(mongo_db, post)) == sorted(c.slug for c in results)
    assert len(results) == THREADS and mongo_db.discussions.count_documents({"_id": post.id}) == 1


def test_the_size_limit_holds_when_writers_race_for_the_last_room(settings, make_post, mongo_db):
    """With room for about three more comments, eight writers at once: those that
    do not fit meet DiscussionFull and the document stays within the limit."""
    post = make_post()
    insert(post, "aaaaaaaa", text="x" * 400)
    size = len(bson.encode(mongo_db.discussions.find_one({"_id": post.id})))
    settings.COMMENTS_EMBEDDED_MAX_BYTES = limit = size + 3 * 700
    results, errors = at_once(lambda n: insert(post, "bcdefghi"[n] * 8, text="y" * 400, minutes=n + 1))
    assert 1 <= len(results) <= 3
    assert len(errors) == THREADS - len(results) and all(isinstance(e, DiscussionFull) for e in errors)
    assert len(bson.encode(mongo_db.discussions.find_one({"_id": post.id}))) <= limit
    assert len(stored_nodes(mongo_db, post)) == 1 + len(results)


def test_concurrent_changes_to_different_comments_of_one_discussion_all_stay(make_post, mongo_db):
    """Eight moderators change eight comments of one discussion at once (a status,
    a flag count, an edit): no change overwrites another."""
    post = make_post()
    root = insert(post, "aaaaaaaa")
    made = [insert(post, f"aaaaaaaa/{'bcdefghi'[n] * 8}", parent=root, minutes=n + 1) for n in range(THREADS)]

    def change(n: int) -> None:
        comment = made[n]
        if n % 3 == 0:
            EMBEDDED.set_status(ids=[comment.id], status=PENDING)
        elif n % 3 == 1:
            EMBEDDED.set_flag_count(ids=[comment.id], flag_count=n)
        else:
            EMBEDDED.update_text(comment_id=comment.id, text=f"edited {n}", html="", status=comment.status,
                                 edited=BASE + timedelta(days=1))

    _, errors = at_once(change)
    assert errors == []
    for n, comment in enumerate(made):
        stored = EMBEDDED.find_by_id(comment.id)
        assert stored.status == (PENDING if n % 3 == 0 else comment.status)
        assert stored.flag_count == (n if n % 3 == 1 else 0)
        assert stored.text == (f"edited {n}" if n % 3 == 2 else comment.text)
