"""The comments app as a reusable app (issue 26): its own pages for refused posts (in
the site's layout, the reader's text kept), the layout they extend
(COMMENTS_BASE_TEMPLATE), its template tags and its signals, which the
notifications themselves listen to."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template import Context, Template
from django.test import RequestFactory

from cms.comments_host import BlogHost
from comments import signals
from comments.host import CANNOT_CREATE, BaseHost, get_host
from comments.notifications import notify, subscriptions
from comments.posting import services
from comments.posting.forms import TOO_LONG
from comments.posting.services import CLOSED
from comments.records import APPROVED, DELETED, PENDING, CommentAuthor, Viewer
from tests import smtp
from tests.page_reading import Page, discussion_url, page, post_url

pytestmark = pytest.mark.usefixtures("each_store")


def form_data(client, page_url: str, **fields) -> tuple[str, dict]:
    """The comment form of the page at `page_url`, filled in as a reader would."""
    shown = page(client.get(page_url))
    data = {**shown.inputs, **shown.textareas, "name": "Rosa", "email": "rosa@example.com", "text": "Kept."}
    data.update(fields)
    return shown.form_action, data


# --- Refused posts: the app's own page -----------------------------------------------


def test_a_refused_comment_comes_back_on_the_apps_discussion_page_with_its_text(client, make_post, settings):
    """A comment the form refuses (too long) answers 400 with the comments app's own
    discussion page, in the site's layout, the reader's text in the form, not the
    blog's post page."""
    settings.COMMENTS_MAX_LENGTH = 20
    post = make_post(title="Tides")
    action, data = form_data(client, post_url(post), text="Far too long for this site, kept.")
    response = client.post(action, data)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'class="site-header"' in html and 'class="page-title"' in html  # the site's layout, the app's page
    assert 'id="post-title"' not in html and "Body of post" not in html  # not the blog's article
    shown = page(response)
    assert shown.textareas["text"] == "Far too long for this site, kept."
    assert " ".join(shown.text_of("field-error")) == TOO_LONG % {"limit_value": 20, "show_value": 33}
    assert shown.form_action == action


def test_a_comment_on_a_closed_discussion_is_403_on_the_apps_page_with_the_text_to_copy(client, make_post):
    post = make_post()
    action, data = form_data(client, post_url(post), text="Words I want back.")
    from cms import posts

    posts.set_comments_closed(post_id=post.id, closed=True)
    response = client.post(action, data)
    assert response.status_code == 403
    html = response.content.decode()
    assert 'class="page-title"' in html and 'id="post-title"' not in html
    assert CLOSED in html
    assert page(response).textareas["text"] == "Words I want back."


# --- The layout the app's pages extend ------------------------------------------------


@pytest.fixture
def plain_layout(settings, tmp_path):
    """A project whose layout is not Slugline's: plain_base.html in its templates."""
    (tmp_path / "plain_base.html").write_text(
        '<!doctype html><title>{% block title %}{% endblock title %}</title>'
        '<body class="plain-layout">{% block content %}{% endblock content %}</body>'
    )
    engine = {**settings.TEMPLATES[0], "DIRS": [tmp_path, *settings.TEMPLATES[0]["DIRS"]]}
    settings.TEMPLATES = [engine]
    settings.COMMENTS_BASE_TEMPLATE = "plain_base.html"


def test_the_apps_pages_extend_the_layout_comments_base_template_names(client, make_post, make_comment,
                                                                       plain_layout):
    post = make_post()
    comment = make_comment(post, text="In another layout")
    for url in (discussion_url(post), f"{discussion_url(post)}{comment.slug}/"):
        html = client.get(url).content.decode()
        assert 'class="plain-layout"' in html and 'class="site-header"' not in html
        assert "In another layout" in html
    # The blog's own page keeps the site's layout, the comment section inside it.
    html = client.get(post_url(post)).content.decode()
    assert 'class="site-header"' in html and "In another layout" in html


def test_the_default_layout_is_the_sites_base(client, make_post):
    html = client.get(discussion_url(make_post())).content.decode()
    assert 'class="site-header"' in html and 'class="site-footer"' in html


# --- Template tags ----------------------------------------------------------------------


def _request(path: str):
    request = RequestFactory().get(path)
    request.user = AnonymousUser()
    request.session = {}
    return request


def test_comment_section_draws_heading_views_comments_and_form(make_post, make_comment):
    first = make_comment(make_post(), text="Tag drawn")
    post = get_host().get(first.discussion_id)  # as a page reads it: with its comment summary
    request = _request(post_url(post))
    html = Template("{% load comments %}{% comment_section post %}").render(
        Context({"post": post, "request": request, "csrf_token": "t0ken"}))
    shown = Page(html.encode())
    assert [c["slug"] for c in shown.comments] == [first.slug]
    assert shown.by_id["comments-title"] and 'class="view-switch"' in html
    assert shown.form_action == f"{discussion_url(post)}#reply"
    assert shown.inputs["csrfmiddlewaretoken"] == "t0ken"


def test_comment_form_draws_the_form_alone_with_its_heading(make_post, make_comment):
    post = make_post()
    make_comment(post, text="Not in the form's tag")
    html = Template('{% load comments %}{% comment_form post heading="Say something" %}').render(
        Context({"post": post, "request": _request(post_url(post))}))
    assert "Say something" in html and 'id="reply"' in html
    assert "Not in the form's tag" not in html and 'class="comment"' not in html


# --- Signals ------------------------------------------------------------------------------


@pytest.fixture
def heard():
    """What each of the app's signals was sent with during the test."""
    got: dict[str, list[dict]] = {"posted": [], "status": [], "flagged": []}
    receivers = {
        "posted": lambda sender, **kw: got["posted"].append(kw),
        "status": lambda sender, **kw: got["status"].append(kw),
        "flagged": lambda sender, **kw: got["flagged"].append(kw),
    }
    pairs = [(signals.comment_posted, receivers["posted"]),
             (signals.comment_status_changed, receivers["status"]),
             (signals.comment_flagged, receivers["flagged"])]
    for signal, receiver in pairs:
        signal.connect(receiver)
    yield got
    for signal, receiver in pairs:
        signal.disconnect(receiver)


def test_posting_through_the_form_sends_comment_posted_once(client, make_post, heard):
    post = make_post()
    action, data = form_data(client, post_url(post), text="Heard")
    assert client.post(action, data).status_code == 303
    [sent] = heard["posted"]
    assert sent["comment"].text == "Heard" and sent["discussion"].id == post.id and sent["duplicate"] is False
    # The same form again: the comment that exists, said to be a duplicate.
    assert client.post(action, data).status_code == 303
    assert [s["duplicate"] for s in heard["posted"]] == [False, True]
    assert heard["posted"][1]["comment"].id == sent["comment"].id


def test_bulk_loads_send_nothing(make_post, heard):
    services.post_comment(post=make_post(), text="Seeded", author=CommentAuthor(id=None, name="Demo"),
                          summarise=False)
    assert heard["posted"] == []


def test_flags_deletes_and_moderation_send_their_signals(make_post, make_comment, heard, settings):
    from comments.moderation import queue as moderation

    settings.COMMENTS_FLAGS_TO_HOLD = 2
    post = make_post()
    comment = make_comment(post)
    for n, flagger in enumerate(["ip:1", "ip:2"], start=1):
        assert services.flag_comment(comment=comment, flagger=flagger, reason="spam")
        assert heard["flagged"][-1]["count"] == n and heard["flagged"][-1]["held"] is (n == 2)
    assert heard["status"] == [
        {"comment_ids": [comment.id], "status": PENDING, "signal": signals.comment_status_changed}
    ]
    moderation.moderate(action="approve", comment_ids=[comment.id], editor="ed")
    assert heard["status"][-1]["comment_ids"] == [comment.id] and heard["status"][-1]["status"] == APPROVED
    mine = make_comment(post)
    services.delete_own_comment(comment=mine, viewer=Viewer(own=frozenset({mine.id})))
    assert heard["status"][-1]["comment_ids"] == [mine.id] and heard["status"][-1]["status"] == DELETED


def test_the_notifications_hear_of_comments_through_the_signals(make_post, make_comment, mongo_db):
    """A discussion's follower hears of a new comment because notify listens to
    comment_posted: without its receiver, nothing is enqueued."""
    post = make_post()
    subscriptions.subscribe(kind=subscriptions.DISCUSSION, target=post.id, discussion_id=post.id,
                            email="follower@example.com", owner=True)
    assert signals.comment_posted.disconnect(dispatch_uid="comments.notifications.notify.posted")
    try:
        make_comment(post, text="Unheard")
        assert mongo_db.notification_outbox.count_documents({}) == 0
    finally:
        signals.comment_posted.connect(notify.on_comment_posted, dispatch_uid="comments.notifications.notify.posted")
    make_comment(post, text="Heard")
    told = {"kind": notify.FOLLOW, "to": "follower@example.com"}
    assert mongo_db.notification_outbox.count_documents(told) == 1


# --- The host's defaults, with real users ------------------------------------------------


def test_moderators_are_the_users_with_an_address_whom_the_host_lets_moderate(make_user):
    """BaseHost.moderators, which the blog keeps: its editors (can_moderate) that have an
    address and are active; not other staff, not readers, not an inactive editor."""
    from django.contrib.auth import get_user_model

    from comments.host import CANNOT_CREATE, BaseHost, get_host

    roles = [("edda", "editor"), ("otto", "editor"), ("ines", "editor"), ("abe", "author"), ("rae", "reader")]
    people = {name: make_user(name, role=role) for name, role in roles}
    boss = get_user_model().objects.create_superuser("boss", "boss@example.com", "x")
    for name, user in people.items():
        user.email = "" if name == "otto" else f"{name}@example.com"
        user.is_active = name != "ines"
        user.save()
    assert [u.username for u in get_host().moderators()] == ["edda", "boss"]
    assert get_host().can_moderate(boss) and not get_host().can_moderate(people["abe"])


class HostWithoutDrafts(BlogHost):
    """The blog, but a host that makes no discussions (BaseHost's create_draft)."""

    create_draft = BaseHost.create_draft


def test_an_import_that_needs_a_draft_from_a_host_that_makes_none_stops_with_a_clear_error(
    make_post, settings,
):
    """BaseHost's create_draft refuses, saying why; the command turns it into its error."""
    from pathlib import Path

    from django.core.management import CommandError, call_command

    make_post(slug="hello-world")
    make_post(slug="second-post")
    settings.COMMENTS_HOST = f"{__name__}.HostWithoutDrafts"
    export = Path(__file__).resolve().parents[2] / "fixtures" / "imports" / "disqus-export.xml"
    message = CANNOT_CREATE.format(host="HostWithoutDrafts", title="A lost article")
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("import_comments", "--format", "disqus", "--no-progress", "--create-missing",
                     str(export))


smtp_server = smtp.smtp_server  # the fixture


class HostWithoutModerationPage(BlogHost):
    """The blog, but a host with nowhere to link moderators (BaseHost's moderation_url)."""

    moderation_url = BaseHost.moderation_url


def test_a_host_without_a_moderation_page_still_gets_its_queue_digest_without_a_link(
    make_post, make_user, settings, smtp_server,
):
    """The editors' digest of comments waiting for moderation says how many wait, in
    both parts, with no link (and no "None") when the host has no moderation page."""
    from datetime import UTC, datetime, timedelta

    from comments.notifications import sender

    text_of, html_of = smtp.text_of, smtp.html_of

    settings.SITE_URL = "http://blog.example.test"
    settings.NOTIFICATIONS_BATCH_SECONDS, settings.NOTIFICATIONS_QUEUE_DIGEST_MINUTES = 0, 1
    settings.COMMENTS_HOST = f"{__name__}.HostWithoutModerationPage"
    settings.COMMENTS_MODERATION = ["all"]
    editor = make_user("edith", role="editor")
    editor.email = "edith@example.com"
    editor.save()
    post = make_post()
    comment = services.post_comment(post=post, text="Waiting", author=CommentAuthor(None, "Otto", "o@example.com"))
    notify.after_posting(comment.comment, post_author_id=post.author.id)
    assert sender.deliver_due(now=datetime.now(UTC) + timedelta(seconds=61)).sent == 1
    [mail] = smtp_server.inbox.messages
    text, html = text_of(mail), html_of(mail)
    assert mail["To"] == "edith@example.com" and "Waiting" in text and "Waiting" in html
    assert "1 comment waits for moderation." in text and "1 comment waits for moderation." in html
    assert "None" not in text and "None" not in html and "<a href=\"\"" not in html
