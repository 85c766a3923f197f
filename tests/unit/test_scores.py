"""comments/scores.py: the best view's Wilson key and how a changed vote moves the
tallies. Pure: no database."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from comments import checks, scores

counts = st.integers(min_value=0, max_value=100_000)
values = st.sampled_from([1, -1, 0])


def test_no_votes_and_only_down_votes_rank_zero():
    assert scores.wilson_lower_bound(0, 0) == 0.0
    assert scores.wilson_lower_bound(0, 7) == 0.0


def test_many_up_votes_with_a_few_down_rank_above_a_single_up_vote():
    """The reason for the bound: one up vote is not better than ninety up and ten down."""
    assert scores.wilson_lower_bound(90, 10) > scores.wilson_lower_bound(1, 0)
    assert scores.wilson_lower_bound(1, 0) == pytest.approx(0.2065, abs=1e-4)


@given(counts, counts)
def test_the_bound_lies_between_zero_and_the_observed_share(up, down):
    bound = scores.wilson_lower_bound(up, down)
    assert 0.0 <= bound <= (up / (up + down) if up + down else 0.0) + 1e-12


@given(counts, counts)
def test_one_more_up_vote_never_lowers_the_bound_and_one_more_down_never_raises_it(up, down):
    bound = scores.wilson_lower_bound(up, down)
    assert scores.wilson_lower_bound(up + 1, down) >= bound - 1e-12
    assert scores.wilson_lower_bound(up, down + 1) <= bound + 1e-12


@given(st.lists(values, min_size=1, max_size=30))
def test_the_moves_of_a_readers_changing_vote_sum_to_their_last_vote(history):
    """Whatever order a reader's changes are applied in, one at a time from the stored
    value, the tallies end at their last vote: the telescoping sum exactly-once rests on."""
    up = down = 0
    before = 0
    for value in history:
        d_up, d_down = scores.change_of(before, value)
        up, down, before = up + d_up, down + d_down, value
    assert (up, down) == scores.tallies_of(history[-1])


def test_an_unknown_default_view_is_an_error_naming_the_views(settings):
    settings.COMMENTS_DEFAULT_VIEW = "sideways"
    [error] = checks.known_default_view(None)
    assert error.id == "comments.E007" and "best, top" in error.msg
    settings.COMMENTS_DEFAULT_VIEW = "best"
    assert checks.known_default_view(None) == []
