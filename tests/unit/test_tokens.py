"""The comment form's signed token."""

import re

import pytest
from bson import ObjectId

from comments.posting import tokens


def test_a_token_reads_back_for_its_discussion():
    """The key comes back for the discussion the token was issued for."""
    discussion = ObjectId()
    token = tokens.issue(discussion_id=discussion)
    key = tokens.read(token, discussion_id=discussion, max_age=60)
    assert isinstance(key, str) and len(key) >= 16


def test_every_form_gets_its_own_key():
    """Two renders of a form never share a key (or they would share a comment)."""
    discussion = ObjectId()
    keys = {tokens.read(tokens.issue(discussion_id=discussion), discussion_id=discussion, max_age=60)
            for _ in range(50)}
    assert len(keys) == 50


def test_a_token_for_another_discussion_is_refused():
    """A form rendered for one post cannot post to another."""
    token = tokens.issue(discussion_id=ObjectId())
    with pytest.raises(tokens.TokenError, match=re.escape(tokens.TAMPERED)):
        tokens.read(token, discussion_id=ObjectId(), max_age=60)


@pytest.mark.parametrize("alter", [
    lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"),
    lambda t: "x" + t[1:],
    lambda t: "",
    lambda t: "not-a-token",
])
def test_an_altered_token_is_refused(alter):
    """Any change to the signed value is caught."""
    discussion = ObjectId()
    with pytest.raises(tokens.TokenError, match=re.escape(tokens.TAMPERED)):
        tokens.read(alter(tokens.issue(discussion_id=discussion)), discussion_id=discussion, max_age=60)


def test_an_old_token_is_refused_as_expired():
    """A token older than max_age says so, distinctly from tampering."""
    discussion = ObjectId()
    token = tokens.issue(discussion_id=discussion)
    with pytest.raises(tokens.TokenError, match=re.escape(tokens.EXPIRED)) as caught:
        tokens.read(token, discussion_id=discussion, max_age=-1)
    assert caught.value.code == "expired"


def test_a_form_sent_back_sooner_than_the_minimum_fill_time_is_refused():
    """check_fill_time refuses a token younger than min_seconds with TOO_FAST, and passes it later."""
    token = tokens.issue(discussion_id=ObjectId())
    issued = signing_time(token)
    with pytest.raises(tokens.TokenError, match=re.escape(tokens.TOO_FAST)) as caught:
        tokens.check_fill_time(token, min_seconds=5, now=issued + 4)
    assert caught.value.code == "too_fast"
    tokens.check_fill_time(token, min_seconds=5, now=issued + 5)


def test_no_minimum_fill_time_lets_any_form_through():
    """min_seconds=0 (the default setting) never refuses."""
    token = tokens.issue(discussion_id=ObjectId())
    tokens.check_fill_time(token, min_seconds=0, now=signing_time(token))


def signing_time(token: str) -> int:
    from django.core import signing

    return signing.loads(token, salt=tokens.SALT)["t"]
