"""The comment store in use: `store.find_page(...)` and every other operation go to
the sibling module named by the setting COMMENTS_STORE, so that services, views,
moderation and counts never know which storage pattern of `storage-patterns.md`
holds the comments:

- `documents` (default): one document per comment, collection `comments`
  (pattern 1, comments/documents.py);
- `embedded`: one document per discussion with the comment tree inside,
  collection `discussions` (pattern 2, comments/embedded.py);
- `buckets`: comments in pages of about 100, collection `comment_pages`
  (pattern 3, comments/buckets.py).

Each store module defines every name in OPERATIONS with the same signature
(tests/integration/comments/test_comment_stores.py checks it); the records they take and give are
comments/records.py's, re-exported here for the callers' convenience.

The store in use is COMMENTS_STORE until `comments_migrate` moves the comments and
records a switch (comments/store_switch.py); writes wait out a migration's last pass.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from comments import store_switch
from comments.records import (  # noqa: F401  (re-exported: the store's vocabulary)
    APPROVED,
    DELETED,
    HIDDEN,
    NEWEST,
    ORDERS,
    PENDING,
    QUEUE_TABS,
    READERS,
    SPAM,
    STATUSES,
    Comment,
    CommentAuthor,
    Commenter,
    DiscussionFull,
    QueueFilter,
    SlugTaken,
    Tally,
    Viewer,
    by_commenter,
    is_listed_for,
    is_placeholder_for,
)

STORES = {
    "documents": "comments.documents",
    "embedded": "comments.embedded",
    "buckets": "comments.buckets",
}
UNKNOWN_STORE = "COMMENTS_STORE is {name!r}; the comment stores are: {known}."

# What every store module provides, with the same keyword-only signatures.
OPERATIONS = (
    "ensure_indexes",
    # posting and reading one discussion
    "insert_comment", "find_by_slug", "find_by_slugs", "find_ancestors", "find_subthread",
    "find_page", "count", "tally", "count_before", "count_approved", "find_latest",
    "find_duplicate", "has_approved_reply",
    # any comment, by id or by who wrote it
    "find_by_id", "find_by_ids", "find_by_keys", "has_approved_by", "find_latest_by_author",
    # moderation
    "set_status", "set_subthread_status", "set_placeholder", "update_text", "set_flag_count",
    "find_by_commenter", "find_queue", "count_queue",
    # author copies
    "find_member_authors", "find_discussion_ids_by_author", "set_author_name",
    # export, import and migration: comments as flat documents, whatever the store
    "iter_documents", "insert_documents", "discussion_ids", "drop_discussion",
)
# The operations that change comments: refused while a migration's last pass runs.
WRITES = frozenset({
    "insert_comment", "set_status", "set_subthread_status", "set_placeholder", "update_text", "set_flag_count",
    "set_author_name", "insert_documents", "drop_discussion",
})


def named(name: str) -> ModuleType:
    """The store module called `name` (one of STORES)."""
    if name not in STORES:
        raise ValueError(UNKNOWN_STORE.format(name=name, known=", ".join(STORES)))
    return import_module(STORES[name])


def active() -> ModuleType:
    """The store module the site uses now."""
    return named(store_switch.in_use())


def __getattr__(name: str):
    """`store.<operation>` is the operation of that name of the store in use."""
    if name in WRITES:
        return getattr(named(store_switch.for_writing()), name)
    if name in OPERATIONS:
        return getattr(active(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
