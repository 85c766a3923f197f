"""To be deleted: `holding` does nothing.

Every server Slugline supports (MongoDB, FerretDB v2) applies each update of one
document atomically, so a writer needs no lease on a comment container. This stays
only until comments/buckets.py and comments/embedded.py stop calling `holding`.
"""

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def holding(container: str) -> Iterator[None]:
    """Run the block; nothing else (see the module docstring)."""
    yield
