"""What the API's write endpoints do, through the services the HTML forms call: the
same forms check the fields, the same rate limits count the writes, the same
services store them and refuse them (`Refused` carries the form's message)."""

from __future__ import annotations

from typing import Any

from comments.api import PENDING, Comment, CommentError, post_comment
from comments.rest import (
    REFUSAL_STATUS, VOTE_REFUSAL_STATUS, TooManyVotes, Viewer, VoteRefused, check_writer_rate,
    delete_own_comment, edit_comment, flag_comment, flagger_key, member_author, member_refusal, member_voter,
    present, vote_on_comment, voted_message,
)
from infra import clients

from api import problems, reading
from api.problems import Refused
from api.forms import EditCommentForm, FlagForm, NewCommentForm

# A migration's last pass freezes writes for about this long (as the pages say).
MOVING_RETRY_SECONDS = 60


def _check(form) -> None:
    """Refuse a form that does not validate: its first message, and every one in `errors`."""
    if form.is_valid():
        return
    errors = problems.form_errors(form)
    raise Refused(400, errors[0]["message"], code=errors[0]["code"], errors=errors)


def _service_refusal(exc: CommentError) -> Refused:
    field = "parent" if exc.code == "bad_parent" else None
    return Refused(REFUSAL_STATUS.get(exc.code, 400), exc.message, code=exc.code,
                   errors=[{"field": field, "message": exc.message, "code": exc.code}],
                   retry_after=exc.retry_after or None)


def _shown(comment: Comment, *, post, viewer: Viewer) -> dict[str, Any]:
    return reading.comment_data(present(comment, viewer), post_slug=post.slug, viewer=viewer)


def post(request, *, post, body: dict, viewer: Viewer) -> tuple[int, dict[str, Any]]:
    """A member's new comment: 201 and the comment, or 200 and the one they posted a
    moment ago with the same text in the same place (nothing stored twice)."""
    form = NewCommentForm(data=body)
    ip = clients.client_ip(request)
    check_writer_rate(action="post", ip=ip, viewer=viewer)
    _check(form)
    barred = member_refusal(request.auth, next_url=post.get_absolute_url())
    if barred is not None:
        # An account that must verify its address first, or any account where comments
        # are anonymous only, as the form refuses it.
        detail = f"{barred.message} {request.build_absolute_uri(barred.url)}" if barred.url else barred.message
        raise Refused(403, detail, code=barred.code, errors=[{"field": None, "message": detail, "code": barred.code}])
    author = member_author(request.auth)
    try:
        posted = post_comment(
            post=post, text=form.cleaned_data["text"], author=author, parent_slug=form.cleaned_data["parent"] or None,
            ip=ip, trusted=viewer.editor, vouching=viewer.own, confirmed=viewer.confirmed,
        )
    except CommentError as exc:
        raise _service_refusal(exc) from None
    if posted.duplicate:
        outcome = "posted_before"
    else:
        outcome = "awaiting_moderation" if posted.pending else "posted"
    data = {"comment": _shown(posted.comment, post=post, viewer=viewer), "outcome": outcome,
            "reattached": posted.reattached}
    return (200 if posted.duplicate else 201), data


def edit(request, *, post, comment: Comment, text: str, viewer: Viewer) -> dict[str, Any]:
    """An author's edit of their comment (the edit form's checks and the same service)."""
    form = EditCommentForm(data={"text": text})
    ip = clients.client_ip(request)
    check_writer_rate(action="edit", ip=ip, viewer=viewer)
    _check(form)
    try:
        edited = edit_comment(post=post, comment=comment, viewer=viewer, text=form.cleaned_data["text"],
                              ip=ip, trusted=viewer.editor)
    except CommentError as exc:
        raise _service_refusal(exc) from None
    outcome = "awaiting_moderation" if edited.status == PENDING else "edited"
    return {"comment": _shown(edited, post=post, viewer=viewer), "outcome": outcome, "reattached": False}


def delete(*, comment: Comment, viewer: Viewer) -> None:
    try:
        delete_own_comment(comment=comment, viewer=viewer)
    except CommentError as exc:
        raise _service_refusal(exc) from None


def flag(request, *, comment: Comment, body: dict, viewer: Viewer) -> dict[str, Any]:
    """A reader's flag with a reason (the flag form's reasons and limits): `counted`
    is false when they had flagged it before."""
    form = FlagForm(data=body)
    ip = clients.client_ip(request)
    check_writer_rate(action="flag", ip=ip, viewer=viewer)
    _check(form)
    try:
        counted = flag_comment(
            comment=comment, flagger=flagger_key(user_id=viewer.user_id, ip=ip),
            reason=form.cleaned_data["reason"], note=form.cleaned_data["note"],
        )
    except CommentError as exc:
        raise _service_refusal(exc) from None
    return {"counted": counted}


def vote(request, *, comment: Comment, choice: object, viewer: Viewer) -> dict[str, Any]:
    """A member's vote (up, down, none) as the vote buttons cast it: by their account,
    so one vote per member whether it comes from a session or a token, under the same
    rules and per-address limits; the comment's counts after it."""
    try:
        # `request.auth`: the member the session or token is (the endpoints take no stranger).
        cast = vote_on_comment(comment=comment, viewer=viewer, voter=member_voter(request.auth.pk), vote=choice,
                               ip=clients.client_ip(request))
    except TooManyVotes as exc:
        raise Refused(429, exc.message, code=exc.code, retry_after=exc.retry_after) from None
    except VoteRefused as exc:
        field = "vote" if exc.code == "bad_vote" else None
        raise Refused(VOTE_REFUSAL_STATUS.get(exc.code, 400), exc.message, code=exc.code,
                      errors=[{"field": field, "message": exc.message, "code": exc.code}]) from None
    voted = cast.comment
    return {"vote": cast.vote, "up": voted.votes_up, "down": voted.votes_down, "score": voted.score,
            "slug": voted.slug, "message": voted_message(cast.vote)}
