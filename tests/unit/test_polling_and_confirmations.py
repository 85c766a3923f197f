"""Pure parts of polling for new comments and of confirmations beside a comment."""

from __future__ import annotations

import pytest
from django.contrib.messages.storage.base import Message
from django.core.exceptions import BadRequest
from hypothesis import given
from hypothesis import strategies as st

from comments.posting import confirmations
from comments.reading import placing, polling
from comments.reading.polling import Counts


@pytest.mark.parametrize("raw", [None, "", "-1", "1.5", "1e3", " 1", "$gt", "99999999999", str(10**9 + 1), "١٢"])
def test_seen_must_be_a_small_whole_number(raw):
    with pytest.raises(BadRequest):
        polling.parse_seen(raw)


@pytest.mark.parametrize("raw, seen", [("0", 0), ("17", 17), (str(10**9), 10**9)])
def test_seen_reads_whole_numbers(raw, seen):
    assert polling.parse_seen(raw) == seen


@given(st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 2**50))
def test_the_answer_never_counts_below_zero_and_its_tag_follows_its_inputs(comments, listed, seen, read_at):
    counts = Counts(comments=comments, listed=listed, read_at=read_at)
    body = polling.answer(counts, seen=seen)
    assert body["new"] == max(0, comments - seen) and body["comments"] == comments
    assert body["read_at"] == read_at
    tag = polling.etag(counts, seen=seen, language="en")
    assert tag == polling.etag(Counts(comments, listed, read_at + 5000), seen=seen, language="en")
    assert tag != polling.etag(Counts(comments + 1, listed), seen=seen, language="en")
    assert tag != polling.etag(counts, seen=seen + 1, language="en")
    assert tag != polling.etag(counts, seen=seen, language="vi")


def test_the_label_is_plural_aware():
    assert polling.answer(Counts(3, 3), seen=2)["label"] == "1 new comment — show"
    assert polling.answer(Counts(5, 5), seen=2)["label"] == "3 new comments — show"


def message(text: str, anchor: str | None = None) -> Message:
    return Message(25, text, extra_tags=confirmations.tag(anchor) if anchor else "")


def test_confirmations_sort_messages_by_the_comment_they_name():
    assert confirmations.anchor_of(message("x", "c-abc")) == "c-abc"
    assert confirmations.anchor_of(message("x")) is None
    found = confirmations.Confirmations(
        anchor="c-b", beside=[message("posted", "c-b")], others=[message("logged in")],
    )
    assert [m.message for m in found.at_top(placed=True)] == ["logged in"]
    assert [m.message for m in found.at_top(placed=False)] == ["logged in", "posted"]


@pytest.mark.parametrize("query, number", [
    ({}, 1), ({"page": ["3"]}, 3), ({"page": ["0"]}, None), ({"page": ["x"]}, None),
    ({"page": ["9999999"]}, None), ({"after": ["abc"]}, None), ({"before": ["abc"]}, None),
])
def test_the_readers_page_number_comes_from_the_address(query, number):
    assert placing._page_number(query) == number
