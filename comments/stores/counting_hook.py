"""How the comment stores reach the counters (comments/stores/counters.py) without importing
them: the counters read the stores, so the app's `ready()` hands them over with
`use_counting`, and a store's status, placeholder and text changes call `counting()`.
`Counting` is what the counters must offer."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from bson import ObjectId

from comments.records import Comment

if TYPE_CHECKING:  # comments/stores/base.py imports this module: its type only, for mypy.
    from comments.stores.base import CommentStore as Store


class Counting(Protocol):
    """What moves a discussion's counters with each change of a comment's status,
    placeholder or text (comments/stores/counters.py, handed to the stores by the app's
    `ready()` through `use_counting`: the counters read the stores, so the stores do
    not import them)."""

    def change(self, comment: Comment, *, status: str | None = None, placeholder: bool | None = None,
               fields: dict[str, Any] | None = None, store: Store | None = None,
               only_from: str | None = None) -> Comment | None: ...

    def set_status(self, comments: Iterable[Comment], *, status: str, blank: bool = False,
                   placeholder: bool | None = None, store: Store | None = None) -> int: ...

    def set_placeholder(self, comments: Iterable[Comment], *, placeholder: bool,
                        store: Store | None = None) -> int: ...

    def num_pages(self, discussion_id: ObjectId, *, store: Store | None = None) -> int: ...


_counting: list[Counting] = []
NO_COUNTING = "No counters for the comment stores: comments.counters is handed over in CommentsConfig.ready()."


def use_counting(counting: Counting) -> None:
    """Make `counting` what moves the counters with every change the stores make."""
    _counting[:] = [counting]


def counting() -> Counting:
    if not _counting:
        raise RuntimeError(NO_COUNTING)
    return _counting[0]
