"""The rules of voting on comments: who may vote on what. Plain functions; no request
in sight (comments/views/votes.py asks, comments/votes/collection.py records)."""

from __future__ import annotations

from django.utils.translation import gettext, gettext_noop

from comments import conf, scores, signals
from comments.errors import Refused
from comments.posting import antispam, limits
from comments.records import APPROVED, Comment, Viewer
from comments.stores import counters
from comments.votes import collection as votes

NOT_VOTABLE = gettext_noop(
    "This comment cannot be voted on: only approved comments take votes, not those awaiting "
    "moderation, removed or deleted."
)
OWN_COMMENT = gettext_noop("You cannot vote on your own comment.")
BAD_VOTE = gettext_noop("Choose a vote: up, down or none.")
VOTED = {
    "up": gettext_noop("Your up vote is counted."),
    "down": gettext_noop("Your down vote is counted."),
    "none": gettext_noop("Your vote is taken back."),
}
# What a vote may say, as a form or a request body spells it.
CHOICES = tuple(scores.VALUES)
# The HTTP status of each refusal's code (the vote view's and a REST API's).
REFUSAL_STATUS = {"not_votable": 403, "own_comment": 403, "bad_vote": 400, "too_many_votes": 429}


class VoteRefused(Refused):
    """A vote the rules refuse; the message is for the reader."""


def parse_vote(raw: object) -> str:
    """The vote a form sent (up, down or none); VoteRefused for anything else."""
    if not isinstance(raw, str) or raw not in scores.VALUES:
        raise VoteRefused(gettext(BAD_VOTE), code="bad_vote")
    return raw


def check_votable(*, comment: Comment, viewer: Viewer) -> None:
    """VoteRefused unless `viewer` may vote on `comment`: approved and shown whole (not
    a placeholder), and not their own."""
    if comment.status != APPROVED or comment.placeholder:
        raise VoteRefused(gettext(NOT_VOTABLE), code="not_votable")
    if viewer.owns(comment):
        raise VoteRefused(gettext(OWN_COMMENT), code="own_comment")


def vote_on_comment(*, comment: Comment, viewer: Viewer, voter: str, vote: object, ip: str = "") -> votes.Cast:
    """Record `voter`'s `vote` (up, down, none) on `comment`: the rules first, then the
    per-minute limits of address `ip` (none without one), so a refused vote takes no
    slot of them; a vote that moved the tallies gives the discussion's cached pages a
    new version. VoteRefused or TooManyVotes when refused."""
    choice = parse_vote(vote)
    check_votable(comment=comment, viewer=viewer)
    check_vote_rate(ip=ip, comment=comment)
    cast = votes.cast(comment=comment, voter=voter, vote=choice)
    if cast.changed:
        counters.touch([comment.discussion_id])
        signals.comment_voted.send(sender=Comment, comment=cast.comment, vote=cast.vote)
    return cast


def voted_message(vote: str) -> str:
    """What the reader is told once their vote (up, down or none) is recorded."""
    return gettext(VOTED[vote])


TOO_MANY_VOTES = gettext_noop("Too many votes from your address. Please wait a minute, then vote again.")
# Votes are counted in fixed windows of a minute (comments/posting/limits.py).
VOTE_WINDOW = 60


class TooManyVotes(Refused):
    """Votes from one address over COMMENTS_VOTES_PER_IP(_PER_COMMENT) this minute."""

    def __init__(self, retry_after: int):
        super().__init__(gettext(TOO_MANY_VOTES), code="too_many_votes")
        self.retry_after = retry_after


def check_vote_rate(*, ip: str, comment: Comment) -> None:
    """Count one vote from `ip` on `comment` against the per-minute limits, shared by
    every worker and kept across restarts (comments/posting/limits.py); TooManyVotes once over
    either. Clearing cookies makes a new voter, not more votes from one address."""
    current = conf.get()
    now = antispam.clock()
    window = int(now // VOTE_WINDOW)
    ends = (window + 1) * VOTE_WINDOW
    for key, limit in ((f"vote:ip:{ip}:{comment.id}", current.votes_per_ip_per_comment),
                       (f"vote:ip:{ip}", current.votes_per_ip)):
        if not ip or limit <= 0:
            continue
        if not limits.take_slot(key=key, window=window, limit=limit, expires=ends + antispam.EXPIRY_MARGIN):
            raise TooManyVotes(retry_after=max(1, int(ends - now) + 1))
