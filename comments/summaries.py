"""A post's comment summary and the placeholders that keep replies in place: what
every change to a discussion's comments ends with (`settle`). Plain functions; no
request in sight."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from bson import ObjectId

from comments import slugs
from comments.host import LatestComment, get_host
from comments.records import HIDDEN
from comments.stores import get_store

LATEST_COUNT = 3
EXCERPT_LENGTH = 140
# Compare-and-set attempts of one refresh; each failed one means another writer's
# succeeded meanwhile, so only that many writers at once can use them all up.
SUMMARY_ATTEMPTS = 50

logger = logging.getLogger(__name__)


def repair_placeholders(*, discussion_id: ObjectId, slugs_changed: Iterable[str]) -> None:
    """Make `placeholder` true exactly on the hidden comments with an approved reply,
    among the changed comments and their ancestors (the only ones a change of status
    can affect). Run after every change of status; a run reads the current state, so
    the last of two concurrent runs leaves it right."""
    wanted: set[str] = set()
    for slug in slugs_changed:
        wanted.add(slug)
        wanted.update(slugs.ancestor_slugs(slug))
    store = get_store()
    on: list[ObjectId] = []
    off: list[ObjectId] = []
    for comment in store.find_by_slugs(discussion_id=discussion_id, slugs=sorted(wanted)):
        should = comment.status in HIDDEN and store.has_approved_reply(comment=comment)
        if should != comment.placeholder:
            (on if should else off).append(comment.id)
    store.set_placeholder(ids=on, placeholder=True)
    store.set_placeholder(ids=off, placeholder=False)


def settle(*, discussion_id: ObjectId, slugs: Iterable[str]) -> None:
    """After comments of one discussion changed status or text: their placeholders,
    then the post's comment count and latest comments."""
    repair_placeholders(discussion_id=discussion_id, slugs_changed=slugs)
    refresh_summary(post_id=discussion_id)


def excerpt(text: str, length: int = EXCERPT_LENGTH) -> str:
    """The start of a comment's text on one line, cut at a word."""
    flat = " ".join(text.split())
    if len(flat) <= length:
        return flat
    return flat[:length].rsplit(" ", 1)[0] + "…"


def refresh_summary(*, post_id: ObjectId) -> int:
    """Recompute a post's comment count and latest comments from the comments
    themselves and store them on the post (the subset pattern). Only approved
    comments count: what every reader sees (placeholders are not comments). The
    length of a reader's listing (comments and placeholders) is stored beside it, so
    a reader's page of comments needs no count query (comments/fragments.py).
    Returns the count.

    Recomputed rather than `$inc`ed: status changes, placeholders and deletes
    change the count and the latest comments in ways a writer cannot tell without
    reading. The write is a compare-and-set on the post's `comments_version`, read
    before the recount: it fails if another summary was stored meanwhile, and the
    refresh goes again. So a summary stored after another was counted after that one
    was stored, and the writer of each change stores one counted after its change:
    the last summary stored counts every change. (Two plain recount-and-`$set`s can
    land in the wrong order and leave the older count.)

    Every write to a discussion's comments ends here (posting, edits, deletes, flags
    that hold a comment, moderation, imports): storing the summary also gives the
    post a fresh `comments_version`, so no cached page of its comments is served
    after the change (comments/fragments.py).
    """
    for _ in range(SUMMARY_ATTEMPTS):
        version = get_host().read_comments_version(post_id)
        tally = get_store().tally_listing(discussion_id=post_id)
        if version is None:
            return tally.comments  # No such post: nothing to store the summary on.
        latest = [
            LatestComment(
                slug=c.slug, author_name=c.author.name, posted=c.posted, excerpt=excerpt(c.text)
            )
            for c in get_store().find_latest(discussion_id=post_id, limit=LATEST_COUNT)
        ]
        if get_host().set_comment_summary(
            post_id, if_version=version, count=tally.comments, listed=tally.total, latest=latest
        ):
            return tally.comments
    logger.warning("The comment summary of discussion %s was overtaken %d times; the next write stores it.",
                   post_id, SUMMARY_ATTEMPTS)
    return tally.comments


def repair_all() -> int:
    """Recompute the summary of every post that has comments or whose summary says it
    has (some may all have been removed since); how many summaries were refreshed."""
    post_ids = set(get_store().discussion_ids())
    post_ids.update(post_id for post_id, _ in get_host().comment_summaries())
    for post_id in sorted(post_ids):
        refresh_summary(post_id=post_id)
    return len(post_ids)


@dataclass(frozen=True)
class SummaryDrift:
    """A post whose stored summary disagrees with a recount: (approved comments, the
    reader's listed count, the slugs of the latest comments) as stored and as counted."""

    post_id: ObjectId
    stored: tuple[int, int | None, tuple[str, ...]]
    counted: tuple[int, int, tuple[str, ...]]


def find_drift() -> Iterator[SummaryDrift]:
    """Every post (with comments, or whose summary says it has some) whose stored
    summary differs from a recount; reads only, changes nothing. A comment posted
    while this runs can show as drift that the next write puts right."""
    stored_latest = dict(get_host().comment_summaries())
    post_ids = set(get_store().discussion_ids()) | set(stored_latest)
    for post_id in sorted(post_ids):
        discussion = get_host().get(post_id)
        if discussion is None:
            continue
        tally = get_store().tally_listing(discussion_id=post_id)
        latest = tuple(c.slug for c in get_store().find_latest(discussion_id=post_id, limit=LATEST_COUNT))
        stored = (discussion.comment_count, discussion.listed_comments,
                  tuple(c.slug for c in stored_latest.get(post_id, ())))
        counted = (tally.comments, tally.total, latest)
        if stored != counted:
            yield SummaryDrift(post_id=post_id, stored=stored, counted=counted)
