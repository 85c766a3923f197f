"""Which names a reader would take for the same (comments/posting/names.py's run_together)."""

from __future__ import annotations

import pytest

from comments.posting import names


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
def test_run_together_takes_what_a_reader_would_read_as_the_same_name(name, expected):
    assert names.run_together(name) == expected


def test_run_together_keeps_devanagari_vowel_signs_so_different_hindi_names_stay_different():
    """अनन्या and अनान्या share their consonants; their vowel signs tell them apart."""
    assert names.run_together("अनन्या शर्मा") != names.run_together("अनान्या शर्मा")
    assert names.run_together("अनन्या  शर्मा!") == names.run_together("अनन्या शर्मा")
