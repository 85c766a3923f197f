"""A reader's experience of threads, permalink pages and posting, over HTTP through
Django's test client against the real MongoDB-compatible server: replies name the
comment they answer, the permalink page leads with its comment, posting lands back in
the discussion, refused forms come back at the form, deleting asks first, and a store
migration's freeze says what it is."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest
from django.test import Client

from comments import records
from comments.posting.ownership import AUTHOR_COOKIE
from comments.records import CommentAuthor
from comments.stores import get_store, store_switch, summaries
from comments.views.changing import DELETED
from comments.views.posting import AWAITING, POSTED
from tests.page_reading import Page, discussion_url, page, permalink_url, post_url, submit

pytestmark = pytest.mark.usefixtures("each_store")

BASE = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def by(name: str) -> CommentAuthor:
    return CommentAuthor(id=None, name=name, email=f"{name.lower()}@example.com")


def reply_link(rendered: dict) -> dict:
    """The "in reply to …" link of a rendered comment."""
    return next(link for link in rendered["links"] if link.get("class") == "reply-to")


def comment_finds(commands) -> list[str]:
    """The commands the documents store sent to the comments collection."""
    return [name for name, sent in zip(commands.names, commands.sent) if sent.get(name) == "comments"]


# --- "in reply to <name>" ---------------------------------------------------------------


def test_a_reply_names_its_parent_and_links_its_anchor_on_the_same_page(client, make_post, make_comment):
    """A reply says whom it answers; with the parent on the page, the link goes to its anchor."""
    post = make_post()
    root = make_comment(post, author=by("Ada"), at=BASE)
    reply = make_comment(post, author=by("Bo"), parent_slug=root.slug, at=BASE + timedelta(minutes=1))
    shown = page(client.get(post_url(post)))
    rendered = next(c for c in shown.comments if c["slug"] == reply.slug)
    link = reply_link(rendered)
    assert (link["text"], link["href"]) == ("Ada", "#" + root.anchor)
    assert "an earlier comment" not in client.get(post_url(post)).content.decode()


@pytest.mark.stores("documents")
def test_parents_on_other_pages_are_named_in_one_query(client, make_post, make_comment, settings, commands):
    """A page of replies whose parents are on an earlier page names every parent, linked to
    its permalink, with one query for all of them (not one per comment)."""
    settings.COMMENTS_PER_PAGE = 4
    settings.COMMENTS_CACHE_SECONDS = 0
    post = make_post()
    roots = [make_comment(post, author=by(f"Root{i}"), at=BASE + timedelta(minutes=i)) for i in range(4)]
    replies = [make_comment(post, author=by(f"Re{i}"), parent_slug=root.slug, at=BASE + timedelta(hours=1, minutes=i))
               for i, root in enumerate(roots)]
    commands.reset()
    shown = page(client.get(discussion_url(post), {"view": "chronological", "page": 2}))
    assert shown.slugs == [r.slug for r in replies]
    for rendered, root in zip(shown.comments, roots):
        link = reply_link(rendered)
        assert (link["text"], link["href"]) == (root.author.name, permalink_url(post, root.slug))
    assert comment_finds(commands) == ["find", "find"]  # the page, then its parents


def test_a_reply_to_a_deleted_parent_on_another_page_names_the_placeholder(
    client, make_post, make_comment, settings,
):
    """A parent hidden from the reader is named by its placeholder, never by its author."""
    settings.COMMENTS_PER_PAGE = 1
    post = make_post()
    parent = make_comment(post, author=by("Secretname"), at=BASE)
    reply = make_comment(post, author=by("Bo"), parent_slug=parent.slug, at=BASE + timedelta(minutes=1))
    get_store().set_status(ids=[parent.id], status=records.DELETED)
    summaries.settle(discussion_id=post.id, slugs=[parent.slug])
    response = client.get(discussion_url(post), {"page": 2})
    rendered = page(response).comments[0]
    assert rendered["slug"] == reply.slug
    assert reply_link(rendered)["text"] == "[deleted]"
    assert "Secretname" not in response.content.decode()


# --- The permalink page -------------------------------------------------------------------


def test_the_permalink_page_reads_top_down_with_its_ancestors_folded_above_the_comment(
    client, make_post, make_comment,
):
    """<h1> names the comment's author; the ancestors come first, root first, each folded
    in a <details> whose one-line summary gives author, time and first words; then the
    comment, its replies and the reply form."""
    post = make_post()
    root = make_comment(post, author=by("Ada"), text="The opening words of a long comment " * 5, at=BASE)
    middle = make_comment(post, author=by("Bo"), parent_slug=root.slug, at=BASE + timedelta(minutes=1))
    focus = make_comment(post, author=by("Cy"), parent_slug=middle.slug, at=BASE + timedelta(minutes=2))
    answer = make_comment(post, author=by("Di"), parent_slug=focus.slug, at=BASE + timedelta(minutes=3))
    body = client.get(permalink_url(post, focus.slug)).content.decode()
    shown = Page(body.encode())
    assert re.search(r"<h1[^>]*>\s*Comment by <bdi>Cy</bdi>\s*</h1>", body)  # names are isolated
    assert shown.slugs == [root.slug, middle.slug, focus.slug, answer.slug]
    summaries = re.findall(r"<details>\s*<summary>(.*?)</summary>", body, re.S)
    assert len(summaries) == 2
    first = " ".join(re.sub(r"<[^>]+>", "", summaries[0]).split())
    assert first.startswith("Ada,") and "The opening words of a long comment" in first
    assert first.endswith("…")
    assert body.index("<h1") < body.index("<details>") < body.index('id="' + focus.anchor) < body.index('id="reply"')
    link = reply_link(shown.comments[2])
    assert (link["text"], link["href"]) == ("Bo", "#" + middle.anchor)


def test_the_permalink_page_of_a_deleted_comment_is_a_comment_on_the_post(client, make_post, make_comment):
    """A placeholder's page has "A comment on <title>" as its heading, without the author."""
    post = make_post(title="Slow Rivers")
    parent = make_comment(post, author=by("Hidden"))
    make_comment(post, parent_slug=parent.slug)
    get_store().set_status(ids=[parent.id], status=records.DELETED)
    summaries.settle(discussion_id=post.id, slugs=[parent.slug])
    body = client.get(permalink_url(post, parent.slug)).content.decode()
    assert re.search(r"<h1[^>]*>\s*A comment on Slow Rivers\s*</h1>", body)
    assert "Hidden" not in body


# --- After posting ----------------------------------------------------------------------


def test_posting_lands_on_the_post_page_holding_the_comment(client, make_post, make_comment, settings):
    """A comment that falls on page 2 lands on the post page's page 2, at its anchor,
    confirmed; the page draws it."""
    settings.COMMENTS_PER_PAGE = 2
    post = make_post()
    for minutes in range(2):
        make_comment(post, at=BASE + timedelta(minutes=minutes))
    response = submit(client, post_url(post), text="Third of three")
    assert response.status_code == 303
    path, _, anchor = response["Location"].partition("#")
    assert path == post_url(post) + "?page=2" and anchor.startswith("c-")
    landed = page(client.get(response["Location"]))
    assert [c["id"] for c in landed.comments] == [anchor]
    assert landed.text_of("message") == [POSTED]


def test_a_reply_below_the_indent_limit_lands_on_the_permalink_page_that_draws_it(
    client, make_post, make_comment, settings,
):
    """Below the indent limit, the discussion does not draw the reply: it lands on the
    permalink page of the comment at the limit, where it is drawn."""
    settings.COMMENTS_INDENT_LIMIT = 1
    post = make_post()
    root = make_comment(post, at=BASE)
    limit = make_comment(post, parent_slug=root.slug, at=BASE + timedelta(minutes=1))
    response = submit(client, permalink_url(post, limit.slug), text="Down the thread")
    path, _, anchor = response["Location"].partition("#")
    assert path == permalink_url(post, limit.slug)
    landed = page(client.get(response["Location"]))
    assert anchor in [c["id"] for c in landed.comments]
    assert anchor not in [c["id"] for c in page(client.get(discussion_url(post))).comments]


def test_a_held_comment_lands_with_its_awaiting_notice(client, make_post, settings):
    """Under pre-moderation the confirmation says it awaits moderation."""
    settings.COMMENTS_MODERATION = ["all"]
    post = make_post()
    response = submit(client, post_url(post), text="Hold me")
    landed = page(client.get(response["Location"]))
    assert landed.text_of("message") == [AWAITING]
    assert [c["id"] for c in landed.comments] == [response["Location"].partition("#")[2]]


def test_an_anonymous_name_and_email_stay_filled_in_for_the_next_comment(client, make_post, make_comment):
    """After posting, this browser's forms carry the name and e-mail; another browser's don't,
    and the shared comments list never does."""
    post = make_post()
    other = make_comment(post)
    assert submit(client, post_url(post), name="Rosa", email="rosa@example.com").status_code == 303
    for url in (discussion_url(post), permalink_url(post, other.slug)):
        shown = page(client.get(url))
        assert (shown.inputs["name"], shown.inputs["email"]) == ("Rosa", "rosa@example.com")
    stranger = page(Client().get(discussion_url(post)))
    assert (stranger.inputs["name"], stranger.inputs["email"]) == ("", "")
    forged = Client()
    forged.cookies[AUTHOR_COOKIE] = "not-signed"
    assert page(forged.get(discussion_url(post))).inputs["name"] == ""


# --- Refused forms come back at the form ------------------------------------------------


def test_the_form_posts_to_its_own_anchor_and_a_refusal_renders_it_there(client, make_post):
    """The form's action ends in #reply (kept by browsers after the POST); the 400 page has
    the form with that id, its error and the text typed."""
    post = make_post()
    shown = page(client.get(post_url(post)))
    assert shown.form_action == discussion_url(post) + "#reply"
    response = submit(client, post_url(post), name="", text="Keep these words")
    assert response.status_code == 400
    refused = page(response)
    assert refused.form_action.endswith("#reply") and "reply" in refused.by_id
    assert refused.textareas["text"] == "Keep these words" and refused.text_of("field-error")


def test_a_rate_limited_comment_shows_the_refusal_inside_the_form(client, make_post, settings, rate_clock):
    """429: the reason is among the form's errors (where #reply lands), the text kept."""
    settings.COMMENTS_RATE_PER_IP = 1
    post = make_post()
    assert submit(client, post_url(post), text="One").status_code == 303
    response = submit(client, post_url(post), text="Two, too soon")
    assert response.status_code == 429
    refused = page(response)
    assert refused.text_of("form-errors") and "reply" in refused.by_id
    assert refused.textareas["text"] == "Two, too soon"


# --- Deleting asks first ----------------------------------------------------------------


def test_deleting_asks_for_confirmation_first(client, make_post, make_comment):
    """GET of the delete URL is a confirmation page (the comment, its replies' fate, a Delete
    button that POSTs with confirm, a Keep it link); nothing is deleted until confirmed."""
    post = make_post()
    location = submit(client, post_url(post), text="Regrettable")["Location"]
    mine = next(c for c in page(client.get(location)).comments if c["text"] == "Regrettable")
    make_comment(post, parent_slug=mine["slug"])
    edit = page(client.get(permalink_url(post, mine["slug"]) + "edit/"))
    delete_url = permalink_url(post, mine["slug"]) + "delete/"
    assert delete_url in client.get(permalink_url(post, mine["slug"]) + "edit/").content.decode()
    assert "Delete this comment" in client.get(permalink_url(post, mine["slug"]) + "edit/").content.decode()
    assert edit.textareas["text"] == "Regrettable"
    response = client.get(delete_url)
    assert response.status_code == 200
    asked = page(response)
    assert [c["text"] for c in asked.comments] == ["Regrettable"]
    assert asked.inputs["confirm"] == "yes"
    assert "1 reply to it stay" in " ".join(asked.text_of("form-help"))
    keep = next(link for link in asked.links if link["text"] == "Keep it")
    assert keep["href"] == permalink_url(post, mine["slug"]) + "#" + mine["id"]
    # An older form's POST without the confirm field asks too.
    assert client.post(delete_url).status_code == 200
    assert get_store().find_by_slug(discussion_id=post.id, slug=mine["slug"]).status == records.APPROVED
    done = client.post(delete_url, {"confirm": "yes"})
    assert done.status_code == 303
    assert page(client.get(done["Location"])).text_of("message") == [DELETED]
    assert get_store().find_by_slug(discussion_id=post.id, slug=mine["slug"]).status == records.DELETED


def test_nobody_else_is_asked_to_delete_a_comment(client, make_post):
    """Another browser gets 404 for the confirmation page and 403 for a POST, confirmed or not."""
    post = make_post()
    location = submit(client, post_url(post), text="Mine")["Location"]
    slug = next(c["slug"] for c in page(client.get(location)).comments if c["text"] == "Mine")
    delete_url = permalink_url(post, slug) + "delete/"
    other = Client()
    assert other.get(delete_url).status_code == 404
    assert other.post(delete_url).status_code == 403
    assert other.post(delete_url, {"confirm": "yes"}).status_code == 403
    assert get_store().find_by_slug(discussion_id=post.id, slug=slug).status == records.APPROVED


# --- A migration's freeze ---------------------------------------------------------------


def test_posting_while_a_migration_freezes_writes_says_so_and_keeps_the_text(client, make_post, each_store):
    """503 with Retry-After, Moving's own message by the form, the text kept."""
    post = make_post()
    target = "buckets" if each_store != "buckets" else "documents"
    store_switch.freeze(source=each_store, target=target)
    try:
        response = submit(client, post_url(post), text="Wait for me")
    finally:
        store_switch.thaw(source=each_store)
    assert response.status_code == 503
    assert response["Retry-After"] == "60"
    refused = page(response)
    assert refused.text_of("form-errors") == [store_switch.MOVING]
    assert refused.textareas["text"] == "Wait for me"


def test_editing_while_a_migration_freezes_writes_keeps_the_new_text(client, make_post, each_store):
    """An edit refused by the freeze comes back on the edit page: 503, Moving's message, text kept."""
    post = make_post()
    location = submit(client, post_url(post), text="Before")["Location"]
    slug = next(c["slug"] for c in page(client.get(location)).comments if c["text"] == "Before")
    target = "buckets" if each_store != "buckets" else "documents"
    store_switch.freeze(source=each_store, target=target)
    try:
        response = client.post(permalink_url(post, slug) + "edit/", {"text": "After"})
    finally:
        store_switch.thaw(source=each_store)
    assert response.status_code == 503 and response["Retry-After"] == "60"
    refused = page(response)
    assert refused.text_of("form-errors") == [store_switch.MOVING]
    assert refused.textareas["text"] == "After"
