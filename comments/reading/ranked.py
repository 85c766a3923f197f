"""The ranked views of a discussion, `best` and `top`: top-level comments in the order
votes give them (records.RANKED_ORDERS: editors' picks first, then the lower bound
of the Wilson score interval, or the net score; ties newer first), each followed by
its replies in threaded order. Plain functions over the store; no request in sight.

A page holds COMMENTS_PER_PAGE // 5 threads (at least one) and at most
COMMENTS_PER_PAGE * 2 replies among them (read in one query by their `thread` keys);
a thread whose replies do not fit ends with "Continue this thread", to its page.

Paging while votes move. A ranking changes between two requests, so a walk of Next
links cut by a key of the ranking (rank, time, id) could show a thread twice (it
fell below the key after being shown) or never (it rose above it before being
reached). So a walk pins the ranking it started from:
- the first page is read from the index of its order (the discussion's top-level
  comments, first N); its Next link carries the ids it showed;
- following it records the ranking of every other top-level comment once, as it
  stands then, in `comment_walks` (`{_id, discussion_id, view, ids, expires}`, kept
  WALK_SECONDS; readers following the same first page within a minute share one), and
  every later page is a slice of that list by position, its comments read by id.
One walk of Next links therefore shows each thread once, in the order it started
from, with counts as they are now. A thread posted after the walk started is not in
it (it is on a new first page). A cursor is signed and names its discussion and view.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from bson import ObjectId
from django.core import signing
from django.core.exceptions import BadRequest
from django.http import Http404
from django.utils.translation import gettext
from pymongo import ASCENDING, IndexModel
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError

from comments import conf
from comments.reading import cursors, listings
from comments.records import RANKED_ORDERS, READERS, Comment, Tally, Viewer
from comments.stores import get_store
from infra.mongo import get_db

SALT = "comments.ranked"  # a signing salt: kept when the module moved, so cursors stay valid
# How long a walk's pinned ranking is kept (its Next links work that long).
WALK_SECONDS = 24 * 3600
# Whoever may see any top-level comment: what a walk records (each reader's page
# then shows what they see of it).
EVERYONE = Viewer(editor=True)
INDEXES = [IndexModel([("expires", ASCENDING)], expireAfterSeconds=0, name="expires")]


def ensure_indexes(db: Database) -> list[str]:
    return db.comment_walks.create_indexes(INDEXES)


def threads_per_page() -> int:
    return max(1, conf.get().per_page // 5)


def _encode(*, view: str, discussion_id: ObjectId, page: int, shown: list[ObjectId] | None = None,
            walk: str | None = None, offset: int = 0) -> str:
    data = {"v": view, "s": str(discussion_id), "p": page, "o": offset}
    if walk is not None:
        data["w"] = walk
    else:
        data["shown"] = [str(i) for i in shown or []]
    return signing.dumps(data, salt=SALT, compress=True)


def _decode(token: str, *, view: str, discussion_id: ObjectId) -> dict:
    try:
        data = signing.loads(token, salt=SALT)
    except signing.BadSignature:
        raise BadRequest(gettext(cursors.BAD_CURSOR)) from None
    if (not isinstance(data, dict) or data.get("v") != view or data.get("s") != str(discussion_id)
            or type(data.get("p")) is not int or data["p"] < 1 or type(data.get("o")) is not int or data["o"] < 0):
        raise BadRequest(gettext(cursors.BAD_CURSOR))
    return data


def _walk(*, discussion_id: ObjectId, view: str, shown: list[str]) -> dict:
    """The walk that follows a first page which showed `shown`: recorded now, or the
    one recorded for the same first page within the minute."""
    minute = int(datetime.now(UTC).timestamp() // 60)
    key = hashlib.sha256(f"{discussion_id}:{view}:{minute}:{','.join(shown)}".encode()).hexdigest()[:32]
    walks = get_db().comment_walks
    found = walks.find_one({"_id": key})
    if found is not None:
        return found
    seen = set(shown)
    ranking = get_store().find_ranked_roots(discussion_id=discussion_id, view=view, viewer=EVERYONE)
    walk = {"_id": key, "discussion_id": discussion_id, "view": view,
            "ids": [c.id for c in ranking if str(c.id) not in seen],
            "expires": datetime.now(UTC) + timedelta(seconds=WALK_SECONDS)}
    try:
        walks.insert_one(walk)
    except DuplicateKeyError:
        return walks.find_one({"_id": key}) or walk
    return walk


def _roots(*, discussion_id: ObjectId, view: str, viewer: Viewer, cursor: dict | None,
           wanted: int) -> tuple[list[Comment], str | None, int]:
    """The top-level comments of the page, the walk it is on (None: the first page) and
    the position after it in the walk (-1: nothing after it)."""
    store = get_store()
    if cursor is None:
        found = store.find_ranked_roots(discussion_id=discussion_id, view=view, viewer=viewer, limit=wanted + 1)
        return found[:wanted], None, (0 if len(found) > wanted else -1)
    if "w" in cursor:
        walk = get_db().comment_walks.find_one({"_id": str(cursor["w"]), "discussion_id": discussion_id})
        if walk is None:
            raise BadRequest(gettext(cursors.BAD_CURSOR))
    else:
        shown = cursor.get("shown")
        if not isinstance(shown, list) or not all(isinstance(s, str) for s in shown) or len(shown) > 1000:
            raise BadRequest(gettext(cursors.BAD_CURSOR))
        walk = _walk(discussion_id=discussion_id, view=view, shown=shown)
    ids: list[ObjectId] = walk["ids"]
    position = cursor["o"]
    roots: list[Comment] = []
    while position < len(ids) and len(roots) < wanted:
        chunk = ids[position:position + wanted - len(roots)]
        by_id = {c.id: c for c in store.find_ranked_roots(discussion_id=discussion_id, view=view, viewer=viewer,
                                                          ids=chunk)}
        roots += [by_id[i] for i in chunk if i in by_id]
        position += len(chunk)
    return roots, walk["_id"], (position if position < len(ids) else -1)


def list_ranked(*, discussion_id: ObjectId, view: str, after: str | None = None, before: str | None = None,
                viewer: Viewer = READERS, tally: Tally | None = None) -> listings.Listing:
    """One page of a ranked view (module docstring). BadRequest for a tampered or
    expired cursor; Http404 past the end."""
    if view not in RANKED_ORDERS:
        raise BadRequest(gettext(listings.BAD_VIEW))
    token = after or before
    cursor = _decode(token, view=view, discussion_id=discussion_id) if token else None
    number = cursor["p"] if cursor else 1
    wanted = threads_per_page()
    roots, walk, beyond = _roots(discussion_id=discussion_id, view=view, viewer=viewer, cursor=cursor, wanted=wanted)
    if cursor is not None and not roots:
        raise Http404(gettext(listings.NO_MORE))
    budget = conf.get().per_page * 2
    replies = get_store().find_threads(discussion_id=discussion_id, threads={r.thread for r in roots},
                                       viewer=viewer, limit=budget + 1) if roots else []
    cut = len(replies) > budget
    replies = replies[:budget]
    # Threads at and after the last one the budget reached may lack replies.
    short = {replies[-1].thread} | {r.thread for r in roots if r.thread < replies[-1].thread} if cut else set()
    by_thread: dict[str, list[Comment]] = {}
    for reply in replies:
        if reply.parent_id is not None:
            by_thread.setdefault(reply.thread, []).append(reply)
    shown: list[listings.Shown] = []
    for root in roots:
        if root.thread in short:  # its replies are on its own page
            placed = listings.place([root], view="threaded", viewer=viewer)[0]
            shown.append(replace(placed, continue_thread=True))
            continue
        thread = [root, *sorted(by_thread.get(root.thread, []), key=lambda c: c.full_slug)]
        shown += listings.place(thread, view="threaded", viewer=viewer)
    shown = listings.name_parents(shown, discussion_id=discussion_id, viewer=viewer)
    if tally is None:
        tally = get_store().tally_listing(discussion_id=discussion_id, viewer=viewer)
    has_next = beyond >= 0
    next_cursor = None
    if has_next:
        next_cursor = (_encode(view=view, discussion_id=discussion_id, page=number + 1, walk=walk, offset=beyond)
                       if walk else _encode(view=view, discussion_id=discussion_id, page=2,
                                            shown=[r.id for r in roots]))
    prev_cursor = None
    if cursor is not None and number > 2 and walk:
        prev_cursor = _encode(view=view, discussion_id=discussion_id, page=number - 1, walk=walk,
                              offset=max(0, cursor["o"] - wanted))
    return listings.Listing(
        view=view, shown=shown, total=tally.total, comment_count=tally.comments, number=number,
        num_pages=number + (1 if has_next else 0), page_range=[], next_cursor=next_cursor,
        prev_cursor=prev_cursor, previous_is_first=number == 2,
    )
