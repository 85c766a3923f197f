"""The one table of a discussion's views (comments/reading/listers.py): each view is
listed by the lister of its kind of order, named there and nowhere else."""

import pytest
from bson import ObjectId
from django.core.exceptions import BadRequest

from comments.reading import listers, listings, ranked
from comments.reading.listings import BAD_VIEW
from comments.records import ORDERS, RANKED_ORDERS


def test_each_view_is_listed_by_the_lister_of_its_order():
    by_lister = {name: view.lister for name, view in listers.TABLE.items()}
    assert {name for name, lister in by_lister.items() if lister is listings.list_ordered} == set(ORDERS)
    assert {name for name, lister in by_lister.items() if lister is listers.list_ranked} == set(RANKED_ORDERS)
    assert list(listers.VIEWS) == list(listers.TABLE) and set(listers.TABLE) == {*ORDERS, *RANKED_ORDERS}


@pytest.mark.parametrize("lister", [listers.list_comments, listings.list_ordered, ranked.list_ranked,
                                    listers.list_ranked])
def test_a_view_its_lister_does_not_list_is_refused_before_any_query(lister):
    """The unit tier fails any test that reaches MongoDB: these refuse first."""
    with pytest.raises(BadRequest, match=BAD_VIEW):
        lister(discussion_id=ObjectId(), view="threaded" if lister in (ranked.list_ranked, listers.list_ranked) else "ranked")


def test_parse_view_takes_the_table_s_names_and_refuses_others(settings):
    settings.COMMENTS_DEFAULT_VIEW = "best"
    assert [listers.parse_view(name) for name in ["top", "", None]] == ["top", "best", "best"]
    with pytest.raises(BadRequest, match=BAD_VIEW):
        listers.parse_view("oldest")
