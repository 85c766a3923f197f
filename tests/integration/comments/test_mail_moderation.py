"""Moderating from the mail, end to end: the editors' queue mail, delivered to a real
SMTP server on a loopback port (tests/smtp.py), carries signed Approve, Spam and
Delete links; their page shows the comment and a button without changing anything,
its POST (with the CSRF token the page gave) acts once through the queue's own
action; every refusal is a page. One store: nothing here differs by store."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest
from django.test import Client

from comments.moderation import queue as moderation
from comments.notifications import mail_moderation, moderation_links, notify, sender
from comments.notifications.mail_moderation import REFUSALS
from comments.records import CommentAuthor
from comments.stores import get_store
from tests import smtp
from tests.smtp import html_of, text_of
from tests.threads import at_once

smtp_server = smtp.smtp_server  # the fixture

pytestmark = [pytest.mark.usefixtures("each_store"), pytest.mark.stores("documents")]

OTTO = CommentAuthor(id=None, name="Otto", email="otto@example.com")
SITE = "http://blog.example.test"
LINK = re.compile(re.escape(SITE) + r"/notifications/moderate/[^\s<>\"]+/")


@pytest.fixture(autouse=True)
def _held(settings):
    settings.SITE_URL = SITE
    settings.COMMENTS_MODERATION = ["all"]
    settings.NOTIFICATIONS_QUEUE_DIGEST_MINUTES = 30
    settings.NOTIFICATIONS_AUTHOR_DIGEST_MINUTES = 0


@pytest.fixture
def editor(make_user):
    user = make_user("edith", role="editor")
    user.email = "edith@example.com"
    user.save()
    return user


@pytest.fixture
def held(make_post, make_comment):
    """A comment waiting in the queue."""
    comment = make_comment(make_post(), text="Held for a look", author=OTTO)
    assert comment.status == "pending"
    return comment


def path_of(url: str) -> str:
    return urlsplit(url).path


def tokens_for(editor, comment, *, now: datetime | None = None) -> dict[str, str]:
    """The paths of a mail's three links, as comments/notifications/mail.py makes them."""
    made = moderation_links.make_tokens(editor_id=editor.pk, comment_id=comment.id, now=now)
    return {action: f"/notifications/moderate/{token}/" for action, token in made.items()}


def status_of(comment) -> str:
    return get_store().find_by_id(comment.id).status


def csrf_of(response) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', response.content.decode()).group(1)


def text(response) -> str:
    return html.unescape(response.content.decode())


def message_of(code: str) -> str:
    return REFUSALS[code][0].split(":")[0]


def test_the_queue_mail_links_show_the_comment_then_act_once_as_the_editor(
    editor, make_user, make_post, make_comment, smtp_server, mongo_db
):
    demoted = make_user("dora", role="editor")
    demoted.email = "dora@example.com"
    demoted.save()
    comment = make_comment(make_post(title="Soup"), text="Held for a look", author=OTTO)
    notify.after_posting(comment, post_author_id=None)
    demoted.groups.clear()  # after the comment was enqueued for her, before her mail is written
    assert sender.deliver_due(now=datetime.now(UTC) + timedelta(minutes=31)).sent == 2
    mail = smtp_server.inbox.to("edith@example.com")[0]
    links = LINK.findall(text_of(mail))
    assert len(links) == 3 and set(LINK.findall(html_of(mail))) == set(links)
    assert "work once, for 7 days" in text_of(mail)
    assert LINK.findall(text_of(smtp_server.inbox.to("dora@example.com")[0])) == []
    approve, spam = path_of(links[0]), path_of(links[1])

    browser = Client(enforce_csrf_checks=True)  # not signed in: the link is the credential
    shown = browser.get(approve)
    assert shown.status_code == 200 and "no-store" in shown["Cache-Control"]
    assert "Held for a look" in text(shown) and "Soup" in text(shown)
    assert browser.get(spam).status_code == 200
    assert status_of(comment) == "pending"  # opening the links changed nothing
    assert browser.post(approve).status_code == 403  # no CSRF token: refused
    assert status_of(comment) == "pending"

    done = browser.post(approve, {"csrfmiddlewaretoken": csrf_of(shown)})
    assert done.status_code == 200 and "You approved the comment by Otto" in text(done)
    assert status_of(comment) == "approved"
    recorded = mongo_db.comment_changes.find_one({"changes.id": comment.id})
    assert (recorded["action"], recorded["editor"]) == ("approve", "edith")

    again = browser.post(approve, {"csrfmiddlewaretoken": csrf_of(shown)})
    assert again.status_code == 409 and message_of(mail_moderation.USED) in text(again)
    other = browser.post(spam, {"csrfmiddlewaretoken": csrf_of(shown)})
    assert other.status_code == 409 and status_of(comment) == "approved"
    assert mongo_db.comment_changes.count_documents({"changes.id": comment.id}) == 1


def _refused(client: Client, path: str, code: str) -> None:
    """GET and POST both answer the refusal's page, in the site's layout."""
    for response in (client.get(path), client.post(path)):
        shown = text(response)
        assert response.status_code == REFUSALS[code][1], (code, response.status_code)
        assert message_of(code) in shown and 'class="site-header"' in shown


def test_an_expired_link_is_refused_and_changes_nothing(client, editor, held, mongo_db):
    week = 7 * 24 * 3600
    young = tokens_for(editor, held, now=datetime.now(UTC) - timedelta(seconds=week - 60))
    old = tokens_for(editor, held, now=datetime.now(UTC) - timedelta(seconds=week + 1))
    assert client.get(young["spam"]).status_code == 200
    _refused(client, old["spam"], moderation_links.EXPIRED)
    assert status_of(held) == "pending" and mongo_db.moderation_link_uses.count_documents({}) == 0


def test_links_switched_off_are_refused(client, editor, held, settings):
    path = tokens_for(editor, held)["spam"]
    settings.NOTIFICATIONS_MODERATION_LINK_MAX_AGE = 0
    _refused(client, path, mail_moderation.OFF)
    assert status_of(held) == "pending"


def test_a_tampered_link_is_refused(client, editor, held):
    path = tokens_for(editor, held)["delete"]
    _refused(client, path[:-3] + ("x/" if path[-2] != "x" else "y/"), moderation_links.TAMPERED)
    assert status_of(held) == "pending"


@pytest.mark.parametrize("change", ["demoted", "inactive", "deleted"])
def test_a_link_of_someone_who_no_longer_moderates_is_refused(client, editor, held, change):
    path = tokens_for(editor, held)["approve"]
    if change == "demoted":
        editor.groups.clear()
    elif change == "inactive":
        editor.is_active = False
        editor.save()
    else:
        editor.delete()
    _refused(client, path, mail_moderation.NOT_EDITOR)
    assert status_of(held) == "pending"


def test_a_comment_decided_by_anyone_is_not_decided_again(client, editor, make_user, held):
    path = tokens_for(editor, held)["approve"]
    moderation.moderate(action="spam", comment_ids=[held.id], editor="someone")
    _refused(client, path, mail_moderation.DECIDED)
    assert status_of(held) == "spam"


def test_two_clicks_at_once_act_once(transactional_db, editor, held, mongo_db):
    """Approve twice and Spam, from one mail, at the same moment through three clients:
    one acts, the others are told the links were used."""
    paths = tokens_for(editor, held)
    chosen = [paths["approve"], paths["approve"], paths["spam"]]
    answers = at_once([lambda path=path: Client().post(path) for path in chosen])
    codes = sorted(answer.status_code for answer in answers)
    assert codes == [200, 409, 409], answers
    assert status_of(held) in ("approved", "spam")
    assert mongo_db.comment_changes.count_documents({"changes.id": held.id}) == 1
    assert mongo_db.moderation_link_uses.count_documents({}) == 1
