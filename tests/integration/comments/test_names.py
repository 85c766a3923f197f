"""Whose name is whose (comments/posting/names.py): an anonymous commenter cannot take an
author's or editor's name, however they spell it, and staff comments carry a badge."""

from __future__ import annotations

import pytest
from django.test import Client

from cms import authors
from cms.posts import AuthorSummary
from tests.page_reading import page, post_url, submit


@pytest.mark.parametrize("typed", ["Ada Lindqvist", "ada lindqvist", "Ádá  Lindqvist", "ADA-LINDQVIST"])
def test_an_anonymous_commenter_cannot_take_an_authors_name(client, make_post, mongo_db, typed):
    """The test posts are Ada Lindqvist's (username ada): her name is hers, however typed."""
    assert_name_refused(client, make_post(), typed, mongo_db)


def assert_name_refused(client, post, typed: str, mongo_db) -> None:
    """The form comes back refusing the name as an author's, with the reader's text."""
    refused = submit(client, post_url(post), name=typed, text="Trust me, I wrote this post.")
    assert refused.status_code == 400
    shown = page(refused)
    assert any("name of one of this site's authors" in error for error in shown.text_of("field-error"))
    assert shown.textareas["text"] == "Trust me, I wrote this post."
    assert mongo_db.comments.count_documents({}) == 0


@pytest.mark.django_db
def test_other_names_and_the_author_logged_in_are_fine(client, make_post, make_user, mongo_db):
    ada = make_user("ada", display_name="Ada Lindqvist")
    post = make_post(author=authors.summary_for(ada))
    assert submit(client, post_url(post), name="Ada Lovelace").status_code == 303
    assert submit(client, post_url(post), name="Ada", text="Another one").status_code == 303
    member = Client()
    member.force_login(ada)
    assert submit(member, post_url(post), text="Yes, I wrote it.").status_code == 303
    assert mongo_db.comments.count_documents({}) == 3


@pytest.mark.django_db
def test_staff_comments_carry_a_badge_and_others_do_not(client, make_post, make_user):
    """Staff (authors, editors) posting while logged in get the badge; members and
    visitors do not."""
    ada = make_user("ada", display_name="Ada Lindqvist")
    reader = make_user("rea", role="reader")
    post = make_post()
    for user, text in ((ada, "From the author"), (reader, "From a member")):
        browser = Client()
        browser.force_login(user)
        assert submit(browser, post_url(post), text=text).status_code == 303
    assert submit(client, post_url(post), name="Vic", text="From a visitor").status_code == 303
    html = client.get(post_url(post)).content.decode()
    articles = html.split('<article class="comment')[1:]
    badged = {text: any(text in a and "staff-badge" in a for a in articles)
              for text in ("From the author", "From a member", "From a visitor")}
    assert badged == {"From the author": True, "From a member": False, "From a visitor": False}


@pytest.mark.parametrize("typed", [
    "Αda Lindqvist",  # Greek capital alpha
    "Adа Lindqvist",  # Cyrillic а
    "Ada Lіndqvist",  # Cyrillic і
    "Ａｄａ Ｌｉｎｄｑｖｉｓｔ",  # full width
    "ADA LINDQVIST (editor)",
    "Ada Lindqvist, editor",
    "Ada\u200bLindqvist",  # a zero-width space
    "\u202eAda Lindqvist",  # a right-to-left override before it
])
def test_an_authors_name_in_look_alike_letters_or_with_words_around_it_is_refused(client, make_post, mongo_db,
                                                                                 typed):
    """Unicode's confusable skeletons (UTS #39): what a reader would read as the
    author's name is the author's name."""
    post = make_post()
    refused = submit(client, post_url(post), name=typed, text="Official statement.")
    assert refused.status_code == 400
    assert any("name of one of this site's authors" in e for e in page(refused).text_of("field-error"))
    assert mongo_db.comments.count_documents({}) == 0


def test_a_name_is_stored_without_direction_controls_and_shown_isolated(client, make_post, mongo_db):
    """"\u202erofakO onurB" would draw as "Bruno Okafor": the override is dropped, and
    every name is rendered in <bdi>, so no name reorders the text around it."""
    post = make_post()
    assert submit(client, post_url(post), name="\u202erofakO onurB", text="Hi").status_code == 303
    assert submit(client, post_url(post), name="Im\x85p\u2028X", text="Ho").status_code == 303
    stored = sorted(doc["author"]["name"] for doc in mongo_db.comments.find({}))
    assert stored == ["Im p X", "rofakO onurB"]
    html = client.get(post_url(post)).content.decode()
    assert "\u202e" not in html
    assert '<span class="comment-author"><bdi>rofakO onurB</bdi></span>' in html
    comment = mongo_db.comments.find_one({"author.name": "Im p X"})
    permalink = client.get(f"{post_url(post)}comments/{comment['slug']}/").content.decode()
    assert "Comment by <bdi>Im p X</bdi>" in permalink


@pytest.mark.parametrize("typed", [
    "ВRUNO ОKAFOR",  # Cyrillic capitals В and О, whose lower-case forms read otherwise
    "ΒRUNO OΚAFOR",  # Greek capitals Β and Κ
    "BRUΝO ΟKAFOR",  # Greek capitals Ν and Ο
    "Вruno Okafor",
    "Okafor, Bruno",  # the words reordered
    "OKAFOR BRUNO (editor)",
    "ОKAFOR, ВRUNO",
])
def test_any_authors_name_in_look_alike_capitals_or_reordered_is_refused(client, make_post, mongo_db, typed):
    """Bruno Okafor writes for the site beside Ada Lindqvist (not its editor): his name is
    his in capitals that only look Latin, and with its words in another order."""
    make_post()
    post = make_post(author=AuthorSummary(id=2, username="bruno", name="Bruno Okafor"))
    assert_name_refused(client, post, typed, mongo_db)


def test_names_that_only_share_a_word_or_a_capitals_look_are_fine(client, make_post, mongo_db):
    make_post(author=AuthorSummary(id=2, username="bruno", name="Bruno Okafor"))
    post = make_post(author=AuthorSummary(id=3, username="hot", name="Hot Ember"))
    for n, name in enumerate(["Bruno", "Okafor Adebayo", "Not Ember", "ВЕРА"]):
        assert submit(client, post_url(post), name=name, text=f"Hello {n}").status_code == 303, name
    assert mongo_db.comments.count_documents({}) == 4
