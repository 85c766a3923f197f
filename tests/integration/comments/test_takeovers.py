"""Ownership only for what this browser wrote (comments/posting/tokens.py, comments/views/posting.py):
another browser that sends the same name and text, or replays this browser's form
token, is answered with the existing comment and gets no right to edit or delete it;
this browser's own resend of a form whose answer it lost still gets its comment.
Through Django's test client, each Client a browser with its own cookies."""

from __future__ import annotations

import pytest
from django.test import Client

from comments.posting import ownership
from comments.views.posting import POSTED_BEFORE
from tests.page_reading import page, permalink_url, post_url

pytestmark = pytest.mark.usefixtures("each_store")


def form_data(client, post, **fields) -> tuple[str, dict]:
    shown = page(client.get(post_url(post)))
    data = {**shown.inputs, **shown.textareas, "name": "Rosa", "email": "rosa@example.com",
            "text": "Mine, and only mine."}
    data.update(fields)
    return shown.form_action, data


def owns(client, post, slug) -> bool:
    return client.get(f"{permalink_url(post, slug)}edit/").status_code == 200


def only_comment(mongo_db_or_store):
    docs = list(mongo_db_or_store)
    assert len(docs) == 1
    return docs[0]


@pytest.fixture
def rosa_posted(make_post, settings):
    """Rosa's browser posted a comment; (post, her client, the form she sent, its slug)."""
    from comments.stores import get_store

    settings.COMMENTS_DUPLICATE_WINDOW = 120
    post = make_post()
    rosa = Client()
    action, data = form_data(rosa, post)
    assert rosa.post(action, data).status_code == 303
    slug = only_comment(get_store().iter_documents(discussion_id=post.id))["slug"]
    assert owns(rosa, post, slug)
    return post, rosa, (action, data), slug


def test_another_browser_sending_the_same_name_and_text_gets_no_rights(rosa_posted):
    from comments.stores import get_store

    post, _, _, slug = rosa_posted
    impostor = Client()
    action, data = form_data(impostor, post)  # its own fresh form, the same name and text
    answer = impostor.post(action, data, follow=True)
    assert answer.status_code == 200
    assert POSTED_BEFORE in answer.content.decode()
    assert ownership.COOKIE not in impostor.cookies
    assert not owns(impostor, post, slug)
    assert impostor.post(f"{permalink_url(post, slug)}delete/", {"confirm": "yes"}).status_code in (403, 404)
    assert len(list(get_store().iter_documents(discussion_id=post.id))) == 1


def test_another_browser_replaying_the_form_token_gets_no_rights(rosa_posted):
    from comments.stores import get_store

    post, _, (action, data), slug = rosa_posted
    thief = Client()
    thief.get(post_url(post))  # a browser of its own, with its own cookies
    answer = thief.post(action, data)
    assert answer.status_code == 303
    assert not owns(thief, post, slug)
    assert thief.post(f"{permalink_url(post, slug)}edit/", {"text": "Taken over"}).status_code in (403, 404)
    assert only_comment(get_store().iter_documents(discussion_id=post.id))["text"] == "Mine, and only mine."


def test_the_same_browser_resending_a_form_whose_answer_it_lost_gets_its_comment(rosa_posted):
    """The answer never arrived (no ownership cookie came back), so the browser sends the
    form again: it is the same browser (the same CSRF cookie), so the comment is its own."""
    from comments.stores import get_store

    post, rosa, (action, data), slug = rosa_posted
    lost = Client()
    lost.cookies["csrftoken"] = rosa.cookies["csrftoken"].value
    assert lost.post(action, data).status_code == 303
    assert owns(lost, post, slug)
    assert len(list(get_store().iter_documents(discussion_id=post.id))) == 1
