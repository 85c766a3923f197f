"""Editors' picks: comments an editor features. A pick carries an "Editor's pick"
badge and, if it is a top-level comment, leads the best view (records.RANKED_ORDERS
sorts `picked` first). A discussion has at most COMMENTS_MAX_PICKS. Plain functions;
the dashboard's moderation queue asks (with its CSRF and editor checks)."""

from __future__ import annotations

from bson import ObjectId
from django.utils.translation import gettext, gettext_noop

from comments import conf
from comments.errors import Refused
from comments.records import APPROVED, Comment
from comments.stores import counters, get_store

NOT_PICKABLE = gettext_noop("Only an approved comment can be an editor's pick.")
TOO_MANY_PICKS = gettext_noop(
    "This post has {count} editor's picks already, the most it may have: take one back first."
)


class PickRefused(Refused):
    """A pick the rules refuse; the message is for the editor."""


def feature(*, comment_id: ObjectId, picked: bool) -> Comment | None:
    """Make a comment an editor's pick (or stop it being one); the comment, None if it
    is gone. PickRefused for a comment not approved, or past COMMENTS_MAX_PICKS. Two
    editors picking at the very same moment may both pass the count (one more pick
    than the setting); taking one back fixes that."""
    store = get_store()
    comment = store.find_by_id(comment_id)
    if comment is None:
        return None
    if picked and not comment.picked:
        if comment.status != APPROVED or comment.placeholder:
            raise PickRefused(gettext(NOT_PICKABLE), code="not_pickable")
        limit = conf.get().max_picks
        if len(store.find_picks(discussion_id=comment.discussion_id)) >= limit:
            raise PickRefused(gettext(TOO_MANY_PICKS).format(count=limit), code="too_many_picks")
    if store.set_picked(comment=comment, picked=picked):
        counters.touch([comment.discussion_id])
    return store.find_by_id(comment_id)
