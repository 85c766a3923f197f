"""Notification mail in a project that mounts nothing but the five lines
(tests/hosts/recipes/recipes_site/urls.py): the subscription pages answer under the
recipe's own URL, and every link the mail carries leads there. Mail is kept in
memory (the locmem backend pytest-django's test environment sets) and sent as a host
sends it, by `send_notifications`."""

import re
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command
from django.test import Client

from recipes.models import Recipe
from tests.page_reading import page, submit

RECIPE = "/recipes/pho/"
PAGES = "/recipes/pho/comments/notifications/"


@pytest.fixture
def recipe(settings):
    settings.NOTIFICATIONS_BATCH_SECONDS = 0  # a reply's mail is due at once
    return Recipe.objects.create(slug="pho", title="Phở bò")


def delivered(mailoutbox, to: str) -> list:
    """Send what is due, as a host's `send_notifications` does; the mails to `to`."""
    call_command("send_notifications", verbosity=0)
    return [message for message in mailoutbox if message.to == [to]]


def link(message, page_name: str) -> str:
    """The path of the link to the subscription page `page_name` in the mail's text."""
    [found] = re.findall(rf"https?://\S+/notifications/{page_name}/\S+/", message.body)
    return urlsplit(found).path


def test_a_reader_who_asks_for_reply_mail_confirms_manages_and_unsubscribes_under_the_recipe(
    client, recipe, mailoutbox
):
    response = submit(client, RECIPE, name="Rosa", email="rosa@example.com", notify_replies="on",
                      text="Which noodles?")
    assert response.status_code == 303
    [confirmation] = delivered(mailoutbox, "rosa@example.com")
    confirm = link(confirmation, "confirm")
    assert confirm.startswith(PAGES + "confirm/")

    asked = client.get(confirm)
    assert asked.status_code == 200 and "Phở bò" in asked.content.decode()
    confirmed = client.post(confirm, {"subscription": page(asked).inputs["subscription"]})
    assert confirmed.status_code == 303 and confirmed["Location"].startswith(PAGES + "manage/")
    managed = client.get(confirmed["Location"])
    assert managed.status_code == 200 and "Phở bò" in managed.content.decode()

    mine = next(c["slug"] for c in page(client.get(RECIPE)).comments if c["text"] == "Which noodles?")
    answer = submit(Client(REMOTE_ADDR="192.0.2.7"), f"{RECIPE}comments/{mine}/", name="Otto",
                    email="otto@example.com", parent=mine, text="Flat rice noodles.")
    assert answer.status_code == 303
    [reply_mail] = delivered(mailoutbox, "rosa@example.com")[1:]
    assert "Flat rice noodles." in reply_mail.body
    unsubscribe = link(reply_mail, "unsubscribe")
    assert reply_mail.extra_headers["List-Unsubscribe"] == f"<http://localhost:8000{unsubscribe}>"
    assert reply_mail.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert unsubscribe.startswith(PAGES + "unsubscribe/")
    manage = client.get(link(reply_mail, "manage"))
    assert manage.status_code == 200 and "Phở bò" in manage.content.decode()

    # RFC 8058: the mail program's one click, a POST with no cookie and no form token.
    strict = Client(enforce_csrf_checks=True)
    assert "Stop these mails" in strict.get(unsubscribe).content.decode()
    done = strict.post(unsubscribe, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded")
    assert done.status_code == 200 and f'href="{PAGES}"' in done.content.decode()
    assert "No notifications are sent" in client.get(link(reply_mail, "manage")).content.decode()


def test_the_ask_page_under_the_recipe_mails_a_manage_link_under_it(client, recipe, mailoutbox):
    submit(client, RECIPE, name="Rosa", email="rosa@example.com", notify_replies="on", text="Salt?")
    [confirmation] = delivered(mailoutbox, "rosa@example.com")
    shown = client.get(link(confirmation, "confirm"))
    client.post(link(confirmation, "confirm"), {"subscription": page(shown).inputs["subscription"]})
    asked = Client().post(PAGES, {"email": "rosa@example.com"})
    assert asked.status_code == 200 and f'action="{PAGES}"' in asked.content.decode()
    [manage_mail] = delivered(mailoutbox, "rosa@example.com")[1:]
    assert Client().get(link(manage_mail, "manage")).status_code == 200


def test_a_broken_link_under_the_recipe_says_so(client, recipe):
    response = client.get(PAGES + "confirm/forged/")
    assert response.status_code == 400 and f'href="{PAGES}"' in response.content.decode()
    assert client.post(PAGES + "unsubscribe/forged/").status_code == 404
