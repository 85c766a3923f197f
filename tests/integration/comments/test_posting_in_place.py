"""Posting and previewing a comment, answered in place (for the page's script,
header Slugline-In-Place) and as full pages, over HTTP through Django's test client:
one view, one set of rules, the same drawing of a comment."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest

from comments.posting.antispam import RATE_LIMITED
from comments.posting.forms import EMPTY_TEXT, NAME_REQUIRED, TOO_LONG
from comments.posting.previews import PREVIEW
from comments.views.posting import AWAITING, POSTED
from tests.page_reading import discussion_url, page, permalink_url, post_url

pytestmark = pytest.mark.usefixtures("each_store")

BASE = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
IN_PLACE = "1"
# A <time> element's text is relative ("now", "2 seconds ago"): left out of comparisons.
TIME_TEXT = re.compile(r"(<time [^>]*>)[^<]*(</time>)")


def form_data(client, page_url: str, **fields) -> tuple[str, dict]:
    """The comment form of the page at `page_url`, filled in as a reader would."""
    shown = page(client.get(page_url))
    data = {**shown.inputs, **shown.textareas}
    if "name" in data:
        data.update(name="Rosa", email="rosa@example.com")
    data.update(text="A fine post.")
    data.update(fields)
    return shown.form_action, data


def in_place(client, action: str, data: dict, *, shown_at: str):
    """Send the form as the page's script does, from the page at `shown_at`."""
    return client.post(action, data, headers={"Slugline-In-Place": IN_PLACE, "Slugline-Page": shown_at})


def article(html: str, anchor: str) -> str:
    """The <article> of the comment at `anchor`, its relative time blanked."""
    found = re.search(rf'<article [^>]*id="{anchor}".*?</article>', html, re.S)
    assert found, f"no #{anchor}"
    return TIME_TEXT.sub(r"\1\2", found.group(0))


def posted(response) -> dict:
    """The data-… of an in-place answer's root, and its HTML."""
    html = response.content.decode()
    root = re.search(r'<div class="posted"([^>]*)>', html)
    assert root, html
    attrs = dict(re.findall(r'data-(\w+)="([^"]*)"', root.group(1)))
    return {**attrs, "html": html}


def stored(post) -> list:
    """The comments stored on `post`, in any store."""
    from comments.records import Viewer
    from comments.stores import get_store

    editor = Viewer(editor=True)
    return get_store().find_page(discussion_id=post.id, order="threaded", limit=100, viewer=editor)


@pytest.mark.stores("documents")
def test_in_place_answer_draws_the_comment_as_the_full_page_does(client, make_post):
    """Posted in place from the post page: 201 with the comment drawn by the same include
    as the page the reader would land on without JS, first in the (empty) list, with the
    confirmation, a fresh form token and the comment's address."""
    post = make_post()
    action, data = form_data(client, post_url(post), text="In **place**.")
    response = in_place(client, action, data, shown_at=post_url(post))
    assert response.status_code == 201
    answer = posted(response)
    anchor = re.search(r'<article [^>]*id="(c-[^"]+)"', answer["html"]).group(1)
    assert answer["placed"] == "yes" and answer["after"] == ""
    assert answer["location"] == f"{post_url(post)}#{anchor}"
    assert answer["token"] and answer["token"] != data["token"]
    shown = page(response)
    assert shown.text_of("message") == [POSTED]
    full = client.get(answer["location"]).content.decode()
    assert article(answer["html"], anchor) == article(full, anchor)
    assert "<strong>place</strong>" in article(full, anchor)


@pytest.mark.stores("documents")
def test_a_reply_in_place_goes_right_after_its_parents_last_reply(client, make_post, make_comment):
    """A reply posted from the post page follows, in the threaded list, the last comment
    of its parent's sub-thread; the answer names that comment."""
    post = make_post()
    root = make_comment(post, at=BASE)
    child = make_comment(post, parent_slug=root.slug, at=BASE + timedelta(minutes=1))
    make_comment(post, at=BASE + timedelta(minutes=2))
    action, data = form_data(client, permalink_url(post, root.slug), text="Me too.")
    assert data["parent"] == root.slug
    answer = posted(in_place(client, action, data, shown_at=post_url(post)))
    assert answer["placed"] == "yes" and answer["after"] == child.anchor
    assert 'class="comment-item indent-1 just-posted"' in answer["html"]


@pytest.mark.stores("documents")
def test_in_place_places_the_comment_in_the_readers_view_or_links_to_its_page(
    client, make_post, make_comment, settings,
):
    """Oldest first, a new comment follows the last one; one that opens a new page follows
    the last comment of the page before (for a reader who loaded it; the script checks).
    From the permalink page of a comment it does not answer, only a link is given."""
    settings.COMMENTS_PER_PAGE = 2
    post = make_post()
    made = [make_comment(post, at=BASE + timedelta(minutes=n)) for n in range(3)]
    last = f"{discussion_url(post)}?view=chronological&page=2"
    action, data = form_data(client, post_url(post), text="Last word.")
    answer = posted(in_place(client, action, data, shown_at=last))
    assert answer["placed"] == "yes" and answer["after"] == made[2].anchor
    assert "aria-level" not in answer["html"]  # the chronological list is flat
    fourth = re.search(r'<article [^>]*id="(c-[^"]+)"', answer["html"]).group(1)

    action, data = form_data(client, post_url(post), text="Another last word.")
    answer = posted(in_place(client, action, data, shown_at=f"{discussion_url(post)}?view=chronological"))
    assert answer["placed"] == "yes" and answer["after"] == fourth  # it opens page 3

    action, data = form_data(client, post_url(post), text="Elsewhere.")
    answer = posted(in_place(client, action, data, shown_at=permalink_url(post, made[0].slug)))
    assert answer["placed"] == "no" and "<article" not in answer["html"]
    assert f'href="{answer["location"]}"' in answer["html"]
    address, anchor = answer["location"].split("#")
    assert address == f"{post_url(post)}?page=3"  # the post page, at the comment's page
    assert anchor == "c-" + page(client.get(address)).slugs[-1]


@pytest.mark.stores("documents")
def test_an_unknown_page_address_still_posts_and_links_to_the_comment(client, make_post, mongo_db):
    """A page address that lists nothing of this post (or none at all) places nothing: the
    comment is stored and the answer links to it."""
    post = make_post()
    for shown_at in ("", "/elsewhere/", f"{discussion_url(post)}?view=$where", "http://[bad"):
        action, data = form_data(client, post_url(post), text=f"From {shown_at!r}")
        answer = posted(in_place(client, action, data, shown_at=shown_at))
        assert answer["placed"] == "no", shown_at
    assert len(stored(post)) == 4


@pytest.mark.stores("documents")
def test_a_pending_comment_in_place_says_it_awaits_moderation(client, make_post, settings):
    settings.COMMENTS_MODERATION = ["all"]
    post = make_post()
    action, data = form_data(client, post_url(post), text="Hold me")
    response = in_place(client, action, data, shown_at=post_url(post))
    assert response.status_code == 201
    shown = page(response)
    assert shown.text_of("message") == [AWAITING] and shown.text_of("comment-notice")


@pytest.mark.stores("documents")
def test_the_same_form_sent_twice_in_place_stores_one_comment(client, make_post, mongo_db):
    """A double click sends the same token twice: one comment, answered both times."""
    post = make_post()
    action, data = form_data(client, post_url(post), text="Once only")
    first = posted(in_place(client, action, data, shown_at=post_url(post)))
    second = posted(in_place(client, action, data, shown_at=post_url(post)))
    assert first["location"] == second["location"]
    assert len(stored(post)) == 1


def test_a_refused_comment_in_place_answers_the_form_with_its_errors_and_text(client, make_post, mongo_db):
    """Validation errors in place: 400 with the form alone (no page around it), its
    errors, the reader's text and name; nothing stored."""
    post = make_post()
    action, data = form_data(client, post_url(post), name="  ", text="Keep these words")
    response = in_place(client, action, data, shown_at=post_url(post))
    assert response.status_code == 400
    html = response.content.decode()
    assert html.lstrip().startswith("<form") and "<html" not in html
    shown = page(response)
    assert NAME_REQUIRED in shown.text_of("field-error")
    assert shown.textareas["text"] == "Keep these words"
    assert stored(post) == []
    empty = in_place(client, action, {**data, "name": "Rosa", "text": ""}, shown_at=post_url(post))
    assert empty.status_code == 400 and EMPTY_TEXT in page(empty).text_of("field-error")


@pytest.mark.parametrize("seconds_left", [600, 30], ids=["window-start", "last-minute"])
def test_a_rate_limited_comment_in_place_is_429_with_the_retry_time_and_the_text(
    client, make_post, mongo_db, settings, rate_clock, seconds_left,
):
    settings.COMMENTS_RATE_PER_IP, settings.COMMENTS_RATE_WINDOW = 1, 600
    rate_clock.now -= seconds_left  # both posts in one window, `seconds_left` before its end
    post = make_post()
    action, data = form_data(client, post_url(post), text="First")
    assert in_place(client, action, data, shown_at=post_url(post)).status_code == 201
    action, data = form_data(client, post_url(post), text="Too soon, kept")
    response = in_place(client, action, data, shown_at=post_url(post))
    assert response.status_code == 429
    assert int(response["Retry-After"]) == seconds_left + 1
    shown = page(response)
    assert shown.textareas["text"] == "Too soon, kept"
    assert RATE_LIMITED in " ".join(shown.text_of("form-errors"))
    # Minutes rounded up; one minute in the singular (the window's last minute).
    said = "11 minutes" if seconds_left == 600 else "1 minute"
    assert shown.text_of("retry-after") == [f"You can send it again in {said}."]
    assert len(stored(post)) == 1


# --- Preview ---------------------------------------------------------------------------


def test_preview_without_js_renders_the_text_as_posted_and_stores_nothing(client, make_post, mongo_db):
    """The Preview button (action=preview) answers the discussion's page: the text rendered
    and sanitised as posting does, above the buttons, the text and token kept, nothing
    stored."""
    post = make_post()
    action, data = form_data(client, post_url(post), text="**Bold** <script>alert(1)</script> [x](https://example.com)")
    response = client.post(action, {**data, "action": PREVIEW})
    assert response.status_code == 200
    html = response.content.decode()
    preview = re.search(r'<section class="comment-preview".*?</section>', html, re.S).group(0)
    assert "<strong>Bold</strong>" in preview and "<script>" not in preview
    assert 'rel="nofollow ugc noopener"' in preview
    assert html.index('class="comment-preview"') < html.index('value="preview"')
    # The comments app's own discussion page (in the site's layout), not the blog's post page.
    assert 'class="page-title"' in html and 'id="post-title"' not in html
    shown = page(response)
    assert shown.textareas["text"] == data["text"]
    assert shown.inputs["token"] == data["token"] and shown.inputs["name"] == "Rosa"
    assert stored(post) == []
    # Posting after the preview posts it, once.
    assert client.post(action, data).status_code == 303
    assert len(stored(post)) == 1


def test_preview_of_a_reply_answers_its_permalink_page(client, make_post, make_comment):
    post = make_post()
    root = make_comment(post)
    action, data = form_data(client, permalink_url(post, root.slug), text="_soft_")
    response = client.post(action, {**data, "action": PREVIEW})
    assert response.status_code == 200
    html = response.content.decode()
    assert 'class="focus"' in html and "<em>soft</em>" in html
    assert page(response).inputs["parent"] == root.slug


def test_preview_is_bounded_like_posting(client, make_post, mongo_db, settings):
    """Too long or empty: the preview says why, as posting would; nothing stored."""
    settings.COMMENTS_MAX_LENGTH = 20
    post = make_post()
    action, data = form_data(client, post_url(post), text="x" * 21)
    shown = page(client.post(action, {**data, "action": PREVIEW}))
    assert shown.text_of("form-errors") == [TOO_LONG % {"limit_value": 20, "show_value": 21}]
    shown = page(client.post(action, {**data, "text": "", "action": PREVIEW}))
    assert shown.text_of("form-errors") == [EMPTY_TEXT]
    assert stored(post) == []


def test_preview_in_place_answers_the_form_alone(client, make_post, mongo_db):
    post = make_post()
    action, data = form_data(client, post_url(post), text="*soft* words")
    response = in_place(client, action, {**data, "action": PREVIEW}, shown_at=post_url(post))
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith("<form") and "<em>soft</em>" in html
    assert page(response).inputs["token"] == data["token"]
    assert stored(post) == []


def test_a_member_previews_without_name_fields(client, make_post, django_user_model):
    user = django_user_model.objects.create_user(username="mia", password="pw-for-tests-only-1!")
    client.force_login(user)
    post = make_post()
    action, data = form_data(client, post_url(post), text="Hello")
    assert "name" not in data
    response = client.post(action, {**data, "action": PREVIEW})
    assert response.status_code == 200 and "<p>Hello</p>" in response.content.decode()


def test_author_of_a_comment_made_in_place_is_remembered(client, make_post):
    """The answer in place sets the same cookies as the redirect: the name comes back."""
    post = make_post()
    action, data = form_data(client, post_url(post), name="Quinn", text="Hi")
    in_place(client, action, data, shown_at=post_url(post))
    assert page(client.get(post_url(post))).inputs["name"] == "Quinn"


# --- Edits in place --------------------------------------------------------------------


def test_an_edit_in_place_answers_the_comment_as_its_page_draws_it(client, make_post):
    """A saved edit, in place: 200 with the comment drawn as its permalink page draws it
    (the same include) and the confirmation; a refused one: the edit form alone, 400,
    with the text."""
    from comments.views.changing import EDITED

    post = make_post()
    action, data = form_data(client, post_url(post), text="Frist")
    answer = posted(in_place(client, action, data, shown_at=post_url(post)))
    anchor = re.search(r'<article [^>]*id="(c-[^"]+)"', answer["html"]).group(1)
    slug = re.search(r'data-slug="([^"]+)"', answer["html"]).group(1)
    edit_url = f"{permalink_url(post, slug)}edit/"
    response = client.post(edit_url, {"text": "First, *really*"}, headers={"Slugline-In-Place": IN_PLACE})
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<div class="edited">') and "<em>really</em>" in html
    assert page(response).text_of("message") == [EDITED]
    full = client.get(permalink_url(post, slug)).content.decode()
    assert article(html, anchor) == article(full, anchor)
    assert page(client.get(permalink_url(post, slug))).text_of("message") == []

    refused = client.post(edit_url, {"text": ""}, headers={"Slugline-In-Place": IN_PLACE})
    assert refused.status_code == 400
    assert refused.content.decode().lstrip().startswith('<form id="edit"')
    assert EMPTY_TEXT in page(refused).text_of("field-error")
