"""Page numbers from the query string, and Django's Paginator over a MongoDB query.

Django's Paginator only needs `count()` and slicing, so a `LazyPage` hands it the
total (one count command) and fetches just the requested slice (one find command).
"""

from collections.abc import Callable
from typing import Any

from django.core.exceptions import BadRequest
from django.core.paginator import EmptyPage, Page, Paginator
from django.http import Http404
from django.utils.translation import gettext, gettext_noop

BAD_PAGE = gettext_noop("The page number must be a whole number from 1 up.")
NO_SUCH_PAGE = gettext_noop("There is no page {number}: the last page is {last}.")


class LazyPage:
    """`total` items of which only the sliced part is fetched: what Paginator asks of
    its object list (`count()`, `len()`, slices), not a Sequence (whose `count` takes
    a value)."""

    def __init__(self, total: int, fetch: Callable[[int, int], list[Any]]):
        self.total, self.fetch = total, fetch

    def count(self) -> int:
        return self.total

    def __len__(self) -> int:
        return self.total

    def __getitem__(self, index: Any) -> list[Any]:
        if not isinstance(index, slice):
            raise TypeError("LazyPage only supports slices")
        start, stop, _ = index.indices(self.total)
        return self.fetch(start, max(stop - start, 0)) if stop > start else []


def parse_page_number(raw: str | None) -> int:
    """The page number in `raw` (absent means 1); BadRequest for anything but 1, 2, ..."""
    if raw is None:
        return 1
    # Nine digits are plenty; longer strings would only make int() work (or fail).
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 9) or int(raw) < 1:
        raise BadRequest(gettext(BAD_PAGE))
    return int(raw)


def get_page(
    *, total: int, fetch: Callable[[int, int], list[Any]], raw_number: str | None, per_page: int
) -> Page:
    """Django's Page for `raw_number`; 400 for a malformed number, 404 past the end."""
    number = parse_page_number(raw_number)
    paginator = Paginator(LazyPage(total, fetch), per_page, allow_empty_first_page=True)
    try:
        return paginator.page(number)
    except EmptyPage:
        raise Http404(gettext(NO_SUCH_PAGE).format(number=number, last=paginator.num_pages)) from None
