"""One spelling per mailbox (comments/addresses.py): what limits, outbox keys,
subscriptions, bans and blocked domains compare."""

from __future__ import annotations

import pytest

from comments import addresses


@pytest.mark.parametrize("typed,expected", [
    ("dave@target.test", "dave@target.test"),
    ("dave@ｔarget.test", "dave@target.test"),  # a full-width letter in the domain
    ("dave@ＴＡＲＧＥＴ.ＴＥＳＴ", "dave@target.test"),
    ("Dave@Target.Test", "dave@target.test"),
    ("  dave@target.test.  ", "dave@target.test"),  # a root dot is the same domain
    ("dave@tar\u200bget.test", "dave@target.test"),  # a zero-width space
    ("da\u200bve@target.test", "dave@target.test"),
    ("ｄａｖｅ@target.test", "dave@target.test"),
    ("rosa@Bücher.Example", "rosa@xn--bcher-kva.example"),
    ("rosa@xn--bcher-kva.example", "rosa@xn--bcher-kva.example"),
    ("rosa+news@example.com", "rosa+news@example.com"),  # +tags are the provider's to read
    ("r.o.s.a@example.com", "r.o.s.a@example.com"),
    ("", ""),
])
def test_every_spelling_of_an_address_normalises_to_the_one_mail_is_delivered_to(typed, expected):
    assert addresses.normalise(typed) == expected


def test_the_domain_of_an_address_and_a_blocked_domain_normalise_alike():
    assert addresses.normalise_domain("@ｓpamco.test") == "spamco.test"
    assert addresses.normalise_domain("SPAMCO.test.") == "spamco.test"
    assert addresses.domain_of("x@ｓpamco.test") == "spamco.test"
    assert addresses.domain_of("no address") == ""


@pytest.mark.parametrize("value", ["rosa@example.com\r\nBcc: all@example.com", "a\nb@example.com",
                                   "a\x85b@example.com", "a\u2028b@example.com", "a\x00b@example.com"])
def test_line_breaks_and_control_characters_are_found(value):
    assert addresses.has_control_characters(value)


def test_an_ordinary_address_has_no_control_characters():
    assert not addresses.has_control_characters("rosa@bücher.example")
