"""What the webhooks hear and what they send. The receivers of the comments app's
signals (connected in WebhooksConfig.ready()) store one delivery per event and
webhook (webhooks/deliveries.py): one query for the webhooks that hear the event,
one insert, nothing sent in the request. The body is made when a delivery is first
attempted (`body_for`), outside any request: the comment as the JSON API shows it to
an editor (api/reading.py), its discussion and its permalink.

    comment.posted    a new comment (any status; `data.status` says which)
    comment.held      a comment went to the moderation queue: posted held, held by
                      readers' flags, an edit that needs a look
    comment.approved  an editor approved a comment
    comment.deleted   a comment was deleted (by its author or an editor) or marked spam
    comment.flagged   a reader flagged a comment (`data.flag`)
    comment.voted     a reader's vote changed a comment's tally (`data.vote`)
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from pymongo.errors import PyMongoError

from api.reading import comment_data, discussion_data
from comments import api as comments_api
from comments.rest import Viewer, present
from infra import mongo
from webhooks import deliveries, hooks

logger = logging.getLogger(__name__)
# A comment's status after a change -> the event it makes.
STATUS_EVENTS = {comments_api.APPROVED: "comment.approved", comments_api.PENDING: "comment.held",
                 comments_api.DELETED: "comment.deleted", comments_api.SPAM: "comment.deleted"}
EDITOR = Viewer(editor=True)


def emit(event: str, subjects: list[dict]) -> int:
    """Store `event` about each subject for every webhook that hears it; how many
    deliveries. An outage costs the deliveries (logged), never the request."""
    try:
        hook_ids = [hook.id for hook in hooks.listening(event)]
        return deliveries.enqueue(event=event, hook_ids=hook_ids, subjects=subjects)
    except PyMongoError as exc:
        if not mongo.is_outage(exc):
            raise
        logger.warning("Webhook deliveries of %s were not stored (%s).", event, exc.__class__.__name__)
        return 0


def send_test(hook: hooks.Hook) -> int:
    """The dashboard's "send a test event": one delivery to this webhook alone."""
    return deliveries.enqueue(event=hooks.TEST_EVENT, hook_ids=[hook.id], subjects=[{"test": True}])


# --- Connected to the comments app's signals in WebhooksConfig.ready() --------------


def on_comment_posted(sender: object, *, comment: comments_api.Comment, duplicate: bool = False,
                      **kwargs: object) -> None:
    if duplicate:
        return  # Told already, when it was first stored.
    emit("comment.posted", [{"comment": str(comment.id)}])
    if comment.status == comments_api.PENDING:
        emit("comment.held", [{"comment": str(comment.id)}])


def on_status_changed(sender: object, *, comment_ids: Iterable[Any], status: str, **kwargs: object) -> None:
    if event := STATUS_EVENTS.get(status):
        emit(event, [{"comment": str(comment_id)} for comment_id in comment_ids])


def on_comment_flagged(sender: object, *, comment: comments_api.Comment, reason: str, count: int, held: bool,
                       **kwargs: object) -> None:
    emit("comment.flagged", [{"comment": str(comment.id), "flag": {"reason": reason, "count": count,
                                                                    "held": held}}])


def on_comment_voted(sender: object, *, comment: comments_api.Comment, vote: str, **kwargs: object) -> None:
    emit("comment.voted", [{"comment": str(comment.id), "vote": vote}])


# --- The body, made by the sender -----------------------------------------------------


def data_of(subject: dict, *, hook_id: object) -> dict[str, Any]:
    """The `data` of a delivery about `subject`: the comment, its discussion and
    permalink (None for a comment or discussion gone since), and the subject's extras."""
    if subject.get("test"):
        return {"webhook": str(hook_id), "message": "A test event from the dashboard."}
    comment = comments_api.comment_by_id(subject["comment"])
    discussion = comments_api.get_host().get(comment.discussion_id) if comment else None
    data: dict[str, Any] = {"comment": None, "discussion": None, "permalink": None}
    if comment is not None and discussion is not None:
        shown = present(comment, EDITOR)
        data = {
            "comment": {"id": str(comment.id), "status": comment.status,
                        **comment_data(shown, post_slug=discussion.slug, viewer=EDITOR)},
            "discussion": discussion_data(discussion),
            "permalink": settings.SITE_URL
            + comments_api.comment_permalink(discussion=discussion, comment=comment),
        }
    data["comment_id"] = subject["comment"]
    data.update({key: subject[key] for key in ("flag", "vote") if key in subject})
    return data


def body_for(delivery: deliveries.Delivery, *, now: datetime | None = None) -> str:
    """A delivery's JSON body: {"id", "event", "created", "data"}."""
    return json.dumps({
        "id": delivery.event_id,
        "event": delivery.event,
        "created": int(delivery.created.astimezone(UTC).timestamp()),
        "data": data_of(delivery.subject, hook_id=delivery.hook),
    }, cls=DjangoJSONEncoder, ensure_ascii=False, separators=(",", ":"))
