"""Which names a reader would take for the same (comments/names.py's fold)."""

from __future__ import annotations

import pytest

from comments import names


@pytest.mark.parametrize("name,expected", [
    ("Ada Lindqvist", "adalindqvist"),
    ("  ada   LINDQVIST. ", "adalindqvist"),
    ("ａｄａ lindqvist", "adalindqvist"),
    ("Ádá Lindqvíst", "adalindqvist"),
    ("ada_lindqvist", "adalindqvist"),
    ("!!!", ""),
    ("Nguyễn Thu Hà", "nguyenthuha"),
    ("Đào", "dao"),
    ("ĐÀO", "dao"),
])
def test_fold_takes_what_a_reader_would_read_as_the_same_name(name, expected):
    assert names.fold(name) == expected


def test_fold_keeps_devanagari_vowel_signs_so_different_hindi_names_stay_different():
    """अनन्या and अनान्या share their consonants; their vowel signs tell them apart."""
    assert names.fold("अनन्या शर्मा") != names.fold("अनान्या शर्मा")
    assert names.fold("अनन्या  शर्मा!") == names.fold("अनन्या शर्मा")
