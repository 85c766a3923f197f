"""The comment pages' moderation and abuse defences over HTTP (comments/views/): form
tampers, the honeypot, the fill time, rate limits, pending comments and who sees them,
placeholders, authors editing and deleting, flags, closed discussions and bans."""

from __future__ import annotations

import json
import threading
from datetime import datetime, timedelta, timezone

import pytest
from django.core import signing
from django.test import Client

from cms import posts
from comments import records
from comments.moderation import blocklist, queue as moderation
from comments.posting import antispam, ownership, services, tokens
from comments.posting.forms import HONEYPOT
from comments.records import CommentAuthor
from comments.stores import get_store, summaries
from comments.views.changing import DELETED, EDITED, FLAGGED
from comments.views.posting import AWAITING
from tests.page_reading import discussion_url, page, permalink_url, post_url, submit

pytestmark = pytest.mark.usefixtures("each_store")


def alter_post_id(token: str, post_id) -> str:
    """`token` with the post id inside its signed payload replaced (signature kept)."""
    payload, rest = token.split(":", 1)
    data = json.loads(signing.b64_decode(payload.encode()))
    data["d"] = str(post_id)
    return signing.b64_encode(json.dumps(data, separators=(",", ":")).encode()).decode() + ":" + rest


def link_texts(comment: dict) -> set[str]:
    return {link["text"] for link in comment["links"]}


# --- The five tampers, and the fill time ------------------------------------------------


@pytest.mark.parametrize("tamper,message", [
    ("honeypot filled", HONEYPOT),
    ("token too old", tokens.EXPIRED),
    ("token from another post", tokens.TAMPERED),
    ("hash altered", tokens.TAMPERED),
    ("post id altered", tokens.TAMPERED),
])
def test_each_form_tamper_is_refused_with_the_text_kept_and_nothing_written(
    client, make_post, mongo_db, settings, tamper, message,
):
    """The five tampers answer 400, say why in the form, keep the text and store nothing."""
    post, other = make_post(), make_post()
    fields = {**page(client.get(post_url(post))).inputs}
    token = fields["token"]
    if tamper == "honeypot filled":
        fields["website"] = "http://spam.example"
    elif tamper == "token too old":
        settings.COMMENTS_FORM_MAX_AGE = -1
    elif tamper == "token from another post":
        fields["token"] = page(client.get(post_url(other))).inputs["token"]
    elif tamper == "hash altered":
        fields["token"] = token[:-3] + ("xyz" if not token.endswith("xyz") else "abc")
    else:
        fields["token"] = alter_post_id(token, other.id)
    response = client.post(discussion_url(post), {**fields, "text": "Keep my words", "name": "Rosa"})
    assert response.status_code == 400
    shown = page(response)
    assert shown.text_of("form-errors") == [message]
    assert shown.textareas["text"] == "Keep my words"
    assert shown.inputs.get("website", "") == ""
    assert mongo_db.comments.count_documents({}) == 0


def test_the_tamper_steps_without_a_change_post_the_comment(client, make_post):
    """Control for the tamper test: re-encoding the token with its own post id changes nothing."""
    post = make_post()
    fields = page(client.get(post_url(post))).inputs
    assert alter_post_id(fields["token"], post.id) == fields["token"]
    assert client.post(discussion_url(post), {**fields, "text": "Fine", "name": "Rosa"}).status_code == 303


def test_a_form_sent_back_too_fast_is_refused_for_anonymous_readers_only(
    client, make_post, make_user, mongo_db, settings,
):
    """With COMMENTS_MIN_FILL_SECONDS an instant anonymous submit gets TOO_FAST; members are not timed."""
    settings.COMMENTS_MIN_FILL_SECONDS = 30
    post = make_post()
    response = submit(client, post_url(post), text="Instant")
    assert response.status_code == 400
    assert page(response).text_of("form-errors") == [tokens.TOO_FAST]
    assert page(response).textareas["text"] == "Instant"
    assert mongo_db.comments.count_documents({}) == 0
    client.force_login(make_user("grace", role="reader"))
    assert submit(client, post_url(post), text="Member, instant").status_code == 303


# --- Rate limits ----------------------------------------------------------------------------


@pytest.mark.stores("documents")
def test_rate_limit_answers_429_writes_nothing_and_recovers_in_the_next_window(
    client, make_post, mongo_db, settings, rate_clock,
):
    """Past COMMENTS_RATE_PER_IP posts: 429 with Retry-After and the text kept; the next window posts."""
    settings.COMMENTS_RATE_PER_IP, settings.COMMENTS_RATE_WINDOW = 2, 600
    post = make_post()
    assert submit(client, post_url(post), text="One").status_code == 303
    assert submit(client, post_url(post), text="Two").status_code == 303
    refused = submit(client, post_url(post), text="Three, too many")
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) == 601
    shown = page(refused)
    assert shown.text_of("error-text") == [antispam.RATE_LIMITED]
    assert shown.textareas["text"] == "Three, too many" and shown.form_action == discussion_url(post) + "#reply"
    assert mongo_db.comments.count_documents({}) == 2
    rate_clock.now += 600
    assert submit(client, post_url(post), text="Three, later").status_code == 303
    assert mongo_db.comments.count_documents({}) == 3


@pytest.mark.stores("documents")
def test_editors_are_not_rate_limited(client, make_post, make_user, settings, mongo_db, rate_clock):
    """An editor posts past the limits."""
    settings.COMMENTS_RATE_PER_IP = settings.COMMENTS_RATE_PER_USER = 1
    client.force_login(make_user("bruno", role="editor"))
    post = make_post()
    for i in range(3):
        assert submit(client, post_url(post), text=f"Editor {i}").status_code == 303
    assert mongo_db.comments.count_documents({}) == 3


def test_the_rate_limit_counts_per_user_across_addresses(client, make_post, make_user, settings, rate_clock):
    """A logged-in reader is limited by COMMENTS_RATE_PER_USER whatever address they post from."""
    settings.COMMENTS_RATE_PER_IP, settings.COMMENTS_RATE_PER_USER = 100, 1
    client.force_login(make_user("grace", role="reader"))
    post = make_post()
    shown = page(client.get(post_url(post)))
    first = client.post(shown.form_action, {**shown.inputs, "text": "First"}, REMOTE_ADDR="192.0.2.1")
    assert first.status_code == 303
    shown = page(client.get(post_url(post)))
    second = client.post(shown.form_action, {**shown.inputs, "text": "Second"}, REMOTE_ADDR="192.0.2.2")
    assert second.status_code == 429


# --- Pending comments: who sees them -----------------------------------------------------------


@pytest.mark.stores("documents")
def test_a_pending_comment_is_shown_to_its_author_and_editors_only(
    client, make_post, make_user, mongo_db, settings,
):
    """Under pre-moderation the author sees it with a notice; other readers see nothing; editors see it."""
    settings.COMMENTS_MODERATION = ["all"]
    post = make_post()
    response = submit(client, post_url(post), text="Hold me")
    assert response.status_code == 303
    mine = page(client.get(response["Location"]))
    assert mine.text_of("message") == [AWAITING]
    assert [c["text"] for c in mine.comments] == ["Hold me"] and mine.text_of("comment-notice")
    on_post = page(client.get(post_url(post)))
    assert [c["text"] for c in on_post.comments] == ["Hold me"]
    assert on_post.by_id["comments-title"] == "1 comment"
    stranger = Client()
    assert page(stranger.get(post_url(post))).comments == []
    assert page(stranger.get(post_url(post))).by_id["comments-title"] == "0 comments"
    held = mongo_db.comments.find_one({"text": "Hold me"})
    assert stranger.get(permalink_url(post, held["slug"])).status_code == 404
    editor = Client()
    editor.force_login(make_user("bruno", role="editor"))
    assert [c["text"] for c in page(editor.get(post_url(post))).comments] == ["Hold me"]
    # Through the editors' action (which settles the post), as the queue does it.
    moderation.moderate(action="approve", comment_ids=[mongo_db.comments.find_one({})["_id"]])
    assert [c["text"] for c in page(stranger.get(post_url(post))).comments] == ["Hold me"]


@pytest.mark.stores("documents")
def test_a_pending_comment_offers_no_reply_and_refuses_one(client, make_post, mongo_db, settings):
    """Replies wait until their parent is approved: no Reply link, and a forged reply is refused."""
    settings.COMMENTS_MODERATION = ["all"]
    post = make_post()
    location = submit(client, post_url(post), text="Held")["Location"]
    assert "Reply" not in link_texts(page(client.get(location)).comments[0])
    slug = mongo_db.comments.find_one({})["slug"]
    response = submit(client, post_url(post), parent=slug, text="Answer")
    assert response.status_code == 400
    assert page(response).text_of("form-errors") == [services.PARENT_NOT_FOUND]


@pytest.mark.stores("documents")
def test_the_post_page_still_costs_four_commands_for_an_author_with_pending_comments(
    client, make_post, make_comment, settings, commands,
):
    """Visibility is a filter in the same queries: the post, the tally and the page, and
    the discussion's branch rules (a page of one's own reads no state that copies them)."""
    post = make_post()
    make_comment(post)
    settings.COMMENTS_MODERATION = ["all"]
    submit(client, post_url(post), text="Mine, pending")
    commands.reset()
    shown = page(client.get(post_url(post)))
    assert len(shown.comments) == 2
    assert sorted(commands.names) == ["aggregate", "find", "find", "find"]


@pytest.mark.stores("documents")
def test_email_and_ip_never_reach_a_readers_page(make_post, make_user, mongo_db):
    """Neither the author, another reader nor an editor sees the e-mail or IP address on the site."""
    post = make_post()
    author = Client(REMOTE_ADDR="198.51.100.77")
    response = submit(author, post_url(post), email="secret.rosa@example.org")
    assert mongo_db.comments.find_one({})["ip"] == "198.51.100.77"
    editor = Client()
    editor.force_login(make_user("bruno", role="editor"))
    slug = mongo_db.comments.find_one({})["slug"]
    for viewer in (author, Client(), editor):
        for url in (post_url(post), discussion_url(post), response["Location"], permalink_url(post, slug)):
            body = viewer.get(url).content.decode()
            if viewer is author:
                # Their own form keeps the address they typed, for their next comment;
                # the comments themselves never show it.
                body = body.split('id="reply"')[0]
            assert "secret.rosa" not in body and "198.51.100.77" not in body


def test_a_deleted_parent_shows_as_deleted_and_its_replies_stay_on_the_page(
    client, make_post, make_comment,
):
    """Readers see "[deleted]" in the parent's place, none of its words, and its reply."""
    post = make_post()
    author = CommentAuthor(id=None, name="Parent Author")
    parent = make_comment(post, text="Secret parent words", author=author)
    reply = make_comment(post, text="The reply", parent_slug=parent.slug)
    get_store().set_status(ids=[parent.id], status=records.DELETED)
    summaries.settle(discussion_id=post.id, slugs=[parent.slug])
    response = client.get(post_url(post))
    body = response.content.decode()
    shown = page(response)
    assert [c["slug"] for c in shown.comments] == [parent.slug, reply.slug]
    assert shown.comments[0]["text"] == "[deleted]" and shown.comments[0]["author"] == "[deleted]"
    assert shown.comments[1]["text"] == "The reply"
    assert "Secret parent words" not in body and "Parent Author" not in body
    assert shown.by_id["comments-title"] == "1 comment"
    focus = page(client.get(permalink_url(post, parent.slug)))
    assert focus.comments[0]["text"] == "[deleted]" and focus.by_id["replies-title"] == "1 reply"


# --- Authors editing and deleting -----------------------------------------------------------------


def test_an_author_edits_their_comment_and_readers_see_it_was_edited(client, make_post):
    """The poster's browser gets an Edit link; the edit is saved and marked as edited."""
    post = make_post()
    location = submit(client, post_url(post), text="Frist")["Location"]
    comment = page(client.get(location)).comments[0]
    edit_url = next(link["href"] for link in comment["links"] if link["text"] == "Edit")
    assert page(client.get(edit_url)).textareas["text"] == "Frist"
    response = client.post(edit_url, {"text": "First, fixed"})
    assert response.status_code == 303
    after = page(client.get(response["Location"]))
    assert after.text_of("message") == [EDITED]
    assert after.comments[0]["text"] == "First, fixed" and after.text_of("comment-edited") == ["edited"]
    assert page(Client().get(post_url(post))).text_of("comment-edited") == ["edited"]


@pytest.mark.stores("documents")
def test_nobody_else_can_edit_or_delete_a_comment(client, make_post, mongo_db):
    """Another browser sees no Edit link, gets 404 for the edit page and 403 for forged POSTs."""
    post = make_post()
    location = submit(client, post_url(post), text="Mine")["Location"]
    slug = mongo_db.comments.find_one({})["slug"]
    other = Client()
    assert "Edit" not in link_texts(page(other.get(location)).comments[0])
    assert other.get(f"{permalink_url(post, slug)}edit/").status_code == 404
    response = other.post(f"{permalink_url(post, slug)}edit/", {"text": "Hijacked"})
    assert response.status_code == 403
    assert page(response).text_of("form-errors") == [services.NOT_YOURS]
    assert other.post(f"{permalink_url(post, slug)}delete/").status_code == 403
    forged = Client()
    forged.cookies[ownership.COOKIE] = "not-a-signed-token"
    assert forged.post(f"{permalink_url(post, slug)}delete/").status_code == 403
    assert mongo_db.comments.find_one({})["text"] == "Mine"


@pytest.mark.stores("documents")
def test_the_edit_window_expires(client, make_post, mongo_db, settings):
    """Past COMMENTS_EDIT_WINDOW the Edit link goes and an edit is refused, saying why, text kept."""
    settings.COMMENTS_EDIT_WINDOW = 60
    post = make_post()
    location = submit(client, post_url(post), text="Original")["Location"]
    stored = mongo_db.comments.find_one({})
    slug = stored["slug"]
    assert "Edit" in link_texts(page(client.get(location)).comments[0])
    mongo_db.comments.update_one({"_id": stored["_id"]},
                                 {"$set": {"posted": datetime.now(timezone.utc) - timedelta(seconds=61)}})
    assert "Edit" not in link_texts(page(client.get(location)).comments[0])
    response = client.post(f"{permalink_url(post, slug)}edit/", {"text": "Too late"})
    assert response.status_code == 403
    shown = page(response)
    assert shown.text_of("form-errors") == [services.EDIT_TIME_OVER.format(minutes=1)]
    assert shown.textareas["text"] == "Too late"
    assert mongo_db.comments.find_one({})["text"] == "Original"


@pytest.mark.stores("documents")
def test_an_edit_that_adds_a_link_waits_for_moderation(client, make_post, mongo_db, settings):
    """Under COMMENTS_MODERATION=links an edit adding a link hides the comment from others until approved."""
    settings.COMMENTS_MODERATION = ["links"]
    post = make_post()
    submit(client, post_url(post), text="Nice post")
    slug = mongo_db.comments.find_one({})["slug"]
    response = client.post(f"{permalink_url(post, slug)}edit/", {"text": "Nice post http://spam.example"})
    assert response.status_code == 303
    assert mongo_db.comments.find_one({})["status"] == "pending"
    assert page(Client().get(post_url(post))).comments == []
    assert [c["slug"] for c in page(client.get(post_url(post))).comments] == [slug]


@pytest.mark.stores("documents")
def test_an_author_deletes_their_comment_and_replies_keep_a_placeholder(
    client, make_post, make_comment, mongo_db,
):
    """Delete answers 303 to the post; the comment shows as "[deleted]" above its reply."""
    post = make_post()
    client.get(submit(client, post_url(post), text="To delete")["Location"])  # reads "posted"
    slug = mongo_db.comments.find_one({})["slug"]
    reply = make_comment(post, parent_slug=slug, text="Reply")
    response = client.post(f"{permalink_url(post, slug)}delete/", {"confirm": "yes"})
    assert response.status_code == 303 and response["Location"] == f"{post_url(post)}#comments"
    shown = page(client.get(response["Location"]))
    assert shown.text_of("message") == [DELETED]
    assert [(c["slug"], c["text"]) for c in shown.comments] == [(slug, "[deleted]"), (reply.slug, "Reply")]
    assert mongo_db.comments.find_one({"slug": slug})["text"] == ""


@pytest.mark.stores("documents")
def test_delete_by_get_asks_for_confirmation_and_changes_nothing(client, make_post, mongo_db):
    """Deleting is a confirmed POST: GET shows the question, and so does a POST without
    the confirmation; neither changes anything."""
    post = make_post()
    submit(client, post_url(post))
    slug = mongo_db.comments.find_one({})["slug"]
    asked = client.get(f"{permalink_url(post, slug)}delete/")
    assert asked.status_code == 200 and b'name="confirm"' in asked.content
    assert client.post(f"{permalink_url(post, slug)}delete/").status_code == 200
    assert mongo_db.comments.find_one({})["status"] == "approved"


# --- Flags ----------------------------------------------------------------------------------------


@pytest.mark.stores("documents")
def test_readers_flag_a_comment_and_enough_flags_hide_it(make_post, make_comment, settings, mongo_db):
    """A flag with a reason is thanked; at COMMENTS_FLAGS_TO_HOLD flags the comment leaves readers' pages."""
    settings.COMMENTS_FLAGS_TO_HOLD = 2
    post = make_post()
    comment = make_comment(post, text="Offensive")
    flag_url = f"{permalink_url(post, comment.slug)}flag/"
    first = Client(REMOTE_ADDR="192.0.2.1")
    assert "reason" in page(first.get(flag_url)).inputs
    response = first.post(flag_url, {"reason": "abuse", "note": "Insulting"})
    assert response.status_code == 303
    assert page(first.get(response["Location"])).text_of("message") == [FLAGGED]
    assert [c["text"] for c in page(first.get(post_url(post))).comments] == ["Offensive"]
    assert Client(REMOTE_ADDR="192.0.2.2").post(flag_url, {"reason": "spam"}).status_code == 303
    assert page(first.get(post_url(post))).comments == []
    assert mongo_db.comments.find_one({})["status"] == "pending"


def test_a_flag_without_a_reason_is_refused(client, make_post, make_comment, mongo_db):
    """The reason must be one of the choices; the form says so and nothing is recorded."""
    post = make_post()
    comment = make_comment(post)
    response = client.post(f"{permalink_url(post, comment.slug)}flag/", {"reason": "because"})
    assert response.status_code == 400
    assert mongo_db.comment_flags.count_documents({}) == 0


# --- Closed discussions and bans -------------------------------------------------------------------


def test_a_closed_discussion_shows_a_notice_and_refuses_posts_keeping_the_text(client, make_post, mongo_db):
    """No form on a closed post; a POST is 403 with CLOSED and the reader's text, and stores nothing."""
    post = make_post()
    fields = page(client.get(post_url(post))).inputs
    posts.set_comments_closed(post_id=post.id, closed=True)
    shown = page(client.get(post_url(post)))
    assert shown.form_action is None and shown.text_of("comments-closed")
    response = client.post(discussion_url(post), {**fields, "text": "Late words", "name": "Rosa"})
    assert response.status_code == 403
    refused = page(response)
    assert refused.text_of("form-errors") == [services.CLOSED]
    assert refused.textareas["text"] == "Late words"
    assert mongo_db.comments.count_documents({}) == 0


def test_a_banned_commenter_is_told_and_keeps_the_text(make_post, mongo_db):
    """A banned address answers 403 with BANNED in the form; nothing is stored."""
    blocklist.add_entry(kind=blocklist.BAN_IP, value="192.0.2.66")
    post = make_post()
    response = submit(Client(REMOTE_ADDR="192.0.2.66"), post_url(post), text="Let me in")
    assert response.status_code == 403
    assert page(response).text_of("form-errors") == [services.BANNED]
    assert page(response).textareas["text"] == "Let me in"
    assert mongo_db.comments.count_documents({}) == 0


# --- Double submits ---------------------------------------------------------------------------------


@pytest.mark.stores("documents")
def test_two_concurrent_submits_of_one_form_store_one_comment(make_post, mongo_db):
    """The same form posted twice at once through the views stores one comment; both get its address."""
    post = make_post()
    fields = page(Client().get(post_url(post))).inputs
    data = {**fields, "text": "Raced through HTTP", "name": "Rosa"}
    barrier, answers = threading.Barrier(2), []

    def send():
        browser = Client()
        barrier.wait()
        answers.append(browser.post(discussion_url(post), data))

    threads = [threading.Thread(target=send) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [a.status_code for a in answers] == [303, 303]
    assert answers[0]["Location"] == answers[1]["Location"]
    assert mongo_db.comments.count_documents({}) == 1


@pytest.mark.stores("documents")
def test_behind_a_proxy_the_address_is_the_one_the_proxy_appended(make_post, mongo_db, settings):
    """With BEHIND_PROXY the stored address is the last X-Forwarded-For entry, not the proxy's."""
    settings.BEHIND_PROXY = True
    post = make_post()
    proxied = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9, 198.51.100.20")
    assert submit(proxied, post_url(post)).status_code == 303
    assert mongo_db.comments.find_one({})["ip"] == "198.51.100.20"
