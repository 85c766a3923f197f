"""One `wp:comment` to what the import engine is handed (comments.api's `Importer`): a
SourceComment, an ImportRefusal naming its id and line, or the kind of thing skipped on
purpose; its time in UTC, and whether one of the export's authors wrote it."""

from __future__ import annotations

import functools
from datetime import UTC, datetime, timedelta
from typing import Protocol

from cms import posts
from cms.wxr.content import autop
from cms.wxr.parse import Channel, WxrComment, WxrItem
from comments.api import (
    APPROVED, DELETED, PENDING, SPAM, TIME_OUT_OF_RANGE, ImportRefusal, ReservedNames, SourceComment,
    normalise_email, utc_time,
)


class Notes(Protocol):
    """Where something the operator should know goes (the run's Outcome)."""

    def note(self, kind: str, text: str) -> None: ...


# `wp:comment_approved` to our statuses ("post-trashed": its post was trashed).
STATUSES = {
    "1": APPROVED,
    "approve": APPROVED,
    "0": PENDING,
    "hold": PENDING,
    "spam": SPAM,
    "trash": DELETED,
    "post-trashed": DELETED,
}
LINKBACKS = {"pingback": "pingbacks", "trackback": "trackbacks"}
COMMENT_TYPES = ("", "comment")

NO_ID = "no wp:comment_id"
NO_DATE = "no date"
UNKNOWN_TYPE = "comment type {type!r}"
UNKNOWN_APPROVAL = "unknown wp:comment_approved {value!r}"
LOCAL_TIME = "{what} (line {line}): no GMT time; its local time {local} was taken {how}"
BY_OFFSET = "with its post's offset from UTC ({offset})"
AS_UTC = "as UTC (its post gives no offset)"


def utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC)


def comment_time(comment: WxrComment, item: WxrItem) -> tuple[datetime | None, str | None]:
    """When the comment was posted (UTC), and a note when that came from its local
    time: `date_gmt` if the export has it, else the local `date` less the post's own
    offset from UTC, else the local date taken as UTC."""
    if comment.date_gmt is not None:
        return utc(comment.date_gmt), None
    if comment.date_local is None:
        return None, None
    offset = item.utc_offset
    how = AS_UTC if offset is None else BY_OFFSET.format(offset=_offset(offset))
    note = LOCAL_TIME.format(
        what=f"comment {comment.id}", line=comment.line, local=comment.date_local, how=how
    )
    try:
        return utc(comment.date_local - (offset or timedelta(0))), note
    except OverflowError:  # the offset takes it past year 9999 or before year 1
        return None, None


def _offset(offset: timedelta) -> str:
    minutes = int(offset.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def source_comment(
    comment: WxrComment, item: WxrItem, *, source: str, thread: str, outcome: Notes,
    channel: Channel | None = None, accounts: dict[str, posts.AuthorSummary] | None = None,
) -> SourceComment | ImportRefusal | str:
    """What the engine is handed for one `wp:comment`: a SourceComment, a Refusal, or
    the name of what it is when it is skipped on purpose (pingbacks, trackbacks).
    `channel`: the export's authors; a comment one of them wrote under their own name
    keeps it (`export_author`; an author's name is refused otherwise:
    comments/posting/commenters.py), and is theirs here when `accounts` (login -> the author
    this run found or made) has them."""
    if comment.type in LINKBACKS:
        return LINKBACKS[comment.type]
    if comment.type not in COMMENT_TYPES:
        return ImportRefusal(
            UNKNOWN_TYPE.format(type=comment.type), line=comment.line, id=comment.id
        )
    if not comment.id:
        return ImportRefusal(NO_ID, line=comment.line)
    if comment.approved not in STATUSES:
        return ImportRefusal(
            UNKNOWN_APPROVAL.format(value=comment.approved), line=comment.line, id=comment.id
        )
    posted, note = comment_time(comment, item)
    if posted is None and (comment.date_gmt or comment.date_local):
        return ImportRefusal(TIME_OUT_OF_RANGE, line=comment.line, id=comment.id)
    if posted is None:
        return ImportRefusal(NO_DATE, line=comment.line, id=comment.id)
    if utc_time(posted) is None:
        return ImportRefusal(TIME_OUT_OF_RANGE, line=comment.line, id=comment.id)
    if note:
        outcome.note("comments timed by their local time", note)
    login = export_author(comment, channel) if channel is not None else None
    return SourceComment(
        source=source,
        id=comment.id,
        thread=thread,
        parent=comment.parent_id,
        posted=posted,
        # WordPress stores comments as typed and adds paragraphs when it shows them (the
        # engine sanitises the HTML and keeps a body nested too deep as its text).
        html=autop(comment.content),
        status=STATUSES[comment.approved],
        author_name=comment.author_name,
        author_email=comment.author_email,
        author_url=comment.author_url,
        ip=comment.ip,
        line=comment.line,
        by_source_author=login is not None,
        author_id=(account.id or None) if (account := (accounts or {}).get(login or "")) else None,
    )


def export_author(comment: WxrComment, channel: Channel) -> str | None:
    """The login of the export's author who wrote `comment` under their own name, or
    None. Who wrote it: the author its WordPress user id names; for a visitor's (0) or
    a user id the export does not list, the author whose e-mail address it carries
    (an author's replies sent while logged out, or through an app). Under their own
    name: its name reads as their display name or login (comments/posting/names.py: in any
    spelling, its words in any order)."""
    if comment.user_id in channel.author_ids:
        login: str | None = channel.author_ids[comment.user_id]
    else:
        login = channel.author_emails.get(normalise_email(comment.author_email))
    if login is None or not _own_names(channel.authors.get(login, login), login).taken_by(comment.author_name):
        return None
    return login


@functools.lru_cache(maxsize=64)
def _own_names(name: str, login: str) -> ReservedNames:
    return ReservedNames.of([name, login])

