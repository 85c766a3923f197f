"""The duplicate check holds under concurrency: the same text by the same author in
the same place, sent from many forms at the same moment (each with its own token),
is stored once, and every sender gets that one comment back. Real threads, the real
server, every comment store."""

from __future__ import annotations

import pytest

from cms import posts
from comments import conf
from comments.posting import services
from comments.records import CommentAuthor
from comments.stores import get_store
from tests.threads import at_once

pytestmark = pytest.mark.usefixtures("each_store")

SENDERS = 8
SAM = CommentAuthor(id=None, name="Sam", email="sam@example.net")


def test_the_same_text_from_many_forms_at_once_is_stored_once(make_post, settings):
    settings.COMMENTS_DUPLICATE_WINDOW = 60
    post = make_post()
    outcomes = at_once([
        lambda n=n: services.post_comment(post=post, text="Posted from every tab", author=SAM, ip="192.0.2.4",
                                          form_key=f"form-{n}")
        for n in range(SENDERS)
    ])
    failed = [o for o in outcomes if isinstance(o, BaseException)]
    assert not failed, failed
    stored = [doc for doc in get_store().iter_documents(discussion_id=post.id)]
    assert [doc["text"] for doc in stored] == ["Posted from every tab"]
    assert {o.comment.id for o in outcomes} == {stored[0]["_id"]}
    # Exactly one sender stored it; the others were given it back, not as their own form's.
    assert sorted(o.duplicate for o in outcomes) == [False] + [True] * (SENDERS - 1)
    assert not any(o.same_form for o in outcomes)
    assert posts.get_by_id(post.id).comment_count == 1


def test_different_authors_sending_the_same_text_at_once_each_get_their_comment(make_post, settings):
    settings.COMMENTS_DUPLICATE_WINDOW = 60
    post = make_post()
    outcomes = at_once([
        lambda n=n: services.post_comment(post=post, text="+1", author=CommentAuthor(id=None, name=f"Reader {n}"),
                                          ip="192.0.2.4")
        for n in range(4)
    ])
    assert not [o for o in outcomes if isinstance(o, BaseException)]
    assert len(list(get_store().iter_documents(discussion_id=post.id))) == 4


def test_a_text_whose_storing_failed_can_be_sent_again(make_post, settings, monkeypatch, mongo_db):
    """The claim on a text is given up when its comment is not stored (else the next try
    would wait for a comment that never comes)."""
    settings.COMMENTS_DUPLICATE_WINDOW = 60
    post = make_post()
    real = get_store(conf.get().store).insert_comment

    def refuse(**kwargs):
        raise RuntimeError("the write failed")

    monkeypatch.setattr(get_store(conf.get().store), "insert_comment", refuse)
    with pytest.raises(RuntimeError):
        services.post_comment(post=post, text="Second try", author=SAM)
    assert mongo_db.comment_recent_texts.count_documents({}) == 0
    monkeypatch.setattr(get_store(conf.get().store), "insert_comment", real)
    again = services.post_comment(post=post, text="Second try", author=SAM)
    assert not again.duplicate and get_store().find_by_id(again.comment.id).text == "Second try"
