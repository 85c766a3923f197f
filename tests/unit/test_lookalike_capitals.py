"""Look-alike capitals (comments/internal/unicode_text.py's readings): a capital that imitates a
Latin letter its lower-case form does not (Cyrillic "В" is "B", "в" a small capital)
is read as the letter it imitates, in names and blocked words; names are compared as
sets of words. UTS #39's case-insensitive comparison, through ICU."""

from __future__ import annotations

import pytest

from comments.internal import unicode_text
from comments.posting import antispam, names

# Cyrillic and Greek capitals, each with the Latin capital it looks like.
CYRILLIC = dict(zip("АВЕКМНОРСТХ", "ABEKMHOPCTX", strict=True))
GREEK = dict(zip("ΑΒΕΗΙΚΜΝΟΡΤΧ", "ABEHIKMNOPTX", strict=True))
CAPITALS = sorted({**CYRILLIC, **GREEK}.items())


class _Host:
    def __init__(self, authors: list[str]):
        self.authors = authors

    def author_names(self) -> list[str]:
        return self.authors

    def member_names(self) -> list[str]:
        return []


@pytest.fixture
def taken(monkeypatch):
    """`taken(authors, typed)`: whether `names.is_taken` refuses `typed` on a site whose
    posts are by `authors` (the host's list, as comments/posting/names.py reads it)."""

    def check(authors: list[str], typed: str) -> bool:
        monkeypatch.setattr(names, "get_host", lambda: _Host(authors))
        names.forget()
        return names.is_taken(typed)

    yield check
    names.forget()


@pytest.mark.parametrize(("capital", "latin"), CAPITALS)
def test_a_look_alike_capital_reads_as_the_latin_capital_it_imitates(capital, latin):
    assert unicode_text.capital_reading(f"{capital}ox") == f"{latin}ox"
    assert unicode_text.lookalike_key(f"{latin}ox") in unicode_text.lookalike_keys(f"{capital}ox")
    assert unicode_text.text_key(f"a {latin}OX") in unicode_text.text_keys(f"a {capital}OX")


def test_capitals_whose_lower_case_differs_are_what_the_lower_case_key_alone_misses():
    """The hole: "в" is a small capital B, "η" an n, "μ" a Greek mu; the key made in lower
    case reads those, not the capitals a reader sees."""
    assert unicode_text.lookalike_key("ВRUNO") != "bruno"
    assert unicode_text.lookalike_key("ΗΑΝΑ") == "nava"  # Greek η, α, ν, α
    assert {"bruno"} <= unicode_text.lookalike_keys("ВRUNO")
    assert {"hana", "nava"} == unicode_text.lookalike_keys("ΗΑΝΑ")


def test_lower_case_letters_only_their_capitals_confuse_stay_apart(taken):
    """Greek "Η" looks like "H" and "η" like "n": neither makes "hot" and "not" one word."""
    assert unicode_text.lookalike_keys("hot").isdisjoint(unicode_text.lookalike_keys("not"))
    assert not taken(["Hot Tub"], "Not Tub")
    assert antispam.blocked_word("it is not so", ["hot"]) is None


def test_a_text_without_look_alike_capitals_is_read_once():
    text = "Lorem ipsum, Hà Nội, नमस्ते, cаt"  # a lower-case Cyrillic а only
    assert unicode_text.capital_reading(text) is text
    assert len(unicode_text.text_keys(text)) == 1


@pytest.mark.parametrize(("capital", "latin"), CAPITALS)
def test_an_authors_name_with_a_look_alike_capital_is_taken(taken, capital, latin):
    """Any capital of the name, the first letter's or one inside the name in capitals,
    in any author's name."""
    assert taken(["Ada Lindqvist", f"{latin}olt Ember"], f"{capital}olt Ember")
    assert taken(["Ada Lindqvist", f"{latin}olt Ember"], f"{capital}OLT EMBER")
    assert taken([f"Holt {latin}mber"], f"HOLT {capital}MBER")


@pytest.mark.parametrize("typed", [
    "ВRUNO ОKАFОR",  # Cyrillic В, О, А, О
    "ΒRUΝΟ ΟΚΑFΟR",  # Greek Β, Ν, Ο, Κ, Α
    "Вrυno Okafor",  # a Cyrillic capital В and a Greek small υ in one word
    "Okafor, Bruno",
    "OKAFOR BRUNO",
    "Okafor Bruno (editor)",
    "ОKAFOR, ВRUNО",
    "okaforbruno",
    "BrunoOkafor",
])
def test_look_alike_capitals_and_reordered_words_pass_for_the_authors_name(taken, typed):
    assert taken(["Ada Lindqvist", "Bruno Okafor"], typed)


@pytest.mark.parametrize("typed", ["Bruno", "Okafor", "Bruno Okafo", "Bruna Okafor", "Ada Lovelace", "Вера"])
def test_other_names_stay_free(taken, typed):
    assert not taken(["Bruno Okafor", "Ada Lindqvist"], typed)


@pytest.mark.parametrize("typed", ["Вера Иванова", "ВЕРА ИВАНОВА", "вера иванова", "BEPA ИBAHOBA", "Иванова, Вера"])
def test_a_cyrillic_authors_name_is_taken_in_any_case_and_with_latin_look_alikes(taken, typed):
    assert taken(["Вера Иванова"], typed)


def test_different_hindi_names_stay_different_in_every_reading(taken):
    assert taken(["अनन्या शर्मा"], "शर्मा, अनन्या")
    assert not taken(["अनन्या शर्मा"], "अनान्या शर्मा")


@pytest.mark.parametrize("text", ["buy SРАМ now", "buy ЅРАМ now", "buy ΡΑΜ now", "Buy Spam", "buy ЅΡАΜ!"])
def test_a_blocked_word_in_look_alike_capitals_is_found(text):
    assert antispam.blocked_word(text, ["spam", "pam"]) is not None


@pytest.mark.parametrize(("capital", "latin"), CAPITALS)
def test_a_blocked_word_with_any_look_alike_capital_is_found(capital, latin):
    word = f"qu{latin.lower()}ck"
    assert antispam.blocked_word(f"so QU{capital}CK now", [word]) == word


@pytest.mark.parametrize("text", ["ВИНО", "Вино", "вино", "BИHO", "Bино"])
def test_a_cyrillic_blocked_word_is_found_in_any_case_and_in_latin_look_alikes(text):
    assert antispam.blocked_word(f"пейте {text} сегодня", ["вино"]) == "вино"
