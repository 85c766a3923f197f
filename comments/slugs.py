"""Slugs and full slugs of threaded comments: pure functions, no I/O.

A comment's `slug` is the path of random parts from its root (`k3x7q2ab/7mfp2d4c`);
its `full_slug` is the same path with each part prefixed by the time that comment
was posted (`2026.11.29.20.41.07.123456:k3x7q2ab/...`). Sorting by `full_slug`
gives the threaded order: depth first, each level oldest first.

Beyond the classic write-up: the timestamp carries microseconds, so two replies in
the same second still sort by time; parts are 8 characters of a 32-letter alphabet
(40 bits), so one discussion of 100,000 comments expects well under one collision,
which the store's unique index catches and retries.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import datetime, timezone

PART_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
PART_LENGTH = 8
SEPARATOR = "/"
TIME_FORMAT = "%Y.%m.%d.%H.%M.%S.%f"
# A full_slug part: "YYYY.MM.DD.HH.MM.SS.ffffff:" (27 characters) + the slug part.
FULL_PART_LENGTH = 27 + PART_LENGTH
# Keeps full_slug (and so the index key) well under MongoDB's old 1,024-byte limit.
DEPTH_CEILING = 20

_PART = f"[{PART_ALPHABET}]{{{PART_LENGTH}}}"
SLUG_PATH_RE = re.compile(rf"{_PART}(?:/{_PART}){{0,{DEPTH_CEILING - 1}}}")


def new_part() -> str:
    """A random slug part."""
    return "".join(secrets.choice(PART_ALPHABET) for _ in range(PART_LENGTH))


def derived_part(key: str, attempt: int = 0) -> str:
    """A slug part computed from a secret random `key`: the same key and attempt
    always give the same part, so a form submitted twice yields the same slug."""
    digest = hashlib.blake2b(f"{attempt}:{key}".encode(), digest_size=5).digest()
    bits = int.from_bytes(digest, "big")
    return "".join(PART_ALPHABET[(bits >> (5 * i)) & 31] for i in range(PART_LENGTH))


def time_part(posted: datetime) -> str:
    """`posted` (UTC) as the sortable prefix of a full_slug part."""
    return posted.astimezone(timezone.utc).strftime(TIME_FORMAT)


def root_slugs(*, posted: datetime, part: str) -> tuple[str, str]:
    """(slug, full_slug) of a top-level comment."""
    return part, f"{time_part(posted)}:{part}"


def child_slugs(*, parent_slug: str, parent_full_slug: str, posted: datetime, part: str) -> tuple[str, str]:
    """(slug, full_slug) of a reply to the comment with these slugs."""
    slug, full = root_slugs(posted=posted, part=part)
    return f"{parent_slug}{SEPARATOR}{slug}", f"{parent_full_slug}{SEPARATOR}{full}"


def depth(slug: str) -> int:
    """0 for a top-level comment, 1 for a reply to it, and so on."""
    return slug.count(SEPARATOR)


def parent_slug(slug: str) -> str | None:
    """The slug of the comment this one replies to, or None for a top-level comment."""
    head, sep, _ = slug.rpartition(SEPARATOR)
    return head if sep else None


def ancestor_slugs(slug: str) -> list[str]:
    """Slugs of every ancestor, root first (empty for a top-level comment)."""
    parts = slug.split(SEPARATOR)
    return [SEPARATOR.join(parts[:n]) for n in range(1, len(parts))]


def lineage_full_slugs(full_slug: str) -> list[str]:
    """The full_slugs of a comment's ancestors, root first, then its own: the anchored
    prefixes of `full_slug` that end at a part, what a query of a branch's rules or
    followers looks up with `$in` (one indexed query, no walk up the tree)."""
    parts = full_slug.split(SEPARATOR)
    return [SEPARATOR.join(parts[:n]) for n in range(1, len(parts) + 1)]


def slug_of(full_slug: str) -> str:
    """The slug path inside a full_slug (each part without its time)."""
    return SEPARATOR.join(part.rpartition(":")[2] for part in full_slug.split(SEPARATOR))


def thread_key(full_slug: str) -> str:
    """The first part of a full_slug: the top-level comment's time and slug.

    Sorting by (thread_key descending, full_slug ascending) gives the newest-first
    threaded view: the newest thread first, each thread in time order under its root.
    """
    return full_slug.split(SEPARATOR, 1)[0]


def subtree_regex(full_slug: str) -> str:
    """An anchored pattern matching this comment's full_slug and its descendants'.

    It requires `/` or the end right after the comment's own full_slug, so a
    sibling whose key merely starts with the same characters never matches, and
    its literal prefix lets an index on full_slug bound the scan.
    """
    return "^" + re.escape(full_slug) + "(?:/|$)"


def replies_regex(full_slug: str) -> str:
    """An anchored pattern matching the descendants of this comment only."""
    return "^" + re.escape(full_slug + SEPARATOR)


def is_slug_path(value: str) -> bool:
    """Whether `value` is a well-formed slug path (checked before any query)."""
    return bool(SLUG_PATH_RE.fullmatch(value))


def anchor(slug: str) -> str:
    """The HTML id of a rendered comment: `c-` and the slug with / as -."""
    return "c-" + slug.replace(SEPARATOR, "-")
