"""infra/frozen.py's `evolved` and `made`: what `dataclasses.replace` and a frozen
record's class return, without running its `__init__`. Pure."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest
from bson import ObjectId
from hypothesis import given
from hypothesis import strategies as st

from comments.reading.listings import Shown
from comments.records import Comment, CommentAuthor
from infra.frozen import evolved, made

COMMENT = Comment(id=ObjectId(), discussion_id=ObjectId(), parent_id=None, slug="a", full_slug="x:a", thread="x",
                  posted=datetime(2026, 4, 1, tzinfo=UTC), author=CommentAuthor(id=3, name="Rosa"), text="t",
                  html="<p>t</p>")


@given(st.text(max_size=20), st.integers(0, 9), st.booleans())
def test_an_evolved_record_equals_the_replaced_one(reply_to, closes, folded):
    """The copy equals dataclasses.replace's, hashes alike, and the record is unchanged."""
    item = Shown(COMMENT, indent=2)
    copy = evolved(item, reply_to=reply_to, closes=closes, folded=folded)
    assert copy == dataclasses.replace(item, reply_to=reply_to, closes=closes, folded=folded)
    assert hash(copy) == hash(dataclasses.replace(item, reply_to=reply_to, closes=closes, folded=folded))
    assert item == Shown(COMMENT, indent=2)


def test_an_evolved_record_is_still_frozen_and_knows_its_fields():
    """The copy refuses assignment as the record does; a name that is not a field is a
    TypeError, as with dataclasses.replace."""
    copy = evolved(COMMENT, ip=None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        copy.slug = "b"  # type: ignore[misc]
    with pytest.raises(TypeError, match="Comment has no field colour"):
        evolved(COMMENT, colour="red")


def test_a_made_record_equals_the_one_its_class_makes():
    """Given every field, `made` returns what the class does (equal, hashing alike,
    frozen); a field missing or one too many is a TypeError, defaults are not filled in;
    and a comment read from its document is the one its class makes of the same values."""
    fields = {field.name: getattr(COMMENT, field.name) for field in dataclasses.fields(Comment)}
    copy = made(Comment, **fields)
    assert copy == Comment(**fields) and hash(copy) == hash(Comment(**fields))
    with pytest.raises(dataclasses.FrozenInstanceError):
        copy.slug = "b"  # type: ignore[misc]
    with pytest.raises(TypeError, match="CommentAuthor is made of every one of its fields: staff"):
        made(CommentAuthor, id=3, name="Rosa", email="")
    with pytest.raises(TypeError, match="colour"):
        made(CommentAuthor, id=3, name="Rosa", email="", staff=False, colour="red")
    assert Comment.from_doc(COMMENT.to_doc()) == COMMENT
    assert type(Comment.from_doc(COMMENT.to_doc()).author) is CommentAuthor
