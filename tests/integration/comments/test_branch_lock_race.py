"""A lock set while replies are being posted below it (comments/moderation/branches.py):
no reply is left below the lock that was stored after the lock answered; a reply the
lock overtook is withdrawn (deleted, its counters moved back) and refused with the
lock's reason; the counters agree with a recount."""

from __future__ import annotations

import pytest

from comments.moderation import branches
from comments.posting import services
from comments.records import DELETED, CommentAuthor
from comments.stores import counters, get_store
from tests.threads import at_once

pytestmark = pytest.mark.usefixtures("each_store")

# Commenters posting at once, each a stream of replies until the lock refuses one
# (at most STREAM): replies are in flight whenever the lock lands.
COMMENTERS, STREAM, ROUNDS = 16, 40, 5


def below(comment) -> dict:
    """The comments below `comment` (itself left out), by id."""
    return {c.id: c for c in get_store().find_subthread(comment=comment) if c.id != comment.id}


def stream(post, parent, n: int):
    """A commenter's job: replies to `parent` one after another until one is refused;
    every answer, in order."""
    def job() -> list:
        author = CommentAuthor(id=None, name=f"Reader {n}", email=f"reader{n}@example.com")
        answers: list = []
        for i in range(STREAM):
            try:
                answers.append(services.post_comment(post=post, text=f"Reply {i} of {n} in the race", author=author,
                                                     parent_slug=parent.slug, ip=f"198.51.100.{n}"))
            except services.CommentError as exc:
                answers.append(exc)
                break
        return answers
    return job


@pytest.mark.stores("documents")
def test_no_reply_is_left_below_a_lock_that_was_stored_after_the_lock_answered(make_post, make_comment):
    """Streams of replies to a deep comment are posted while its ancestor is locked: the
    lock's job reads the branch as soon as the lock answers; every reply left below the
    lock is among those (stored before the answer), was answered as posted, and every
    other was refused as locked; the counters agree with a recount. Several rounds
    (unlocked between them) widen the race."""
    post = make_post()
    top = make_comment(post, text="Top")
    middle = make_comment(post, parent_slug=top.slug, text="Middle")
    deep = make_comment(post, parent_slug=make_comment(post, parent_slug=middle.slug, text="Below").slug,
                        text="Deep")
    for round_ in range(ROUNDS):
        branches.act(action="unlock", comment_id=middle.id)
        before = set(below(middle))

        def lock() -> set:
            branches.act(action="lock", comment_id=middle.id)
            return set(below(middle))  # Read once the lock has answered.

        outcomes = at_once([lock] + [stream(post, deep, round_ * COMMENTERS + n) for n in range(COMMENTERS)])
        seen_at_answer = outcomes[0]
        assert isinstance(seen_at_answer, set), seen_at_answer
        assert all(isinstance(o, list) for o in outcomes[1:]), outcomes[1:]
        answers = [answer for o in outcomes[1:] for answer in o]
        posted = {a.comment.id for a in answers if isinstance(a, services.Posted)}
        refused = [a for a in answers if not isinstance(a, services.Posted)]
        assert all(isinstance(a, services.CommentError) and a.code == "locked" for a in refused), refused
        now_below = below(middle)
        kept = {cid for cid, c in now_below.items() if c.status != DELETED} - before
        assert kept == posted
        assert kept <= seen_at_answer, "a reply stored after the lock answered was left below it"
        withdrawn = [c for cid, c in now_below.items() if cid not in before and c.status == DELETED]
        assert all(c.text == "" and c.form_key is None for c in withdrawn)
        assert len(refused) == COMMENTERS  # Each stream ended on the lock.
    assert counters.check(post.id, store=get_store()) is None


def test_a_reply_the_lock_overtook_is_withdrawn_in_every_store(make_post, make_comment, monkeypatch):
    """The lock lands just after a reply's check: the reply is withdrawn (deleted, text
    and form key emptied, nothing counted) and refused as locked; the same form sent
    again once unlocked is posted anew."""
    post = make_post()
    top = make_comment(post, text="Top")
    deep = make_comment(post, parent_slug=top.slug, text="Deep")
    checked = branches.check_reply

    def lock_lands_after_the_check(**kwargs) -> None:
        checked(**kwargs)
        branches.act(action="lock", comment_id=top.id)

    monkeypatch.setattr(branches, "check_reply", lock_lands_after_the_check)
    author = CommentAuthor(id=None, name="Late", email="late@example.com")
    send = dict(post=post, text="Just too late", author=author, parent_slug=deep.slug, form_key="form-late")
    with pytest.raises(services.CommentError) as refused:
        services.post_comment(**send)
    assert refused.value.code == "locked" and refused.value.message == branches.LOCKED
    [withdrawn] = [c for c in below(top).values() if c.id != deep.id]
    assert (withdrawn.status, withdrawn.text, withdrawn.form_key) == (DELETED, "", None)
    assert counters.check(post.id, store=get_store()) is None
    monkeypatch.setattr(branches, "check_reply", checked)
    branches.act(action="unlock", comment_id=top.id)
    again = services.post_comment(**send)
    assert not again.duplicate and again.comment.text == "Just too late"
    assert counters.check(post.id, store=get_store()) is None
