"""What a host's REST API builds on: the app's second public module, beside
comments.api. A JSON front (Slugline's `api/`) shows, refuses and moderates exactly
what the app's own pages do only by calling what they call: the same viewer, the same
listings and placeholders, the same forms, rate limits and write services, the same
moderation queue. Those are many names that a host without a REST API never needs, so
they live here rather than in comments.api (which keeps the host contract, the records
and statuses, `comments_closed`, `post_comment` and `CommentError`: a REST API uses
those from there). Everything else in `comments` is the app's own and may change.

Public here:

- who is asking: `Viewer` (whose eyes a listing is for: a member, an editor, or a
  browser with the comments it posted), `viewer_for(request)` (a browser's, as the
  pages see it), `member_author(user)` (how a member signs a comment),
  `member_refusal(user, next_url=...)` (why this user may not comment now, as the form
  refuses them: a `MemberRefusal` with its `code`, `message` and the `url` that fixes
  it; None when they may);
- the settings as the app reads them: `comment_settings()` (`CommentsSettings`, read
  on each call: per page, depth and indent limits, lengths, cache seconds);
- reading, as the discussion and permalink pages list: `VIEWS` (each view's name ->
  label, from the one table of views and their listers), `parse_view`, `list_comments`
  (a page, by number or cursor: a `Listing` of `Shown` comments), `present` (one
  comment as a viewer may see it), `thread_of` (a comment's ancestors: a `Thread`),
  `visible_comment` (a comment by its slug path, if the viewer may see it);
- what a shared answer's cache key is made of: `discussion_version` (changes with
  every change to the discussion), `readers_tally` (a reader's listing's counts, from
  the counters), `store_in_use` (the comment store pages are read from);
- writing, beyond comments.api's `post_comment`: `edit_comment`, `delete_own_comment`,
  `flag_comment` with `flagger_key`, `REFUSAL_STATUS` (a `CommentError` code's HTTP
  status), `check_writer_rate` (the forms' rate limits, refusing with `RateLimited`,
  which carries `retry_after`), `Moving` (writes refused while comments move between
  stores);
- voting, as the vote buttons do: `vote_on_comment` (the rules, the per-address
  limits, the vote; a `VoteCast` with the reader's `vote` now, whether it `changed`
  and the `comment` after), `member_voter` (a member's voter key: one vote per member
  whatever the browser, device or token), `voted_message`, refusing with
  `VoteRefused` or `TooManyVotes` (with `retry_after`), `VOTE_REFUSAL_STATUS` (their
  codes' HTTP statuses), `VOTE_CHOICES` (up, down, none);
- the forms whose fields and messages a write body is checked by: `CommentForm`,
  `CommentTextMixin` (the text field's checks, for a form of one's own),
  `EditCommentForm`, `FlagForm` with `FLAG_REASONS` and `NOTE_MAX_LENGTH`;
- moderation, as the dashboard's queue: `QUEUE_TABS`, `QueueFilter`, `tab_counts`,
  `queue_page`, `moderate` (approve, spam or delete) and `ban_commenter`.

Import it where it is used (`from comments.rest import list_comments`), not from
settings: it reaches the app's modules.
"""

from __future__ import annotations

from comments.conf import CommentsSettings, get as comment_settings
from comments.moderation.flags import REASONS as FLAG_REASONS
from comments.moderation.queue import ban_commenter, moderate, queue_page, tab_counts
from comments.posting.antispam import RateLimited, check_writer_rate
from comments.posting.forms import (
    NOTE_MAX_LENGTH, CommentForm, CommentTextMixin, EditCommentForm, FlagForm,
)
from comments.posting.members import Refusal as MemberRefusal, refusal as member_refusal
from comments.posting.ownership import member_author, viewer_for
from comments.posting.services import (
    REFUSAL_STATUS, delete_own_comment, edit_comment, flag_comment, flagger_key,
)
from comments.reading.fragments import discussion_version, readers_tally, store_in_use
from comments.reading.listers import VIEWS, list_comments, parse_view
from comments.reading.listings import Listing, Shown, Thread, present, thread_of, visible_comment
from comments.records import QUEUE_TABS, QueueFilter, Viewer
from comments.stores.store_switch import Moving
from comments.votes.collection import Cast as VoteCast
from comments.votes.rules import (
    CHOICES as VOTE_CHOICES, REFUSAL_STATUS as VOTE_REFUSAL_STATUS, TooManyVotes, VoteRefused, vote_on_comment,
    voted_message,
)
from comments.votes.voters import member_key as member_voter

__all__ = [
    # Who is asking, and the settings.
    "Viewer", "member_author", "viewer_for", "MemberRefusal", "member_refusal", "CommentsSettings",
    "comment_settings",
    # Reading.
    "VIEWS", "Listing", "Shown", "Thread", "list_comments", "parse_view", "present", "thread_of",
    "visible_comment",
    # A shared answer's cache key.
    "discussion_version", "readers_tally", "store_in_use",
    # Writing.
    "REFUSAL_STATUS", "Moving", "RateLimited", "check_writer_rate", "delete_own_comment", "edit_comment",
    "flag_comment", "flagger_key",
    # Voting.
    "VOTE_CHOICES", "VOTE_REFUSAL_STATUS", "TooManyVotes", "VoteCast", "VoteRefused", "member_voter",
    "vote_on_comment", "voted_message",
    # The forms.
    "FLAG_REASONS", "NOTE_MAX_LENGTH", "CommentForm", "CommentTextMixin", "EditCommentForm", "FlagForm",
    # Moderation.
    "QUEUE_TABS", "QueueFilter", "ban_commenter", "moderate", "queue_page", "tab_counts",
]
