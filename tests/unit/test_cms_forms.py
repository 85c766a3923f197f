"""The reader's search form."""

from cms.forms import SEARCH_TOO_LONG, SearchForm


def test_search_words_up_to_the_limit_are_accepted():
    """Up to 100 characters; empty is fine (no search)."""
    assert SearchForm({"q": "x" * 100}).is_valid()
    assert SearchForm({}).is_valid()


def test_over_long_searches_are_refused_with_a_code():
    """The error has a code and the module's message."""
    form = SearchForm({"q": "x" * 101})
    assert not form.is_valid()
    [error] = form.errors.as_data()["q"]
    assert error.code == "max_length" and error.message == SEARCH_TOO_LONG
