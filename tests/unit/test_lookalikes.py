"""Look-alike spellings (comments/internal/unicode_text.py's keys, UTS #39 skeletons through
ICU): blocked words and commenters' names are compared as a reader would read them."""

from __future__ import annotations

import pytest

from comments.internal import unicode_text
from comments.posting import antispam, names


@pytest.mark.parametrize("text", [
    "casino", "CASINO", "ｃａｓｉｎｏ", "cas\u200bino", "c\u00adasino", "cаsino",  # Cyrillic а
    "CASİNO", "casin0", "ⅽasino",
])
def test_a_blocked_word_is_found_however_it_is_spelled(text):
    assert antispam.blocked_word(f"Best {text} bonus here", ["casino"]) == "casino"


@pytest.mark.parametrize("text", ["casinos", "Occasional reading", "a casi no"])
def test_a_blocked_word_is_matched_as_a_whole_word_only(text):
    assert antispam.blocked_word(text, ["casino"]) is None


def test_a_blocked_word_entered_in_a_look_alike_spelling_still_finds_the_plain_one():
    assert antispam.blocked_word("play casino now", ["ｃаsino"]) == "ｃаsino"


@pytest.mark.parametrize("email", ["x@spamco.test", "x@ｓpamco.test", "x@SPAMCO.TEST", "x@mail.ｓpamco.test",
                                   "x@spam\u200bco.test"])
def test_a_blocked_domain_is_found_however_the_address_spells_it(email):
    assert antispam.blocked_domain(email, ["spamco.test"]) == "spamco.test"


def test_a_blocked_domain_entered_in_full_width_letters_still_blocks():
    assert antispam.blocked_domain("x@spamco.test", ["ｓpamco.test"]) == "ｓpamco.test"
    assert antispam.blocked_domain("x@notspamco.test", ["spamco.test"]) is None


@pytest.mark.parametrize("name", [
    "Brunо Okafor",  # Cyrillic о
    "Bruno Okаfor",  # Cyrillic а
    "Brunᴏ Okafor",  # small capital O
    "Ɓruno Okafor",  # B with hook
    "BRUNO OKAFOR",
    "Bruno\u200b Okafor",
    "ＢＲＵＮＯ ＯＫＡＦＯＲ",
])
def test_look_alike_names_read_as_the_name_they_imitate(name):
    assert names.words(name) == ("bruno", "okafor")


def test_a_greek_alpha_reads_as_a_latin_a():
    assert names.words("Αda Lindqvist") == names.words("Ada Lindqvist")


def test_different_hindi_names_stay_different_under_skeletons():
    assert names.words("अनन्या शर्मा") != names.words("अनान्या शर्मा")


def test_the_skeleton_is_unicode_s():
    """UTS #39's own examples of confusables: what ICU computes, not a table of ours."""
    assert unicode_text.skeleton("раypal") == unicode_text.skeleton("paypal")  # Cyrillic р, а
    assert unicode_text.skeleton("ℓ") == unicode_text.skeleton("l")


@pytest.mark.parametrize("typed,stored", [
    ("\u202erofakO onurB", "rofakO onurB"),  # a right-to-left override
    ("Bruno\u2066 Okafor\u2069", "Bruno Okafor"),  # isolates
    ("Im\x85p\u2028X", "Im p X"),  # NEL and a line separator
    ("  Ada\t\nLindqvist ", "Ada Lindqvist"),
    ("Ada\u200bLindqvist", "AdaLindqvist"),
    ("Ada\ufeff", "Ada"),
    ("क्\u200dष", "क्\u200dष"),  # a joiner inside a Devanagari word stays
    ("Ada\u200d Lindqvist", "Ada Lindqvist"),  # but not after a Latin letter
])
def test_names_are_stored_without_direction_controls_or_invisible_characters(typed, stored):
    assert names.clean(typed) == stored


def test_a_blocked_word_inside_a_longer_word_does_not_hide_the_same_word_after_it():
    assert antispam.blocked_word("xcasino then casino", ["casino"]) == "casino"
    assert antispam.blocked_word("xcasino then casinos", ["casino"]) is None


def test_a_blocked_phrase_is_found_before_its_first_word():
    assert antispam.blocked_word("cheap pills now", ["cheap", "cheap pills"]) == "cheap pills"
    assert antispam.blocked_word("cheap ｐｉｌｌｓ now", ["cheap pills"]) == "cheap pills"
