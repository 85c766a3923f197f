"""The one parser of ids from outside (infra/ids.py). Pure: no database."""

from __future__ import annotations

import pytest
from bson import ObjectId
from hypothesis import given
from hypothesis import strategies as st

from infra.ids import parse_id

AN_ID = ObjectId("0123456789abcdef01234567")


def test_an_id_and_its_hex_digits_in_either_case_parse_to_it():
    assert parse_id(AN_ID) is AN_ID
    assert parse_id(str(AN_ID)) == AN_ID
    assert parse_id(str(AN_ID).upper()) == AN_ID


@pytest.mark.parametrize("value", [
    None, "", 0, 12, 1.5, True, [], {}, ["0123456789abcdef01234567"], {"$ne": None},
    b"abcdefghijkl", bytearray(12), "abcdefghijkl", "0123456789abcdef0123456", "0123456789abcdef012345678",
    " 0123456789abcdef01234567", "0123456789abcdef01234567\n", "0123456789abcdef0123456g",
    "０１２３４５６７８９ａｂｃｄｅｆ０１２３４５６７", "٠١٢٣٤٥٦٧٨٩abcdef01234567", ".*", "{'$gt': ''}",
])
def test_anything_else_is_no_id(value):
    """Not None's fresh id, not 12 bytes, not operators, not other digits or padding."""
    assert parse_id(value) is None


@given(st.text(max_size=30))
def test_a_text_parses_only_to_the_id_it_spells(text):
    parsed = parse_id(text)
    assert parsed is None or str(parsed) == text.lower()


@given(st.binary(min_size=12, max_size=12))
def test_every_id_round_trips_through_its_text(raw):
    oid = ObjectId(raw)
    assert parse_id(str(oid)) == oid
