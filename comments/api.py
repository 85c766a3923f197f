"""The comments app's public API: what a host (Slugline's blog, or another project)
imports from the app. Everything else in `comments` is the app's own and may change.

Public here:

- the host contract: `BaseHost` (subclass it, override what differs; comments/host.py),
  `LatestComment` (what a discussion's summary lists), `MemberFacts` (a member's account
  as the queue shows it), `get_host()`;
- a discussion's page: `comment_section(request, discussion)`, the section that
  `{% comment_section discussion %}` draws (`{% load comments %}`), whose `messages`
  belong at the top of the page;
- reading comments: `latest_comments` (a discussion's newest, for feeds),
  `latest_comments_by_author` (an author's page), `comments_by_keys` (the comments a
  list page's summaries name), `comments_by_ids`, `comment_by_id`, `subthread`;
- authors: `discussions_commented_by`, `rename_author`, `member_authors`,
  `refresh_summary` (after a rename changed a summary's names), `touch_discussions`
  (a new version for their cached pages, after a change that moves no count);
- moderation previews for an editors' dashboard: `preview_ban` and the ban kinds
  `BAN_USER`, `BAN_EMAIL`, `BAN_IP`;
- a discussion's state for a host's editor: `comments_closed` (closed by hand or by
  age) and `close_after_days` (COMMENTS_CLOSE_AFTER_DAYS);
- background work: `finish_pending_changes` (moderation actions and the settling of
  changes cut short);
- writing as the comment form does: `post_comment` (the service the form and the JSON
  API call; `at`, `new_part` and `summarise=False` for seeded demo content, with
  `seeded_slug_part(rng)` for slugs the same seed makes again), refusing with
  `CommentError` (a `Refused`: its `code` and the form's `message`);
- imports: `register_import_format` (a host's own format for `import_comments`);
- for a host's own import format (the parser a registered format runs; the blog's
  WordPress importer, cms/wxr/, is one): the engine `Importer` (written in batches of
  the comment store's own size unless told; `IMPORT_BATCH_SIZE` is the documents store's), what a parser hands it (`SourceThread`, `SourceComment`, or an
  `ImportRefusal` naming the record's id and line; `utc_time` and `TIME_OUT_OF_RANGE`
  for a time it cannot keep), its end summary `ImportReport`, the faults `BadSource`
  (a malformed file, raised after what came before it was written) and `EmptySource`;
  reading the file: `open_import_file` (a path, with a progress bar) and `read_xml`
  (the safe streaming XML reader: no entities, no external DTDs; each element's line
  in its `XML_LINE` attribute); commenters as the comment form cleans them:
  `normalise_email` (one spelling per mailbox), `ReservedNames` (names no one else may
  take, as `taken_by` compares them) and `forget_reserved_names` (after making an
  author mid-run, so their name is reserved for the comments that follow);
- records and errors: `Comment`, `CommentAuthor`, the statuses `APPROVED`, `PENDING`,
  `SPAM`, `DELETED`, and `Refused` (the base of the app's refusals, with a `code`);
- signals (comments/signals.py): `comment_posted`, `comment_status_changed`,
  `comment_flagged`, `comment_voted`;
- a member's own pages and data (comments/reading/members.py; one block at the end):
  `member_comments` (their comments, every status or only approved ones),
  `replies_to_member` (approved replies to their comments), a page of either a
  `MemberPage` after a signed cursor (`BadPageCursor` for a damaged one),
  `all_member_comments` and `member_votes` (everything, in batches: a data download),
  `comment_permalink`, `address_subscriptions` and `subscriptions_manage_url` (the
  subscription manage page of an address, with a fresh link);
- erasing a closed account's data (comments/erasure/): `start_erasure` records it,
  `run_erasure` does a bounded share of it, `erasure` says where it stands (an
  `Erasure`, with no personal data), `continue_erasures` finishes those cut short
  (the background worker's round);
- for a host's own REST API: `take_rate_slot` (one action counted in a shared, fixed
  rate window, as the comment forms' limits are) and `EMPTY_TEXT` (the form's refusal
  of an empty comment, in its own words); the rest of what a REST API builds on (the
  viewer, the listings, the other writes, the forms, the moderation queue) is the
  app's second public module, comments/rest.py, whose docstring says why.

Import it where it is used (`from comments import api as comments_api`), not from
settings: it reaches the app's modules.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator

from bson import ObjectId
from django.http import HttpRequest
from django.urls import reverse

from comments import conf, slugs
from comments.addresses import normalise as normalise_email
from comments.erasure import jobs as _erasures, work as _erasing
from comments.erasure.jobs import Erasure
from comments.errors import Refused
from comments.host import BaseHost, Discussion, LatestComment, MemberFacts, MemberPicture, get_host
from comments.moderation import changes, queue as moderation
from comments.moderation.blocklist import BAN_EMAIL, BAN_IP, BAN_USER
from comments.notifications import links as _links, subscriptions as _subscriptions
from comments.notifications.subscriptions import Subscription
from comments.posting import limits, services
from comments.posting.forms import EMPTY_TEXT
from comments.posting.names import Reserved as ReservedNames, forget as forget_reserved_names
from comments.posting.services import CommentError, post_comment
from comments.reading import members as _members, sections
from comments.reading.avatars import Avatar, avatar_for as member_avatar
from comments.reading.cursors import BadCursor as BadPageCursor
from comments.reading.members import MemberPage
from comments.reading.sections import Section
from comments.records import APPROVED, DELETED, PENDING, SPAM, Comment, CommentAuthor
from comments.signals import comment_flagged, comment_posted, comment_status_changed, comment_voted
from comments.stores import counters, get_store, summaries
from comments.transfer import importing
from comments.transfer.import_files import LINE as XML_LINE, open_source as open_import_file, read_xml
from comments.transfer.import_records import (
    TIME_OUT_OF_RANGE, BadSource, EmptySource, Refusal as ImportRefusal, Report as ImportReport,
    SourceComment, SourceThread, utc_time,
)
from comments.transfer.importing import BATCH_SIZE as IMPORT_BATCH_SIZE, Importer

__all__ = [
    "APPROVED", "BAN_EMAIL", "BAN_IP", "BAN_USER", "DELETED", "EMPTY_TEXT", "PENDING", "SPAM", "BaseHost",
    "Comment", "CommentAuthor", "Discussion", "LatestComment", "MemberFacts", "MemberPicture", "Refused", "Section", "close_after_days",
    "comment_by_id", "comment_flagged", "comment_posted", "comment_section", "comment_status_changed",
    "comment_voted", "comments_by_ids", "comments_by_keys", "comments_closed",
    "discussions_commented_by", "finish_pending_changes", "get_host", "latest_comments",
    "latest_comments_by_author", "member_authors", "preview_ban", "refresh_summary",
    "register_import_format", "rename_author", "subthread", "take_rate_slot", "touch_discussions",
    # Writing.
    "CommentError", "post_comment", "seeded_slug_part",
    # For a host's own import format.
    "IMPORT_BATCH_SIZE", "TIME_OUT_OF_RANGE", "XML_LINE", "BadSource", "EmptySource", "ImportRefusal",
    "ImportReport", "Importer", "ReservedNames", "SourceComment", "SourceThread", "forget_reserved_names",
    "normalise_email", "open_import_file", "read_xml", "utc_time",
    # A member's own pages and data.
    "Avatar", "BadPageCursor", "MemberPage", "Subscription", "address_subscriptions", "all_member_comments",
    "comment_permalink", "member_avatar", "member_comments", "member_votes", "replies_to_member", "subscriptions_manage_url",
    # Erasing a member's data.
    "Erasure", "continue_erasures", "erasure", "run_erasure", "start_erasure",
]


def comment_section(request: HttpRequest, discussion: Discussion) -> Section:
    """The comment section a host's page of `discussion` shows (comments/reading/sections.py):
    call it from the view to put its `messages` at the top of the page; the page's
    `{% comment_section %}` then draws the same section."""
    return sections.of(request, discussion)


def latest_comments(*, discussion_id: ObjectId, limit: int) -> list[Comment]:
    """The discussion's newest comments that readers see, newest first."""
    return get_store().find_latest(discussion_id=discussion_id, limit=limit)


def latest_comments_by_author(*, author_id: int, limit: int) -> list[Comment]:
    """The newest comments a member wrote that readers see, on any discussion, newest first."""
    return get_store().find_latest_by_author(author_id=author_id, limit=limit)


def comments_by_keys(*, keys: Iterable[tuple[ObjectId, str]]) -> list[Comment]:
    """The comments named by (discussion id, slug), in one query; those gone are left out."""
    return get_store().find_by_keys(keys=keys)


def comments_by_ids(*, ids: Iterable[ObjectId]) -> list[Comment]:
    """The comments with these ids, newest first; those gone are left out."""
    return get_store().find_by_ids(ids=ids)


def comment_by_id(comment_id: ObjectId | str) -> Comment | None:
    """The comment with this id (any status), or None."""
    return get_store().find_by_id(comment_id)


def subthread(*, comment: Comment) -> list[Comment]:
    """The comment and every reply below it, in threaded order."""
    return get_store().find_subthread(comment=comment)


def discussions_commented_by(*, author_id: int) -> list[ObjectId]:
    """The ids of the discussions a member commented on, sorted."""
    return get_store().find_discussion_ids_by_author(author_id=author_id)


def rename_author(*, author_id: int, name: str) -> int:
    """Give a member's comments their new display name; how many changed. The host
    then refreshes what it shows of them (its summaries' names, cached pages)."""
    return get_store().set_author_name(author_id=author_id, name=name)


def member_authors() -> list[CommentAuthor]:
    """Every member author as the comments name them (to find names gone stale)."""
    return get_store().find_member_authors()


def refresh_summary(*, discussion_id: ObjectId) -> int:
    """Recount a discussion's comments and store its summary on the host; the count."""
    return summaries.refresh_summary(post_id=discussion_id)


def touch_discussions(discussion_ids: Iterable[ObjectId]) -> None:
    """Give these discussions' cached pages a new version (a change that moves no
    count, such as a commenter's new name)."""
    counters.touch(discussion_ids)


def preview_ban(*, comment_id: ObjectId) -> moderation.BanPreview | None:
    """What banning this comment's author would record and mark; None if it is gone."""
    return moderation.preview_ban(comment_id=comment_id)


def comments_closed(*, discussion: Discussion) -> bool:
    """Whether `discussion` takes no more comments: closed by hand, or by its age."""
    return services.comments_closed(post=discussion)


def close_after_days() -> int:
    """Days after publication a discussion closes by itself (0: never)."""
    return conf.get().close_after_days


def finish_pending_changes() -> int:
    """Finish every moderation action cut short (an interrupted process), then settle
    every discussion with a change whose settling was cut short (its comments'
    counting, placeholders and its summary: comments/stores/summaries.py); how many."""
    return changes.finish_pending() + summaries.settle_overdue()


def seeded_slug_part(rng: random.Random) -> str:
    """A comment slug part drawn from `rng`, for `post_comment(new_part=...)`: seeded
    demo content gets the same slugs again from the same seed."""
    return "".join(rng.choice(slugs.PART_ALPHABET) for _ in range(slugs.PART_LENGTH))


def register_import_format(name: str, run: str, *, options: tuple[str, ...] = ()) -> None:
    """Let `import_comments --format name` call `run` (a dotted path, imported when used)."""
    importing.register_format(name, run, options=options)


# --- For a host's own REST API -----------------------------------------------------------


def take_rate_slot(*, key: str, window: int, limit: int, expires: float) -> bool:
    """Count one action of `key` in fixed window number `window` (shared by every
    worker, in MongoDB): True if among the first `limit`, False (nothing stored) past
    it. `expires` (a Unix time after the window's end) is when the count may go."""
    return limits.take_slot(key=key, window=window, limit=limit, expires=expires)


# --- A member's own pages and data (comments/reading/members.py) --------------------------

def member_comments(*, author_id: int, cursor: str | None, limit: int, approved_only: bool) -> MemberPage:
    """A page of a member's comments on any discussion, newest first, after `cursor`
    (None: the first page): every status for their own page, only approved ones
    (`approved_only`) for others. BadPageCursor for a cursor altered or of another list."""
    return _members.comments_of(author_id=author_id, cursor=cursor, limit=limit, approved_only=approved_only)


def replies_to_member(*, author_id: int, cursor: str | None, limit: int) -> MemberPage:
    """A page of the approved replies others wrote to a member's newest comments
    (comments/reading/members.py says how many), newest first, after `cursor`."""
    return _members.replies_to(author_id=author_id, cursor=cursor, limit=limit)


def all_member_comments(*, author_id: int) -> Iterator[Comment]:
    """Every comment of a member, any status, newest first, read in batches."""
    return _members.all_comments_of(author_id=author_id)


def member_votes(*, user_id: int) -> Iterator[dict]:
    """Every vote a member cast signed in: dicts of `comment_id`, `discussion_id`,
    `vote` ("up" or "down") and `changed` (when), oldest first."""
    return _members.votes_of(user_id=user_id)


def comment_permalink(*, discussion: Discussion, comment: Comment) -> str:
    """The path of a comment's own page (its permalink), with its anchor."""
    return reverse("comments:permalink", args=[discussion.slug, comment.slug]) + "#" + comment.anchor


def address_subscriptions(*, email: str) -> list[Subscription]:
    """Every active notification subscription of an address, oldest first."""
    return _subscriptions.of_address(email=email)


def subscriptions_manage_url(*, email: str) -> str | None:
    """The path of the page that lists and stops an address's subscriptions, with a new
    link (it works for NOTIFICATIONS_MANAGE_MAX_AGE): at the host's site-wide mount, else
    under a discussion of the address's; None without either."""
    about = _subscriptions.of_address(email=email)
    return _links.for_address("manage", token=_subscriptions.manage_token(email), about=about)


# --- Erasing a member's data (comments/erasure/) ----------------------------------------------

def start_erasure(*, user_id: int, emails: list[str]) -> Erasure:
    """Record the erasure of a member's data in the comments app (their comments, votes,
    subscriptions, the mail to their `emails`); nothing is changed yet. Started twice
    for one member before it is done, it is the same erasure."""
    return _erasures.start(user_id=user_id, emails=emails)


def run_erasure(*, erasure_id: ObjectId, seconds: float) -> Erasure | None:
    """Do as much of an erasure as about `seconds` allow (within a request's MongoDB
    budget, in a request); where it stands after, None for an unknown id."""
    return _erasing.run(erasure_id, seconds=seconds)


def erasure(*, erasure_id: ObjectId) -> Erasure | None:
    """Where an erasure stands (None: no such erasure)."""
    return _erasures.find(erasure_id)


def continue_erasures(*, seconds: float) -> int:
    """Run the erasures not done (cut short, or started by a request), oldest first, for
    about `seconds`; how many are done now."""
    return _erasing.continue_all(seconds=seconds)
