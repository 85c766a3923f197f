"""infra/matching.py: a MongoDB filter evaluated in Python, with the server's
semantics for the operators the comments app builds, and a clear refusal for
anything else. Pure: no database (tests/integration/infra/test_matching_server.py
compares the matcher with the development server on random filters and documents).
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from bson import ObjectId
from bson.int64 import Int64
from bson.regex import Regex
from hypothesis import given
from hypothesis import strategies as st

from comments import slugs
from infra import folding
from comments.records import exactly
from infra.matching import (
    NEEDS_ARRAY,
    NEEDS_DOCUMENT,
    NEEDS_LIST,
    NULL_AMONG_OTHERS,
    NULL_IN_OR,
    OPTIONS_NEED_REGEX,
    REGEX_NEEDS_STRING,
    UNKNOWN_OPERATOR,
    UNSUPPORTED_OPTIONS,
    UnsupportedFilter,
    compile_filter,
    matches,
    top_fields,
)
from infra.pcre import fold_text, simple_fold

# The documents of the edge cases below, by name (each test says which ones match).
DOCS = {
    "null": {"a": None},
    "missing": {},
    "scalars": {"a": [1, 2]},
    "five": {"a": 5},
    "sub_null": {"a": {"b": None}},
    "docs": {"a": [{"b": 1}, {"c": 2}]},
    "nested": {"a": [[1], 2]},
    "nan": {"a": math.nan},
    "true": {"a": True},
    "one_float": {"a": 1.0},
    "empty": {"a": []},
    "null_in_array": {"a": [None]},
    "bc": {"a": {"b": 1, "c": 2}},
    "cb": {"a": {"c": 2, "b": 1}},
    "doc_of_array": {"a": [{"b": [1, 2]}]},
    "string": {"a": "1"},
}


def matching(spec: dict) -> set[str]:
    """The names of the DOCS that `spec` matches."""
    selected = compile_filter(spec)
    return {name for name, document in DOCS.items() if selected(document)}


# --- Equality, null and missing, arrays --------------------------------------------------------


def test_equality_matches_the_value_or_an_array_holding_it_across_number_types():
    """{a: 1} matches 1, 1.0 and [1, 2]; not True, not "1", not [[1], 2]."""
    assert matching({"a": 1}) == {"scalars", "one_float"}
    assert matching({"a": Int64(1)}) == {"scalars", "one_float"}


def test_an_array_value_matches_an_equal_array_or_an_element_that_is_one():
    assert matching({"a": [1, 2]}) == {"scalars"}
    assert matching({"a": [1]}) == {"nested"}
    assert matching({"a": []}) == {"empty"}


def test_null_matches_null_missing_and_an_array_holding_null():
    assert matching({"a": None}) == {"null", "missing", "null_in_array"}
    assert matching({"a": {"$eq": None}}) == {"null", "missing", "null_in_array"}
    assert matching({"a": {"$in": [None]}}) == {"null", "missing", "null_in_array"}


def test_not_equal_and_not_in_are_the_complements():
    everything = set(DOCS)
    assert matching({"a": {"$ne": None}}) == everything - {"null", "missing", "null_in_array"}
    assert matching({"a": {"$ne": 1}}) == everything - {"scalars", "one_float"}
    assert matching({"a": {"$nin": [1, None]}}) == everything - {"scalars", "one_float", "null", "missing",
                                                                 "null_in_array"}


def test_a_boolean_is_not_a_number():
    assert matching({"a": True}) == {"true"}
    assert not matches({"flag": {"$gt": 0}}, {"flag": True})
    assert not matches({"picked": 1}, {"picked": True})


def test_a_document_equals_only_the_same_fields_in_the_same_order():
    assert matching({"a": {"b": 1, "c": 2}}) == {"bc"}
    assert matching({"a": {"c": 2, "b": 1}}) == {"cb"}


def test_nan_equals_only_nan():
    assert matching({"a": math.nan}) == {"nan"}
    assert matching({"a": {"$in": [math.nan]}}) == {"nan"}


def test_an_object_id_is_not_its_string():
    oid = ObjectId()
    assert matches({"_id": oid}, {"_id": oid})
    assert not matches({"_id": str(oid)}, {"_id": oid})
    assert matches({"_id": {"$in": [ObjectId(), oid]}}, {"_id": oid})


# --- Dotted paths --------------------------------------------------------------------------------


def test_a_dotted_path_reaches_into_documents_and_the_documents_of_arrays():
    assert matching({"a.b": 1}) == {"docs", "bc", "cb", "doc_of_array"}
    assert matching({"a.b": 2}) == {"doc_of_array"}


def test_a_dotted_path_is_null_where_a_document_lacks_it_or_a_scalar_stands_in_the_way():
    """An array with no documents reaches nothing, so it is not null there."""
    assert matching({"a.b": None}) == {"null", "missing", "five", "sub_null", "docs", "nan", "true",
                                       "one_float", "string"}


def test_a_numeric_part_picks_an_array_element_which_is_compared_whole():
    assert matching({"a.0": 1}) == {"scalars"}
    assert matching({"a.0": [1]}) == {"nested"}
    assert matches({"a.1.c": 2}, DOCS["docs"])
    assert not matches({"a.5": 1}, DOCS["scalars"])


def test_in_of_null_among_other_values_on_a_deep_path_is_refused_where_the_servers_disagree():
    for spec in ({"a.0": {"$in": [None, 1]}}, {"a.0.b": {"$nin": [1, None]}}, {"a.1": {"$not": {"$in": [None, None]}}},
                 {"a.b.c": {"$in": [1, None]}}):
        with pytest.raises(UnsupportedFilter) as refused:
            compile_filter(spec)
        path = next(iter(spec))
        assert str(refused.value) == NULL_AMONG_OTHERS.format(operator="$nin" if "$nin" in str(spec) else "$in",
                                                               path=path)
    # Alone, or on a path of two parts without a numeric one, null in $in is evaluated.
    assert matches({"a.0": {"$in": [None]}}, {"a": []})
    assert matches({"a.b.c": {"$in": [None]}}, {"a": [{"b": None}]})
    assert matches({"a.b": {"$in": [None, 1]}}, {"a": [{"c": 1}]})


def test_equality_with_null_on_a_deep_path_within_or_is_refused_where_the_servers_disagree():
    refused = [
        ({"$or": [{"a.0": None}]}, "equality", "a.0"),
        ({"$or": [{"a.0.b": {"$eq": None}}, {"c": 1}]}, "$eq", "a.0.b"),
        ({"$and": [{"$or": [{"a.1": {"$in": [None]}}]}]}, "$in", "a.1"),
        ({"$or": [{"$nor": [{"a.0": {"$not": {"$ne": None}}}]}]}, "$ne", "a.0"),
        ({"$or": [{"a.0": {"$not": {"$nin": [None]}}}]}, "$nin", "a.0"),
        ({"$or": [{"a.b.c": None}]}, "equality", "a.b.c"),
    ]
    for spec, operator, path in refused:
        with pytest.raises(UnsupportedFilter) as refusal:
            compile_filter(spec)
        assert str(refusal.value) == NULL_IN_OR.format(operator=operator, path=path), spec
    # Outside $or, as an inequality, or on a path of two parts without a numeric one, it is
    # evaluated.
    assert matches({"a.0": None}, {"a": []})
    assert matches({"$nor": [{"a.0": 1}]}, {"a": []})
    assert not matches({"$or": [{"a.0": {"$ne": None}}, {"a.0": {"$nin": [None]}}]}, {"a": []})
    assert not matches({"$or": [{"a.0": {"$not": {"$eq": None}}}]}, {"a": []})
    assert matches({"$or": [{"a.b": None}]}, {"a": {}})
    assert matches({"$or": [{"a": {"$elemMatch": {"0": None}}}]}, {"a": [[]]})


def test_exists_asks_whether_the_path_reaches_any_value_null_included():
    assert matching({"a": {"$exists": True}}) == set(DOCS) - {"missing"}
    assert matching({"a.b": {"$exists": False}}) == set(DOCS) - {"sub_null", "docs", "bc", "cb", "doc_of_array"}
    assert matching({"a": {"$exists": 0}}) == {"missing"}


def test_comment_paths_as_the_stores_use_them():
    comment = {"author": {"id": 7, "name": "Rosa"}, "votes": {"up": 2, "down": 0}, "ip": None}
    assert matches({"author.id": 7, "votes.up": 2, "votes.down": 0}, comment)
    assert matches({"author.email": None, "ip": None}, comment)
    assert not matches({"author.id": None}, comment)


# --- Ordering: type brackets -------------------------------------------------------------------


def test_orderings_compare_only_values_of_the_operands_type():
    assert matching({"a": {"$gt": 0}}) == {"scalars", "five", "nested", "one_float"}
    assert matching({"a": {"$lt": 3}}) == {"scalars", "nested", "one_float"}
    assert matching({"a": {"$gte": "0"}}) == {"string"}
    assert matching({"a": {"$lt": True}}) == set()
    assert matching({"a": {"$gte": False}}) == {"true"}


def test_nan_is_outside_every_range_but_its_own():
    assert matching({"a": {"$lt": 3}}) & {"nan"} == set()
    assert matching({"a": {"$gt": math.nan}}) == set()
    assert matching({"a": {"$lt": math.nan}}) == set()
    assert matching({"a": {"$gte": math.nan}}) == {"nan"}
    assert matching({"a": {"$lte": math.nan}}) == {"nan"}


def test_null_bounds_match_null_and_missing_inclusively_only():
    assert matching({"a": {"$gte": None}}) == {"null", "missing", "null_in_array"}
    assert matching({"a": {"$lte": None}}) == {"null", "missing", "null_in_array"}
    assert matching({"a": {"$gt": None}}) == set()
    assert matching({"a": {"$lt": None}}) == set()


def test_missing_is_outside_every_range():
    assert not matches({"score": {"$lt": 0}}, {})
    assert not matches({"flag_count": {"$gt": 0}}, {"flag_count": None})


def test_dates_compare_to_the_millisecond_in_utc():
    """BSON keeps milliseconds: 1.5 ms and 1.9 ms are the same instant; an aware time
    equals the naive UTC one (pymongo's reading)."""
    stored = {"posted": datetime(2026, 1, 1, 0, 0, 0, 1500, tzinfo=UTC)}
    assert matches({"posted": {"$gte": datetime(2026, 1, 1, 0, 0, 0, 1900, tzinfo=UTC)}}, stored)
    assert not matches({"posted": {"$gt": datetime(2026, 1, 1, 0, 0, 0, 1000, tzinfo=UTC)}}, stored)
    assert matches({"posted": datetime(2026, 1, 1, 0, 0, 0, 1000)}, stored)
    seven = timezone(timedelta(hours=7))
    assert matches({"posted": {"$lt": datetime(2026, 1, 1, 7, 0, 1, tzinfo=seven)}}, stored)
    assert not matches({"posted": {"$gte": "2026"}}, stored)


def test_strings_order_by_code_point_as_utf_8_bytes_do():
    assert matches({"s": {"$gt": "z"}}, {"s": "é"})
    assert matches({"s": {"$lt": "\U0001f600"}}, {"s": "\uffff"})
    assert matches({"s": {"$gt": "ab"}}, {"s": "ab/"})


def test_object_ids_order_by_their_bytes():
    low, high = ObjectId("000000000000000000000001"), ObjectId("ff0000000000000000000000")
    assert matches({"_id": {"$gt": low}}, {"_id": high})
    assert not matches({"_id": {"$lt": low}}, {"_id": high})


# --- Logic ---------------------------------------------------------------------------------------


def test_and_or_nor_and_not():
    assert matching({"$or": [{"a": 5}, {"a": True}]}) == {"five", "true"}
    assert matching({"$and": [{"a": {"$gt": 0}}, {"a": {"$lt": 2}}]}) == {"scalars", "one_float"}
    assert matching({"$nor": [{"a": {"$exists": True}}]}) == {"missing"}
    assert matching({"a": {"$not": {"$gt": 1}}}) == set(DOCS) - {"scalars", "five", "nested"}


def test_conditions_on_one_field_all_hold():
    assert matching({"a": {"$gte": 1, "$lt": 5}}) == {"scalars", "nested", "one_float"}


def test_an_empty_filter_matches_everything():
    assert matching({}) == set(DOCS)


def test_elem_match_tests_each_element_as_a_value_or_a_document():
    assert matching({"a": {"$elemMatch": {"b": 1}}}) == {"docs", "doc_of_array"}
    assert matching({"a": {"$elemMatch": {"$gt": 1}}}) == {"scalars", "nested"}
    assert not matches({"a": {"$elemMatch": {"$gt": 0}}}, {"a": 5})
    # An array element is a document of its positions, as on MongoDB: no field b in [].
    assert matches({"c": {"$elemMatch": {"b": None}}}, {"c": [[]]})
    assert matches({"c": {"$elemMatch": {"0": 7}}}, {"c": [[7]]})
    assert not matches({"c": {"$elemMatch": {"b": 1}}}, {"c": [[1]]})
    # With operators, an element that is an array is one value, not its elements.
    assert not matches({"c": {"$elemMatch": {"$lte": None}}}, {"c": [[None]]})
    assert not matches({"c": {"$elemMatch": {"$gt": 1}}}, {"c": [[2]]})
    assert not matches({"c": {"$elemMatch": {"$eq": 2}}}, {"c": [[2]]})
    assert matches({"c": {"$elemMatch": {"$eq": [2]}}}, {"c": [[2]]})
    assert matches({"c": {"$elemMatch": {"$elemMatch": {"$gt": 1}}}}, {"c": [[2]]})


# --- $regex --------------------------------------------------------------------------------------


@pytest.mark.parametrize("full_slug", ["2026.01:ab", "a.b*c", "x(y)/z", "[q]+?", "^$|\\"])
def test_slug_patterns_select_the_subtree_and_the_replies_literally(full_slug):
    """The anchored, escaped prefixes of comments/slugs.py: metacharacters are plain."""
    subtree = {"full_slug": {"$regex": slugs.subtree_regex(full_slug)}}
    replies = {"full_slug": {"$regex": slugs.replies_regex(full_slug)}}
    for value, in_subtree, is_reply in [(full_slug, True, False), (full_slug + "/r", True, True),
                                         (full_slug + "x", False, False), ("p" + full_slug, False, False)]:
        assert matches(subtree, {"full_slug": value}) is in_subtree, value
        assert matches(replies, {"full_slug": value}) is is_reply, value


def test_an_exact_case_insensitive_value_is_literal():
    assert matches({"e": exactly("Rosa+1@Example.com")}, {"e": "rosa+1@example.COM"})
    assert not matches({"e": exactly("r.sa@example.com")}, {"e": "rosa@example.com"})
    assert not matches({"e": exactly("rosa")}, {"e": "rosa2"})


def test_dollar_matches_before_a_final_newline_as_pcre_does():
    assert matches({"e": {"$regex": "^abc$"}}, {"e": "abc\n"})
    assert not matches({"e": {"$regex": "^abc$"}}, {"e": "abc\nd"})


def test_backslash_s_is_ascii_whitespace_only():
    """The server's PCRE2 runs without Unicode properties: \\s misses NBSP and EM SPACE."""
    for space in " \t\n\r\x0b\x0c":
        assert matches({"n": {"$regex": r"x\sy"}}, {"n": f"x{space}y"}), repr(space)
        assert matches({"n": {"$regex": r"x[\s]y"}}, {"n": f"x{space}y"}), repr(space)
    for space in "\u00a0\u2003\u3000":
        assert not matches({"n": {"$regex": r"x\sy"}}, {"n": f"x{space}y"}), repr(space)
        assert matches({"n": {"$regex": r"x\Sy"}}, {"n": f"x{space}y"}), repr(space)


@pytest.mark.parametrize("pattern,value,found", [
    ("^k$", "\u212a", True),       # the Kelvin sign folds to k
    ("^s$", "ſ", True),            # long s folds to s
    ("^ǆ$", "ǅ", True),            # title case folds with its pair
    ("^ẞ$", "ß", True),            # capital sharp s folds (simply) to ß
    ("^σ$", "ς", True),            # final sigma folds to sigma
    ("^i$", "İ", False),           # dotted capital I has no simple folding
    ("^i$", "ı", False),           # nor does dotless i: Turkish casing is not PCRE2's default
    ("^ss$", "ß", False),          # folding is one character to one
    ("^đường$", "ĐƯỜNG", True),
])
def test_case_insensitive_patterns_fold_as_pcre2_does(pattern, value, found):
    assert matches({"n": {"$regex": pattern, "$options": "i"}}, {"n": value}) is found


def test_folded_ranges_cover_every_case_of_their_characters():
    assert matches({"n": {"$regex": "^[a-c]+$", "$options": "i"}}, {"n": "AbC"})
    assert not matches({"n": {"$regex": "^[a-c]+$", "$options": "i"}}, {"n": "AbD"})
    assert matches({"n": {"$regex": "^[^a]$", "$options": "i"}}, {"n": "b"})
    assert not matches({"n": {"$regex": "^[^a]$", "$options": "i"}}, {"n": "A"})


@pytest.mark.parametrize("typed,stored,found", [
    ("nguyen", "Nguyễn Văn An", True),
    ("NGUYỄN văn", "nguyen van an", True),
    ("duong", "Đường", True),
    ("a.c", "abc", False),
    ("a b", "a\tb", True),
    ("क़लम", "कलम", True),
    ("ros", "Ada", False),
])
def test_the_moderation_name_filter_finds_names_however_typed(typed, stored, found):
    name_filter = {"n": {"$regex": folding.pattern(typed), "$options": "i"}}
    assert matches(name_filter, {"n": stored}) is found


def test_a_pattern_matches_strings_only_and_any_string_of_an_array():
    assert matches({"n": {"$regex": "^a"}}, {"n": ["x", "ab"]})
    assert not matches({"n": {"$regex": "^1"}}, {"n": 1})
    assert not matches({"n": {"$regex": "^"}}, {})


@given(st.text(max_size=12))
def test_fold_text_keeps_the_length_so_matches_stay_in_place(text):
    assert len(fold_text(text)) == len(text)
    assert all(len(simple_fold(ch)) == 1 for ch in text)


# --- Refusals: what the matcher does not evaluate -------------------------------------------------


@pytest.mark.parametrize("spec,message", [
    ({"$where": "1"}, UNKNOWN_OPERATOR.format(operator="$where")),
    ({"$expr": {"$eq": [1, 1]}}, UNKNOWN_OPERATOR.format(operator="$expr")),
    ({"a": {"$size": 1}}, UNKNOWN_OPERATOR.format(operator="$size")),
    ({"a": {"$all": [1]}}, UNKNOWN_OPERATOR.format(operator="$all")),
    ({"a": {"$gt": 1, "$type": "int"}}, UNKNOWN_OPERATOR.format(operator="$type")),
    ({"a": {"$text": "x"}}, UNKNOWN_OPERATOR.format(operator="$text")),
    ({"$or": []}, NEEDS_LIST.format(operator="$or")),
    ({"$and": {"a": 1}}, NEEDS_LIST.format(operator="$and")),
    ({"a": {"$in": 1}}, NEEDS_ARRAY.format(operator="$in")),
    ({"a": {"$not": {}}}, NEEDS_DOCUMENT.format(operator="$not")),
    ({"a": {"$not": 1}}, NEEDS_DOCUMENT.format(operator="$not")),
    ({"a": {"$elemMatch": 1}}, NEEDS_DOCUMENT.format(operator="$elemMatch")),
    ({"a": {"$regex": 5}}, REGEX_NEEDS_STRING),
    ({"a": {"$options": "i"}}, OPTIONS_NEED_REGEX),
    ({"a": {"$regex": "a", "$options": "m"}}, UNSUPPORTED_OPTIONS.format(options="m")),
])
def test_what_the_matcher_does_not_know_is_refused_by_name(spec, message):
    with pytest.raises(UnsupportedFilter, match=re.escape(message)):
        compile_filter(spec)


@pytest.mark.parametrize("value", [b"x", Regex("^a"), re.compile("^a"), object(), {1, 2}])
def test_values_it_cannot_compare_are_refused(value):
    with pytest.raises(UnsupportedFilter, match="cannot compare"):
        compile_filter({"a": value})
    with pytest.raises(UnsupportedFilter, match="cannot compare"):
        compile_filter({"a": {"$in": [1, value]}})


@pytest.mark.parametrize("operand", [[1], {"b": 1}])
def test_ordering_by_an_array_or_a_document_is_refused(operand):
    with pytest.raises(UnsupportedFilter, match=r"cannot compare .*\$gt"):
        compile_filter({"a": {"$gt": operand}})


@pytest.mark.parametrize("pattern", [r"\w", r"\d", r"\b", r"(?=a)", r"(?i)a", r"(a)\1", "a{2}", r"\Qa\E",
                                     r"[[:alpha:]]", r"\p{L}", "*a", "a**", "a*?", "a++", "(a", "[a", "a\\",
                                     r"[z-a]"])
def test_patterns_outside_the_subset_the_code_builds_are_refused(pattern):
    with pytest.raises(UnsupportedFilter, match="does not evaluate"):
        compile_filter({"a": {"$regex": pattern}})


def test_a_refused_operator_deep_inside_is_found_when_compiling_not_when_matching():
    with pytest.raises(UnsupportedFilter, match=r"\$size"):
        compile_filter({"$or": [{"a": 1}, {"$and": [{"b": {"$not": {"$size": 2}}}]}]})


def test_top_fields_names_every_field_a_filter_reads_at_any_depth_of_logic():
    spec = {"status": {"$nin": ["spam"]}, "$or": [{"author.id": 7}, {"$nor": [{"ip": {"$not": {"$eq": "x"}}}]}],
            "$and": [{"votes.up": {"$gt": 0}}], "replies": {"$elemMatch": {"slug": "a"}}}
    assert top_fields(spec) == {"status", "author", "ip", "votes", "replies"}
    assert top_fields({}) == frozenset()
