"""infra/pagination.py: page numbers from the query string, and Django's Paginator
over a fetch callback that is asked for exactly one slice."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import BadRequest
from django.http import Http404
from hypothesis import given, settings
from hypothesis import strategies as st

from infra.pagination import BAD_PAGE, NO_SUCH_PAGE, LazyPage, get_page, parse_page_number

SLICES_ONLY = "LazyPage only supports slices"


class Fetcher:
    """A fetch callback over `range(total)` that records each (skip, limit) it gets."""

    def __init__(self, total: int):
        self.items = [f"item {i}" for i in range(total)]
        self.calls: list[tuple[int, int]] = []

    def __call__(self, skip: int, limit: int) -> list:
        self.calls.append((skip, limit))
        return self.items[skip : skip + limit]


# --- parse_page_number ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "number"), [(None, 1), ("1", 1), ("2", 2), ("25", 25), ("1000000", 1_000_000)]
)
def test_parse_page_number_reads_whole_numbers_from_one_up(raw, number):
    """An absent page is 1; ASCII digits give their number."""
    assert parse_page_number(raw) == number


@pytest.mark.parametrize(
    "raw",
    [
        "", "0", "00", "-1", "+1", "abc", "1.5", "1e3", "0x10", " 1", "1 ", "1\n", "1_000",
        "١", "٢٥", "²", "１", "Ⅻ", '{"$ne": null}', "null", "∞",
    ],
)
def test_parse_page_number_refuses_anything_but_ascii_digits_from_one(raw):
    """Zero, signs, decimals, spaces, non-ASCII digits and JSON are refused with BadRequest."""
    with pytest.raises(BadRequest, match=re.escape(BAD_PAGE)):
        parse_page_number(raw)


def test_parse_page_number_refuses_an_absurdly_long_number_with_bad_request():
    """A page number of thousands of digits is a bad request, not a server error."""
    with pytest.raises(BadRequest, match=re.escape(BAD_PAGE)):
        parse_page_number("9" * 5000)


@settings(max_examples=100)
@given(raw=st.text(max_size=8))
def test_parse_page_number_accepts_exactly_the_positive_ascii_numerals(raw):
    """Any text is either a positive ASCII numeral (read as such) or refused with BadRequest."""
    if raw and all(ch in "0123456789" for ch in raw) and int(raw) >= 1:
        assert parse_page_number(raw) == int(raw)
    else:
        with pytest.raises(BadRequest, match=re.escape(BAD_PAGE)):
            parse_page_number(raw)


# --- get_page -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected_call", "first", "count"),
    [(None, (0, 10), 0, 10), ("1", (0, 10), 0, 10), ("2", (10, 10), 10, 10), ("3", (20, 3), 20, 3)],
)
def test_get_page_fetches_just_the_slice_of_the_requested_page(raw, expected_call, first, count):
    """Each page asks fetch once for its own (skip, limit) and shows what fetch returned."""
    fetch = Fetcher(23)
    page = get_page(total=23, fetch=fetch, raw_number=raw, per_page=10)
    assert fetch.calls == [expected_call]
    assert list(page.object_list) == [f"item {i}" for i in range(first, first + count)]
    assert page.number == (int(raw) if raw else 1)
    assert page.paginator.num_pages == 3
    assert page.paginator.count == 23


def test_get_page_past_the_end_raises_404_naming_the_last_page():
    """A page beyond the last raises Http404 with NO_SUCH_PAGE, without fetching anything."""
    fetch = Fetcher(23)
    with pytest.raises(Http404, match=re.escape(NO_SUCH_PAGE.format(number=4, last=3))):
        get_page(total=23, fetch=fetch, raw_number="4", per_page=10)
    assert fetch.calls == []


def test_get_page_after_an_exactly_full_last_page_raises_404():
    """With 20 items of 10 a page, page 2 is the last and page 3 is not found."""
    fetch = Fetcher(20)
    assert list(get_page(total=20, fetch=fetch, raw_number="2", per_page=10).object_list) == fetch.items[10:]
    assert fetch.calls == [(10, 10)]
    with pytest.raises(Http404, match=re.escape(NO_SUCH_PAGE.format(number=3, last=2))):
        get_page(total=20, fetch=fetch, raw_number="3", per_page=10)


def test_get_page_of_an_empty_list_is_an_empty_first_page():
    """With nothing to show, page 1 exists and is empty, and nothing is fetched."""
    fetch = Fetcher(0)
    page = get_page(total=0, fetch=fetch, raw_number=None, per_page=10)
    assert page.number == 1
    assert list(page.object_list) == []
    assert not page.has_next() and not page.has_previous()
    assert fetch.calls == []


def test_get_page_two_of_an_empty_list_raises_404():
    """Page 2 of nothing is not found, and names page 1 as the last."""
    with pytest.raises(Http404, match=re.escape(NO_SUCH_PAGE.format(number=2, last=1))):
        get_page(total=0, fetch=Fetcher(0), raw_number="2", per_page=10)


@pytest.mark.parametrize("raw", ["0", "-1", "x", "١"])
def test_get_page_refuses_a_malformed_number_before_fetching(raw):
    """A malformed page number raises BadRequest and fetches nothing."""
    fetch = Fetcher(23)
    with pytest.raises(BadRequest, match=re.escape(BAD_PAGE)):
        get_page(total=23, fetch=fetch, raw_number=raw, per_page=10)
    assert fetch.calls == []


@settings(max_examples=150)
@given(total=st.integers(0, 120), per_page=st.integers(1, 15), number=st.integers(1, 15))
def test_get_page_slices_any_list_like_a_plain_list(total, per_page, number):
    """For any total and page size, a page holds items[(n-1)*size : n*size] fetched in one call,
    or is not found past the last page (page 1 always exists)."""
    fetch = Fetcher(total)
    last = max(1, -(-total // per_page))
    if number > last:
        with pytest.raises(Http404, match=re.escape(NO_SUCH_PAGE.format(number=number, last=last))):
            get_page(total=total, fetch=fetch, raw_number=str(number), per_page=per_page)
        assert fetch.calls == []
        return
    page = get_page(total=total, fetch=fetch, raw_number=str(number), per_page=per_page)
    skip = (number - 1) * per_page
    expected = fetch.items[skip : skip + per_page]
    assert list(page.object_list) == expected
    assert fetch.calls == ([(skip, len(expected))] if expected else [])
    assert page.number == number
    assert page.has_next() == (number < last)
    assert page.has_previous() == (number > 1)


# --- LazyPage -------------------------------------------------------------------------


@pytest.mark.parametrize("index", [0, 1, -1, 5, "0", None])
def test_lazy_page_refuses_anything_but_a_slice(index):
    """Indexing a LazyPage with an integer (or anything but a slice) raises TypeError, fetching nothing."""
    fetch = Fetcher(5)
    with pytest.raises(TypeError, match=re.escape(SLICES_ONLY)):
        LazyPage(5, fetch)[index]
    assert fetch.calls == []


def test_lazy_page_reports_its_total_as_length_and_count():
    """len() and count() give the total without fetching."""
    fetch = Fetcher(7)
    lazy = LazyPage(7, fetch)
    assert len(lazy) == 7
    assert lazy.count() == 7
    assert fetch.calls == []


@pytest.mark.parametrize(
    ("index", "call"),
    [(slice(0, 3), (0, 3)), (slice(2, 100), (2, 5)), (slice(None, None), (0, 7)), (slice(-2, None), (5, 2))],
)
def test_lazy_page_fetches_a_slice_clipped_to_the_total(index, call):
    """A slice becomes one fetch of (start, length), clipped to the total."""
    fetch = Fetcher(7)
    assert LazyPage(7, fetch)[index] == fetch.items[index]
    assert fetch.calls == [call]


@pytest.mark.parametrize("index", [slice(7, 10), slice(3, 3), slice(5, 2), slice(100, 200)])
def test_lazy_page_returns_an_empty_list_for_an_empty_slice_without_fetching(index):
    """A slice with nothing in it is [] and asks fetch for nothing."""
    fetch = Fetcher(7)
    assert LazyPage(7, fetch)[index] == []
    assert fetch.calls == []
