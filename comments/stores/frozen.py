"""`frozen_aware`: what makes a store's write primitive wait out a migration's last
pass, refused with store_switch.Moving on a store that takes no writes now (frozen
for a migration's last pass, or switched away from: store_switch.check_writable)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, Protocol, TypeVar, runtime_checkable

from comments.stores.store_switch import check_writable


@runtime_checkable
class Named(Protocol):
    """What this decorator needs of a store: its name (a CommentStore's, from
    comments/stores/base.py, which imports this module, so it is not imported back)."""

    name: str


P = ParamSpec("P")
R = TypeVar("R")


def frozen_aware(write: Callable[P, R]) -> Callable[P, R]:
    """A write primitive: refused with store_switch.Moving while this store takes no
    writes (store_switch.check_writable; a migration's target takes its copies)."""

    @functools.wraps(write)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        store = args[0]
        assert isinstance(store, Named)
        check_writable(store.name)
        return write(*args, **kwargs)

    return checked
