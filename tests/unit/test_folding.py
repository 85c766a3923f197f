"""infra.folding: the forms of a text that match however people type it (`fold_for_search`,
called `fold` here, and `unaccent`). Pure."""

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infra.folding import fold_for_search as fold
from infra.folding import unaccent

# Every Vietnamese vowel letter with each of the five tones (and none).
VIETNAMESE_VOWELS = {
    "a": "aàáảãạ",
    "ă": "ăằắẳẵặ",
    "â": "âầấẩẫậ",
    "e": "eèéẻẽẹ",
    "ê": "êềếểễệ",
    "i": "iìíỉĩị",
    "o": "oòóỏõọ",
    "ô": "ôồốổỗộ",
    "ơ": "ơờớởỡợ",
    "u": "uùúủũụ",
    "ư": "ưừứửữự",
    "y": "yỳýỷỹỵ",
}
BASE = {"ă": "a", "â": "a", "ê": "e", "ô": "o", "ơ": "o", "ư": "u"}


def test_d_with_stroke_is_d_in_both_cases():
    """Unicode does not decompose "đ": it is folded by name."""
    assert (unaccent("Đđ"), fold("Đường")) == ("Dd", "duong")


@pytest.mark.parametrize("vowel", VIETNAMESE_VOWELS)
def test_every_vietnamese_vowel_with_every_tone_folds_to_its_ascii_letter(vowel):
    """Tones and the circumflex, breve and horn go; upper case too."""
    letter = BASE.get(vowel, vowel)
    for toned in VIETNAMESE_VOWELS[vowel]:
        assert fold(toned) == letter, toned
        assert fold(toned.upper()) == letter, toned.upper()
        assert unaccent(toned.upper()) == letter.upper(), toned


@pytest.mark.parametrize(
    "text", ["Đường về Hà Nội", "ĐƯỜNG VỀ HÀ NỘI", "duong ve ha noi", "Duong  ve\tHa Noi"]
)
def test_vietnamese_typed_any_way_folds_the_same(text):
    """With or without diacritics, in any case and spacing."""
    assert fold(text) == "duong ve ha noi"


def test_precomposed_and_decomposed_input_fold_the_same():
    """NFC, NFD and a different order of stacked marks give one string."""
    precomposed = "Nguyễn Thị Ánh"
    decomposed = unicodedata.normalize("NFD", precomposed)
    # ễ as e + tilde + circumflex: the marks in the other order (non-canonical).
    reordered = precomposed.replace("ễ", "e\u0303\u0302")
    assert precomposed != decomposed
    assert fold(precomposed) == fold(decomposed) == fold(reordered) == "nguyen thi anh"


def test_stacked_marks_on_latin_letters_all_go():
    """Several marks on one letter, even combinations no letter is precomposed with."""
    assert fold("q\u0323\u0300x\u0301\u0308\u0327") == "qx"
    assert fold("ệ") == fold("ḗ") == "e"


def test_german_sharp_s_and_its_capital_fold_to_ss():
    assert fold("Straße") == fold("STRASSE") == fold("Straẞe") == "strasse"
    assert unaccent("Straße") == "Strasse"


def test_turkish_dotless_and_dotted_i_fold_to_i():
    assert fold("ı") == fold("İ") == fold("I") == fold("i") == "i"
    assert fold("İSTANBUL") == fold("ıstanbul") == "istanbul"


def test_other_latin_letters_without_decompositions_fold_to_ascii():
    assert unaccent("Øresund Łódź Þór æsir Œuvre ħ ŧ ð") == "Oresund Lodz THor aesir OEuvre h t d"


def test_compatibility_forms_fold_to_their_letters():
    """Full-width letters and ligatures."""
    assert fold("Ｈｅｌｌｏ ﬁne") == "hello fine"


@pytest.mark.parametrize("text", ["नमस्ते दुनिया", "हिन्दी में लेख", "क्षत्रिय", "श्रीमान्", "मैं ठीक हूँ", "प्रश्नोत्तर"])
def test_devanagari_is_unchanged_apart_from_nfc(text):
    """Vowel signs, virama, anusvara and chandrabindu are part of the letters."""
    assert unaccent(text) == text
    assert fold(text) == text
    assert fold(unicodedata.normalize("NFD", text)) == text


def test_devanagari_nukta_and_precomposed_nukta_letters_match_the_plain_letter():
    """क़ (precomposed U+0958, or क + nukta) is typed as क too; ऩ likewise."""
    assert fold("\u0958लम") == fold("क\u093cलम") == fold("कलम") == "कलम"
    assert fold("\u0929") == "न"
    # Slugs and display keep the nukta: only search ignores it.
    assert unaccent("क\u093cलम") == "क\u093cलम"


def test_zero_width_joiners_are_ignored_in_search():
    """क्‍ष (with ZWJ) and क्‌ष (with ZWNJ) are drawn differently, read the same."""
    assert fold("क्\u200dष") == fold("क्\u200cष") == fold("क्ष")


def test_marks_of_other_scripts_stay():
    """Cyrillic й is a letter of its own, not и with an accent."""
    assert fold("Йогурт") == "йогурт" != fold("Иогурт")


@given(st.text())
def test_folding_is_idempotent(text):
    """A folded text folds to itself: stored copies and queries agree."""
    assert fold(fold(text)) == fold(text)
    assert unaccent(unaccent(text)) == unaccent(text)


@given(st.text())
def test_folded_text_is_nfc_without_runs_of_whitespace(text):
    folded = fold(text)
    assert unicodedata.is_normalized("NFC", folded)
    assert folded == " ".join(folded.split())
