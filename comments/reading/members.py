"""A member's comments across discussions, the approved replies to them, and their
votes: the pages of a member's own account and public profile, and their data
download. Newest first, a page at a time after a signed cursor (no skip).

Each store finds a member's comments by its author index (documents: `member_posted`,
`{author.id, posted, _id}`, which also serves the order; buckets: `comment_author_id`,
the buckets holding one, sorted on the server; embedded: the discussion documents
with one at some depth, unpacked and sorted in Python, `limit + 1` kept at a time).

Replies do not record whom they answer, so `replies_to` finds the member's newest
`REPLY_PARENTS` comments first (one query by the same index), then the approved
replies of others whose `parent_id` is one of them in those comments' discussions (a
second, which leaves out the member's own replies, so a page is full while there are
more): replies to older comments than those are not listed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime

from bson import ObjectId

from comments.reading import cursors
from comments.records import HIDDEN, NEWEST, Comment, Commenter
from comments.stores import Query, get_store
from comments.votes import collection as votes, voters

# How many of a member's newest comments `replies_to` lists the replies of.
REPLY_PARENTS = 200
# The comments read per query when a member's comments are all walked (a download).
BATCH = 200


@dataclass(frozen=True)
class MemberPage:
    """One page of a member's listing, and the cursor of the next (None: the last)."""

    comments: list[Comment]
    next_cursor: str | None


def encode(*, scope: str, comment: Comment) -> str:
    """A URL-safe token for the position after `comment` in listing `scope`."""
    return cursors.encode_key(order=NEWEST, scope=scope, key=(comment.posted, comment.id))


def decode(token: str, *, scope: str) -> tuple[datetime, ObjectId]:
    """The key in `token`; BadCursor if it was altered or is another listing's."""
    posted, oid = cursors.decode_key(token, order=NEWEST, scope=scope)
    return posted, oid


def _page(query: Query, *, scope: str, cursor: str | None, limit: int) -> MemberPage:
    """The page of `query` after `cursor`, newest first, and the next page's cursor."""
    after = decode(cursor, scope=scope) if cursor else None
    found = get_store().find(replace(query, order=tuple(NEWEST), after=after, limit=max(1, limit) + 1))
    shown = found[:max(1, limit)]
    more = len(found) > len(shown)
    return MemberPage(comments=shown, next_cursor=encode(scope=scope, comment=shown[-1]) if more else None)


def comments_of(*, author_id: int, cursor: str | None, limit: int, approved_only: bool) -> MemberPage:
    """A page of a member's comments, newest first: every status for the member's own
    page, only approved ones (`approved_only`) for their public profile."""
    scope = f"{'public' if approved_only else 'own'}:{int(author_id)}"
    query = Query(commenter=Commenter(user_id=int(author_id)),
                  exclude=frozenset(HIDDEN) if approved_only else frozenset())
    return _page(query, scope=scope, cursor=cursor, limit=limit)


def replies_to(*, author_id: int, cursor: str | None, limit: int) -> MemberPage:
    """A page of the approved replies to a member's newest REPLY_PARENTS comments,
    newest first (their own replies to themselves left out): two queries (module
    docstring)."""
    mine = get_store().find(Query(commenter=Commenter(user_id=int(author_id)), order=tuple(NEWEST),
                                  limit=REPLY_PARENTS))
    query = Query(discussion_ids=frozenset(c.discussion_id for c in mine), parents=frozenset(c.id for c in mine),
                  not_by=int(author_id), exclude=frozenset(HIDDEN))
    return _page(query, scope=f"replies:{int(author_id)}", cursor=cursor, limit=limit)


def all_comments_of(*, author_id: int) -> Iterator[Comment]:
    """Every comment of a member, any status, newest first, read BATCH at a time (a
    data download: never more than one batch in memory)."""
    batch = BATCH
    query = Query(commenter=Commenter(user_id=int(author_id)), order=tuple(NEWEST), limit=batch)
    while True:
        found = get_store().find(query)
        yield from found
        if len(found) < batch:
            return
        query = replace(query, after=(found[-1].posted, found[-1].id))


def votes_of(*, user_id: int) -> Iterator[dict]:
    """Every vote a member cast while signed in (their `u:<id>` voter key), oldest first."""
    voter = voters.key_for(user_id=int(user_id), token=None)
    return votes.by_voter(voter=voter) if voter is not None else iter(())
