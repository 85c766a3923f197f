"""Every spelling of an address is one mailbox (comments/addresses.py) wherever the
site counts, keys, bans or blocks it; blocked words are caught in look-alike
spellings too. Through the real posting service and the comment form."""

from __future__ import annotations

import pytest
from django.test import Client

from comments.moderation import blocklist
from comments.notifications import notify
from tests.page_reading import page, post_url, submit

SPELLINGS = ["dave@target.test", "dave@ｔarget.test", "DAVE@TARGET.TEST", "dave@ｔａｒｇｅｔ.ｔｅｓｔ",
             "dave@target.test.", "dave@tar\u200bget.test"]


def test_the_per_address_limit_counts_every_spelling_of_the_address(settings, mongo_db):
    """Ten confirmation requests to one mailbox, each spelled differently and from its own
    client: one mail is enqueued, to the address as mail is delivered to it, and the
    address's limit (2 in the window) is spent."""
    settings.NOTIFICATIONS_CONFIRM_PER_ADDRESS, settings.NOTIFICATIONS_CONFIRM_PER_CLIENT = 2, 10
    for n, spelling in enumerate(SPELLINGS * 2):
        notify.request_address_mail(kind=notify.CONFIRM, email=spelling, ip=f"192.0.2.{n}")
    assert [d["to"] for d in mongo_db.notification_outbox.find({})] == ["dave@target.test"]
    slots = mongo_db.comment_rate_slots.distinct("key", {"key": {"$regex": "^mail-confirm:addr:"}})
    assert slots == ["mail-confirm:addr:dave@target.test"]
    assert mongo_db.comment_rate_slots.count_documents({"key": slots[0]}) == 2


def test_a_ban_of_an_address_holds_for_every_spelling_of_it(make_post, mongo_db):
    blocklist.add_entry(kind=blocklist.BAN_EMAIL, value="Dave@Target.test")
    post = make_post()
    for spelling in SPELLINGS:
        refused = submit(Client(), post_url(post), email=spelling, text=f"From {spelling}")
        assert refused.status_code == 403, spelling
    assert mongo_db.comments.count_documents({}) == 0


@pytest.mark.parametrize("email", ["x@spamco.test", "x@ｓpamco.test", "x@SPAMCO.test", "x@mail.ｓpamco.test"])
def test_a_blocked_domain_holds_comments_from_every_spelling_of_it(make_post, mongo_db, email):
    blocklist.add_entry(kind=blocklist.DOMAIN, value="spamco.test")
    post = make_post()
    assert submit(Client(), post_url(post), email=email, text="Hello").status_code == 303
    assert mongo_db.comments.find_one({})["status"] == "pending"


@pytest.mark.parametrize("word", [
    "casino", "ｃａｓｉｎｏ", "cas\u200bino", "cаsino", "CASİNO",
    "САЅІNО", "CΑSΙΝΟ",  # Cyrillic, Greek capitals (Greek Ν reads as v in lower case)
    "КASINO",  # a blocked "kasino" below: Cyrillic К, whose lower case к reads as ĸ
    "cas**i**no", "cas<b>i</b>no", "cas&#105;no", "ca<span>s</span>ino",  # markup inside the word
])
def test_a_blocked_word_holds_comments_in_every_look_alike_spelling(make_post, mongo_db, word):
    blocklist.add_entry(kind=blocklist.WORD, value="casino")
    blocklist.add_entry(kind=blocklist.WORD, value="kasino")
    post = make_post()
    assert submit(Client(), post_url(post), text=f"Visit my {word} tonight").status_code == 303
    assert mongo_db.comments.find_one({})["status"] == "pending"


@pytest.mark.parametrize("word", ["cas_i_no", "cas<br>ino", "cas&lt;b&gt;i&lt;/b&gt;no"])
def test_markup_that_readers_see_as_other_words_is_approved(make_post, mongo_db, word):
    blocklist.add_entry(kind=blocklist.WORD, value="casino")
    post = make_post()
    assert submit(Client(), post_url(post), text=f"Visit my {word} tonight").status_code == 303
    assert mongo_db.comments.find_one({})["status"] == "approved"


def test_an_address_with_a_line_break_is_refused_with_the_text_kept(make_post, mongo_db):
    post = make_post()
    refused = submit(Client(), post_url(post), email="rosa@example.com\r\nBcc: all@example.com",
                     text="Keep my words")
    assert refused.status_code == 400
    shown = page(refused)
    assert any("control characters" in error for error in shown.text_of("field-error"))
    assert shown.textareas["text"] == "Keep my words"
    assert mongo_db.comments.count_documents({}) == 0
