"""Posting is idempotent: the same form sent again stores one comment."""

import pytest

from comments.posting import services
from comments.records import CommentAuthor
from comments.stores import get_store
from tests.page_reading import page, post_url, submit

pytestmark = pytest.mark.usefixtures("each_store")

READER = CommentAuthor(id=None, name="Rosa")


@pytest.mark.stores("documents")
def test_the_same_form_twice_stores_one_comment(client, make_post, mongo_db):
    """A double submit answers with the first comment's permalink both times."""
    post = make_post()
    shown = page(client.get(post_url(post)))
    data = {**shown.inputs, "text": "Only once", "name": "Rosa"}
    first = client.post(shown.form_action, data)
    second = client.post(shown.form_action, data)
    assert first.status_code == second.status_code == 303
    assert first["Location"] == second["Location"]
    assert mongo_db.comments.count_documents({"discussion_id": post.id}) == 1


@pytest.mark.stores("documents")
def test_two_renders_of_the_form_are_two_comments(client, make_post, mongo_db):
    """Each rendered form has its own key: two comments posted through two renders are two comments."""
    post = make_post()
    assert submit(client, post_url(post), text="First words").status_code == 303
    assert submit(client, post_url(post), text="Second words").status_code == 303
    assert mongo_db.comments.count_documents({"discussion_id": post.id}) == 2


@pytest.mark.stores("documents")
def test_the_same_text_through_two_renders_is_one_comment(client, make_post, mongo_db):
    """Duplicate detection: the same author's same text on the same post soon after is the earlier comment."""
    post = make_post()
    first = submit(client, post_url(post), text="Same words")
    second = submit(client, post_url(post), text="Same words")
    assert first.status_code == second.status_code == 303
    assert first["Location"] == second["Location"]
    assert mongo_db.comments.count_documents({"discussion_id": post.id}) == 1


def test_concurrent_submits_of_one_form_store_one_comment(make_post, post_at_once):
    """Four threads posting the same form key at once leave exactly one comment."""
    post = make_post()
    results = post_at_once(post, times=4, form_key="k" * 22)
    assert [d["text"] for d in get_store().iter_documents(discussion_id=post.id)] == ["Raced"]
    assert len({r.comment.slug for r in results}) == 1
    assert sorted(r.duplicate for r in results) == [False, True, True, True]


def test_a_retry_repairs_the_summary_the_first_try_missed(make_post, mongo_db):
    """A comment stored before a failure is counted once the same form is retried."""
    post = make_post()
    services.post_comment(post=post, text="Stored", author=READER, form_key="r" * 22, summarise=False)
    assert mongo_db.posts.find_one({"_id": post.id})["comment_count"] == 0
    retried = services.post_comment(post=post, text="Stored", author=READER, form_key="r" * 22)
    assert retried.duplicate
    assert mongo_db.posts.find_one({"_id": post.id})["comment_count"] == 1 == get_store().tally_listing(discussion_id=post.id).total


@pytest.mark.stores("documents")
def test_a_reply_form_sent_twice_stores_one_reply(make_post, make_comment, mongo_db):
    """Idempotency holds for replies too (the key fixes the reply's slug under its parent)."""
    post = make_post()
    parent = make_comment(post)
    once = services.post_comment(post=post, text="Re", author=READER, parent_slug=parent.slug, form_key="p" * 22)
    twice = services.post_comment(post=post, text="Re", author=READER, parent_slug=parent.slug, form_key="p" * 22)
    assert twice.duplicate and twice.comment.slug == once.comment.slug
    assert mongo_db.comments.count_documents({"parent_id": parent.id}) == 1
