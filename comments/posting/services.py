"""The rules of commenting: where a reply attaches, how slugs are drawn, what status
a new or edited comment gets, who may edit, delete and flag, when a discussion is
closed, and how placeholders and a post's comment summary are kept right. Plain
functions; no request in sight."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone

from bson import ObjectId
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext, gettext_noop
from pymongo.errors import PyMongoError

from comments import conf, records, signals, slugs
from comments.errors import Refused
from comments.host import Discussion
from comments.moderation import bans, blocklist, branches, flags
from comments.posting import antispam, recent_texts, same_text
from comments.records import APPROVED, DELETED, PENDING, Comment, CommentAuthor, Intent, Viewer
from comments.stores import counters, discussion_state, get_store
from comments.stores.summaries import drop_note, note_and_state, note_unsettled, refresh_summary, settle
from infra import mongo
from infra.markup import render_comment
from infra.times import to_millisecond

PARENT_NOT_FOUND = gettext_noop("The comment you replied to does not exist on this post.")
CLOSED = gettext_noop("Comments are closed on this post, so yours was not posted.")
BANNED = gettext_noop("You cannot comment on this site.")
# A member's ban by account (comments/moderation/bans.py): its end and its reason.
BANNED_UNTIL = gettext_noop("An editor has banned you from commenting until {ends}. The reason given: {reason}")
BANNED_FOR_GOOD = gettext_noop("An editor has banned you from commenting on this site. The reason given: {reason}")
NOT_YOURS = gettext_noop("You can only change your own comments.")
EDIT_TIME_OVER = gettext_noop(
    "Comments can be changed for {minutes} minutes after posting; that time is over for this one."
)
CANNOT_CHANGE = gettext_noop("This comment can no longer be changed.")
CANNOT_FLAG = gettext_noop("This comment cannot be flagged.")
DISCUSSION_FULL = gettext_noop("This discussion is full and cannot take more comments for now, so yours was not posted.")
SLUG_RETRIES = 5
# The HTTP status each refusal (CommentError.code) is answered with, by pages and API alike.
REFUSAL_STATUS = {"closed": 403, "banned": 403, "not_yours": 403, "cannot_change": 403, "edit_time_over": 403,
                  "cannot_flag": 403, "locked": 403, "slow": 429}

logger = logging.getLogger(__name__)


class CommentError(Refused):
    """A comment that cannot be posted; the message is for the reader (`retry_after`:
    the seconds a slow thread makes them wait)."""


@dataclass(frozen=True)
class Posted:
    comment: Comment
    # The reply was attached higher up than asked because the thread is at its depth limit.
    reattached: bool
    # The same form was submitted before, or the same author posted the same text
    # here moments ago: this is the comment stored then.
    duplicate: bool = False
    # The duplicate was stored from this very form (its token): a resend, not a copy.
    same_form: bool = False

    @property
    def pending(self) -> bool:
        return self.comment.status == PENDING


def comments_closed(*, post: Discussion, now: datetime | None = None) -> bool:
    """Whether `post` takes no more comments: closed by hand, or published more than
    COMMENTS_CLOSE_AFTER_DAYS days ago (0: never by age)."""
    if post.comments_closed:
        return True
    days = conf.get().close_after_days
    if days <= 0 or post.published is None:
        return False
    return post.published < (now or datetime.now(timezone.utc)) - timedelta(days=days)


def find_parent(*, discussion_id: ObjectId, parent_slug: str) -> Comment:
    """The comment a reply names, or CommentError if it is malformed, elsewhere, or
    not shown to readers (a reply to a "[deleted]" placeholder is fine)."""
    if not slugs.is_slug_path(parent_slug):
        raise CommentError(gettext(PARENT_NOT_FOUND), code="bad_parent")
    parent = get_store().find_by_slug(discussion_id=discussion_id, slug=parent_slug)
    if parent is None or not (parent.approved or parent.placeholder):
        raise CommentError(gettext(PARENT_NOT_FOUND), code="bad_parent")
    return parent


def _attach_point(parent: Comment) -> tuple[Comment | None, bool]:
    """Where a reply to `parent` goes: under it, or under the ancestor that keeps the
    reply at the deepest allowed level (None: at the top level, as every reply is when
    COMMENTS_MAX_DEPTH is 0); and whether it moved."""
    limit = conf.get().max_depth
    if parent.depth < limit:
        return parent, False
    if limit == 0:
        return None, True
    slug = slugs.ancestor_slugs(parent.slug)[limit - 1]
    return get_store().find_by_slug(discussion_id=parent.discussion_id, slug=slug), True


def _screen(*, author: CommentAuthor, ip: str | None) -> blocklist.Screening:
    """The blocklist's words and domains for this author; CommentError if banned (a
    member's ban by account says its reason and its end)."""
    screening = blocklist.screen(user_id=author.id, email=author.email, ip=ip)
    if screening.banned:
        raise CommentError(gettext(BANNED), code="banned")
    ban = bans.active(user_id=author.id) if author.id is not None else None
    if ban is not None:
        raise CommentError(ban_message(ban), code="banned")
    return screening


def ban_message(ban: bans.Ban) -> str:
    """What a banned member is told, in the active language and time zone."""
    reason = ban.reason or "-"
    if ban.ends is None:
        return gettext(BANNED_FOR_GOOD).format(reason=reason)
    ends = date_format(localtime(ban.ends), "DATETIME_FORMAT")
    return gettext(BANNED_UNTIL).format(ends=ends, reason=reason)


def post_comment(
    *,
    post: Discussion,
    text: str,
    author: CommentAuthor,
    parent_slug: str | None = None,
    form_key: str | None = None,
    ip: str | None = None,
    trusted: bool = False,
    vouching: Iterable[ObjectId] = (),
    confirmed: Iterable[str] = (),
    at: datetime | None = None,
    new_part: Callable[[], str] = slugs.new_part,
    summarise: bool = True,
) -> Posted:
    """Store a comment (or a reply to `parent_slug`) in the discussion `post` and
    refresh its comment summary. CommentError for a closed discussion, a parent that
    is not in this discussion, or a banned author.

    The comment is approved, or pending when the blocklist or a pre-moderation rule holds it
    (`antispam.judge`); `trusted` (editors) skips those checks, and `vouching` (the comments
    the poster's browser wrote) and `confirmed` (the addresses it confirmed) may make them a
    known commenter for the "first" rule. With a `form_key` (from the form's token) posting is
    idempotent: the slug is derived from the key, so a second submit of the same form finds
    the first comment in the unique slug index and returns it (`duplicate=True`). The same
    text by the same author in the same place within COMMENTS_DUPLICATE_WINDOW seconds also
    returns the earlier comment instead of a copy. `ip` is kept for moderation only. `at`
    backdates the comment and `new_part` draws random slug parts (demo content and tests);
    bulk loaders pass `summarise=False` and call `refresh_summary` once (and send no
    `comment_posted`: comments/signals.py).
    """
    if comments_closed(post=post, now=at):  # A backdated comment: open at its time?
        raise CommentError(gettext(CLOSED), code="closed")
    parent, reattached = None, False
    if parent_slug:
        parent, reattached = _attach_point(find_parent(discussion_id=post.id, parent_slug=parent_slug))
    screening = _screen(author=author, ip=ip)
    if parent is not None:  # A locked or slow branch (comments/moderation/branches.py); editors skip slow mode.
        try:
            branches.check_reply(parent=parent, who=flagger_key(user_id=author.id, ip=ip), slow=not trusted, now=at)
        except branches.BranchRefused as exc:
            raise CommentError(exc.message, code=exc.code, retry_after=exc.retry_after) from exc
    html = render_comment(text)
    comment_id = ObjectId()  # Named in the claim on its text, before it is stored.
    earlier, claimed = same_text.claim_text(post=post, parent=parent, author=author, ip=ip, text=text, at=at,
                                            comment_id=comment_id)
    if earlier is not None:
        earlier = _summarise_stored(earlier, summarise=summarise)
        if summarise:
            signals.comment_posted.send(sender=Comment, comment=earlier, discussion=post, duplicate=True)
        return Posted(comment=earlier, reattached=reattached, duplicate=True,
                      same_form=bool(form_key) and earlier.form_key == form_key)
    verdict = antispam.judge(author=author, text=text, html=html, screening=screening, trusted=trusted,
                             vouching=vouching, confirmed=confirmed)
    fields = {"comment_id": comment_id, "discussion_id": post.id, "parent": parent, "author": author, "text": text,
              "html": html, "form_key": form_key, "status": verdict.status, "ip": ip or None}
    try:
        note, noted = note_and_state(post.id)  # Dropped once settled (comments/stores/summaries.py).
        comment, duplicate = _insert(fields, parent=parent, form_key=form_key, at=at, new_part=new_part)
        if parent is not None and not duplicate:  # A lock that landed meanwhile withdraws it (branches.py).
            _withdraw_if_locked(comment)
    except BaseException as exc:
        if claimed:
            recent_texts.release(claimed)  # Nothing stored (or withdrawn): the text may be sent again.
        if isinstance(exc, branches.BranchRefused):
            raise CommentError(exc.message, code=exc.code) from exc
        raise
    # Also after a duplicate: the first submit may have failed before this step.
    comment = _summarise_stored(comment, summarise=summarise, note=note, before=None if duplicate else noted)
    if summarise:
        signals.comment_posted.send(sender=Comment, comment=comment, discussion=post, duplicate=duplicate)
    return Posted(comment=comment, reattached=reattached, duplicate=duplicate, same_form=duplicate)


def _insert(fields: dict, *, parent: Comment | None, form_key: str | None, at: datetime | None,
            new_part: Callable[[], str]) -> tuple[Comment, bool]:
    """Store the comment under a fresh slug (derived from `form_key` when there is one);
    (the comment, False), or (the comment this form stored before, True)."""
    for attempt in range(SLUG_RETRIES):
        part = slugs.derived_part(form_key, attempt) if form_key else new_part()
        # full_slug keeps the microseconds, so replies within one millisecond
        # still sort in time order; `posted` is stored at BSON's precision.
        now = at or datetime.now(timezone.utc)
        if parent is None:
            slug, full_slug = slugs.root_slugs(posted=now, part=part)
        else:
            slug, full_slug = slugs.child_slugs(
                parent_slug=parent.slug, parent_full_slug=parent.full_slug, posted=now, part=part
            )
        # Inserted carrying its intent: not counted until counters.finish moves them.
        intent = Intent(id=ObjectId(), was=None, now=(fields["status"], False))
        try:
            return get_store().insert_comment(slug=slug, full_slug=full_slug, posted=to_millisecond(now),
                                              intent=intent, **fields), False
        except records.DiscussionFull as exc:
            # The operator's remedy (the exception's message) goes to the log.
            logger.error("%s", exc)
            raise CommentError(gettext(DISCUSSION_FULL), code="discussion_full") from exc
        except records.SlugTaken:
            earlier = get_store().find_by_slug(discussion_id=fields["discussion_id"], slug=slug) if form_key else None
            if earlier is not None and earlier.form_key == form_key:
                return earlier, True
        except PyMongoError as exc:
            landed = _landed(exc, discussion_id=fields["discussion_id"], slug=slug)
            if landed is None:
                raise
            return landed, False
    raise RuntimeError("could not draw a free comment slug")  # pragma: no cover - 5 collisions at 40 bits


def _landed(exc: PyMongoError, *, discussion_id: ObjectId, slug: str) -> Comment | None:
    """The comment an insert stored although its answer never came (the request's
    time ran out while the server was writing it): looked up by its slug, with a
    short budget of its own, so the reader is told it is stored. None when it is not
    there, cannot be looked up, or the error was not a timeout (a server that cannot
    be reached stored nothing to look for)."""
    if not (isinstance(exc, PyMongoError) and exc.timeout):
        return None
    try:
        return mongo.outside_request_budget(lambda: get_store().find_by_slug(discussion_id=discussion_id, slug=slug))
    except PyMongoError:
        return None


def _withdraw_if_locked(comment: Comment) -> None:
    """branches.withdraw_if_locked; when the database is too slow to answer that read
    (the budget spent), the reply stays stored and is answered as stored, not failed."""
    try:
        branches.withdraw_if_locked(comment)
    except PyMongoError as exc:
        if not mongo.is_outage(exc):
            raise


def _summarise_stored(comment: Comment, *, summarise: bool = True, note: ObjectId | None = None,
                      before: discussion_state.State | None = None) -> Comment:
    """Count `comment` (finish its intent: comments/stores/counters.py), bring the post's
    summary up to date (unless not `summarise`), drop the change's `note`; the comment as
    stored. It is stored whatever happens here, so the reader is never told it is not:
    when the database is too slow (the request's budget spent, its shard being moved),
    the note stays and `summaries.settle_overdue` finishes the counting and the summary."""
    try:
        applied = counters.finish(comment, store=get_store(), before=before, forget=False)
        if summarise:  # The state this comment's count left, not read again.
            refresh_summary(post_id=comment.discussion_id, state=applied)
        drop_note(comment.discussion_id, note, intents=[comment.intent.id] if comment.intent else [])
    except (PyMongoError, counters.Contended) as exc:
        if isinstance(exc, PyMongoError) and not mongo.is_outage(exc):
            raise
        logger.warning("Comment %s is stored; its discussion is settled later (%s).", comment.id, type(exc).__name__)
        return comment
    return replace(comment, intent=None)


# --- Authors changing their own comments ---------------------------------------------

def edit_window() -> timedelta:
    return timedelta(seconds=conf.get().edit_window)


def can_change(comment: Comment, viewer: Viewer, now: datetime | None = None) -> bool:
    """Whether `viewer` may still edit or delete `comment` (theirs, within the window)."""
    return comment.status in (APPROVED, PENDING) and viewer.owns(comment) and (
        (now or datetime.now(timezone.utc)) - comment.posted <= edit_window()
    )


def _check_can_change(comment: Comment, viewer: Viewer, now: datetime) -> None:
    if not viewer.owns(comment):
        raise CommentError(gettext(NOT_YOURS), code="not_yours")
    if comment.status not in (APPROVED, PENDING):
        raise CommentError(gettext(CANNOT_CHANGE), code="cannot_change")
    if now - comment.posted > edit_window():
        minutes = int(edit_window().total_seconds() // 60)
        raise CommentError(gettext(EDIT_TIME_OVER).format(minutes=minutes), code="edit_time_over")


def edit_comment(
    *, post: Discussion, comment: Comment, viewer: Viewer, text: str, ip: str | None = None,
    trusted: bool = False, now: datetime | None = None,
) -> Comment:
    """An author's edit of their own comment within COMMENTS_EDIT_WINDOW. It passes
    the checks a new comment does (closed discussion, ban, blocklist, pre-moderation),
    so a link edited in later is held just as it would have been at first; an edit
    never releases a comment that is held. CommentError when refused."""
    now = now or datetime.now(timezone.utc)
    _check_can_change(comment, viewer, now)
    if comments_closed(post=post, now=now):
        raise CommentError(gettext(CLOSED), code="closed")
    screening = _screen(author=comment.author, ip=ip)
    if text == comment.text:
        return comment
    html = render_comment(text)
    verdict = antispam.judge(
        author=comment.author, text=text, html=html, screening=screening, trusted=trusted, vouching=viewer.own,
        confirmed=viewer.confirmed,
    )
    status = PENDING if comment.status == PENDING else verdict.status
    note = note_unsettled(comment.discussion_id, slugs=[comment.slug])
    edited = get_store().update_text(comment_id=comment.id, text=text, html=html, status=status,
                                     edited=to_millisecond(now), was=comment.status)
    if edited is None:  # Gone, deleted or held meanwhile: nothing to edit.
        raise CommentError(gettext(CANNOT_CHANGE), code="cannot_change")
    settle(discussion_id=comment.discussion_id, slugs=[comment.slug], note=note)
    if edited.status != comment.status:
        signals.comment_status_changed.send(sender=Comment, comment_ids=[comment.id], status=edited.status)
    return edited


def delete_own_comment(*, comment: Comment, viewer: Viewer, now: datetime | None = None) -> None:
    """An author takes back their comment within COMMENTS_EDIT_WINDOW: it is deleted
    and its text emptied (their words are gone, also from the database); with
    replies, readers see a "[deleted]" placeholder in its place."""
    _check_can_change(comment, viewer, now or datetime.now(timezone.utc))
    note = note_unsettled(comment.discussion_id, slugs=[comment.slug])
    get_store().set_status(ids=[comment.id], status=DELETED, blank=True)
    settle(discussion_id=comment.discussion_id, slugs=[comment.slug], note=note)
    signals.comment_status_changed.send(sender=Comment, comment_ids=[comment.id], status=DELETED)


# --- Readers flagging comments ---------------------------------------------------------


def flagger_key(*, user_id: int | None, ip: str | None) -> str:
    """Who flags: a member by user id, anyone else by IP address (one flag each)."""
    return f"user:{user_id}" if user_id is not None else f"ip:{ip or 'unknown'}"


# How often a flagger rewrites the comment's flag count to catch up with others'.
FLAG_COUNT_ATTEMPTS = 20


def flag_comment(
    *, comment: Comment, flagger: str, reason: str, note: str = "", now: datetime | None = None
) -> bool:
    """Record a reader's flag; the flag that makes COMMENTS_FLAGS_TO_HOLD sends an
    approved comment to pending for an editor to judge. Returns False when this
    reader had flagged it already (nothing changes).

    Each admitted flag gets its own number from an atomic `$inc`, so of readers
    flagging at once exactly one reaches the threshold and holds the comment.
    """
    if not comment.approved:
        raise CommentError(gettext(CANNOT_FLAG), code="cannot_flag")
    added = flags.add_flag(comment_id=comment.id, discussion_id=comment.discussion_id, flagger=flagger,
                           reason=reason, note=note, at=to_millisecond(now or datetime.now(timezone.utc)))
    if not added:
        return False
    count = flags.add_flag_count(comment_id=comment.id)
    _store_flag_count(comment_id=comment.id, count=count)
    held = count == conf.get().flags_to_hold
    if held:
        unsettled = note_unsettled(comment.discussion_id, slugs=[comment.slug])
        get_store().set_status(ids=[comment.id], status=PENDING)
        settle(discussion_id=comment.discussion_id, slugs=[comment.slug], note=unsettled)
        signals.comment_status_changed.send(sender=Comment, comment_ids=[comment.id], status=PENDING)
    signals.comment_flagged.send(sender=Comment, comment=comment, reason=reason, count=count, held=held)
    return True


def _store_flag_count(*, comment_id: ObjectId, count: int) -> None:
    """Copy the flag count onto the comment (the moderation queue sorts by it). Two
    flaggers can `$set` theirs in the wrong order, so each reads the counter after
    its write and writes again while it differs: the last write is then followed by
    a read of the final count, which it equals. Bounded: under a flood of flags the
    next flagger's write carries the count on."""
    for _ in range(FLAG_COUNT_ATTEMPTS):
        get_store().set_flag_count(ids=[comment_id], flag_count=count)
        latest = flags.flag_count(comment_id=comment_id)
        if latest == count:
            return
        count = latest
