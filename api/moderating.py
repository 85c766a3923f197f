"""/api/v1/moderation/: the moderation queue and its actions for editors' API tokens
(a moderation bot), through the moderation functions of comments.rest, those the
dashboard's queue calls: the same tabs, the same actions, the same records of who did what."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.utils.translation import gettext, gettext_noop
from ninja import Router, Schema
from pydantic import Field

from api import auth, schemas
from api.problems import Refused
from comments.api import comments_by_ids, get_host
from comments.rest import (
    QUEUE_TABS, QueueFilter, ban_commenter, comment_settings, moderate, queue_page, tab_counts,
)
from infra.ids import parse_id
from infra.pagination import get_page

# The same words as the dashboard's queue.
BAD_TAB = gettext_noop("Choose pending, flagged, spam or recent.")
GONE = gettext_noop("That comment no longer exists.")
ACTIONS = ("approve", "spam", "delete")

router = Router(auth=auth.EDITORS, tags=["moderation"])
ERRORS = {400: schemas.ProblemOut, 401: schemas.ProblemOut, 403: schemas.ProblemOut, 404: schemas.ProblemOut,
          429: schemas.ProblemOut}


class QueuedFlagOut(Schema):
    reason: str
    note: str


class QueuedOut(Schema):
    id: str
    discussion: str = Field(description="The post's slug ('' when the post is gone).")
    slug: str
    status: str
    author: str
    posted: Any
    html: str
    flag_count: int
    flags: list[QueuedFlagOut]


class QueueOut(Schema):
    tab: str
    page: int
    num_pages: int
    total: int
    entries: list[QueuedOut]


class ChangedOut(Schema):
    changed: int = Field(description="Comments this action changes (their status, or their flags).")
    dismissed: int = Field(description="Of those, approved comments whose readers' flags approving dismissed.")
    done: bool = Field(description="False: the rest is being finished in the background.")


class BannedOut(Schema):
    banned: list[list[str]] = Field(description="What the ban is by: [kind, value] pairs.")
    marked: int = Field(description="Comments the ban marked as spam.")
    done: bool


@router.get("/queue", response={200: QueueOut, **ERRORS}, url_name="moderation_queue", summary="The moderation queue")
def queue(request, tab: str = "pending", page: str | None = None):
    """A page of one tab of the queue (pending, flagged, spam, recent), newest first."""
    if tab not in QUEUE_TABS:
        raise Refused(400, gettext(BAD_TAB), code="bad_tab")
    filters = QueueFilter()
    total = tab_counts(filters=filters).get(tab, 0)
    found = get_page(total=total, raw_number=page, per_page=comment_settings().queue_per_page,
                     fetch=lambda skip, limit: queue_page(tab=tab, filters=filters, skip=skip, limit=limit))
    posts = {p.id: p.slug for p in get_host().get_many({e.comment.discussion_id for e in found.object_list})}
    entries = [{
        "id": str(e.comment.id), "discussion": posts.get(e.comment.discussion_id, ""), "slug": e.comment.slug,
        "status": e.comment.status, "author": e.comment.author.name, "posted": e.comment.posted,
        "html": e.comment.html, "flag_count": e.comment.flag_count,
        "flags": [{"reason": f.reason, "note": f.note} for f in e.flags],
    } for e in found.object_list]
    return {"tab": tab, "page": found.number, "num_pages": found.paginator.num_pages, "total": total,
            "entries": entries}


def _comment_id(comment_id: str):
    oid = parse_id(comment_id)
    if oid is None or not comments_by_ids(ids=[oid]):
        raise Http404(gettext(GONE))
    return oid


@router.post("/comments/{comment_id}/ban", response={200: BannedOut, **ERRORS}, url_name="moderation_ban",
             summary="Ban a comment's author")
def ban(request, comment_id: str):
    """Ban its author (by account, or by IP address) and mark their comments as spam."""
    banned = ban_commenter(comment_id=_comment_id(comment_id), editor=request.auth.get_username())
    if banned is None:
        raise Http404(gettext(GONE))
    return {"banned": [list(key) for key in banned.keys], "marked": banned.marked, "done": banned.done}


@router.post("/comments/{comment_id}/{action}", response={200: ChangedOut, **ERRORS}, url_name="moderation_action",
             summary="Approve, mark as spam or delete a comment")
def act(request, comment_id: str, action: str):
    """`action`: approve, spam or delete (as the queue's buttons). Approving a flagged
    comment that is approved already dismisses its flags."""
    if action not in ACTIONS:
        raise Http404(gettext(GONE))
    progress = moderate(action=action, comment_ids=[_comment_id(comment_id)],
                        editor=request.auth.get_username())
    return {"changed": progress.total + progress.dismissed, "dismissed": progress.dismissed, "done": progress.done}
