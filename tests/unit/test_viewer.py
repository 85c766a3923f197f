"""Who sees what: the rule `comments.records.Viewer` holds, for every status, kind of
viewer and ownership. Pure: no database (the functions here take no fixture).
"""

from __future__ import annotations

import itertools
from datetime import datetime, timezone

import pytest
from bson import ObjectId

from comments.records import (
    APPROVED,
    DELETED,
    HIDDEN,
    PENDING,
    READERS,
    SPAM,
    STATUSES,
    Comment,
    CommentAuthor,
    Tally,
    Viewer,
)

MEMBER_ID = 7
COMMENT_ID = ObjectId("0123456789abcdef01234567")


def comment(*, status: str, placeholder: bool = False, author_id: int | None = None) -> Comment:
    return Comment(
        id=COMMENT_ID, discussion_id=ObjectId("aaaaaaaaaaaaaaaaaaaaaaaa"), parent_id=None, slug="ab",
        full_slug="2026.01.01.00.00.00.000000:ab", thread="2026",
        posted=datetime(2026, 1, 1, tzinfo=timezone.utc),
        author=CommentAuthor(id=author_id, name="Ann", email="ann@example.org"), text="Hi", html="<p>Hi</p>",
        status=status, placeholder=placeholder,
    )


# The kinds of viewer: a reader, a logged-in member, a browser that posted, an editor.
KINDS = {
    "reader": Viewer(),
    "member": Viewer(user_id=MEMBER_ID),
    "browser": Viewer(own=frozenset({ObjectId("bbbbbbbbbbbbbbbbbbbbbbbb")})),
    "editor": Viewer(user_id=1, editor=True),
}
# How the comment relates to the viewer: not theirs, theirs by user id, by the browser's token.
OWNERSHIP = ("other", "by_user_id", "by_token")


def viewer_and_comment(kind: str, ownership: str, status: str, placeholder: bool) -> tuple[Viewer, Comment]:
    viewer = KINDS[kind]
    author_id = None
    if ownership == "by_user_id":
        viewer = Viewer(user_id=viewer.user_id or MEMBER_ID, own=viewer.own, editor=viewer.editor)
        author_id = viewer.user_id
    elif ownership == "by_token":
        viewer = Viewer(user_id=viewer.user_id, own=viewer.own | {COMMENT_ID}, editor=viewer.editor)
    return viewer, comment(status=status, placeholder=placeholder, author_id=author_id)


CASES = list(itertools.product(KINDS, OWNERSHIP, STATUSES, (False, True)))


def expected_sees(kind: str, ownership: str, status: str, placeholder: bool) -> bool:
    if status == APPROVED or placeholder:
        return True
    if status == PENDING:
        return kind == "editor" or ownership != "other"
    return False  # spam and deleted, not standing for replies


def expected_whole(kind: str, ownership: str, status: str, placeholder: bool) -> bool:
    if status == APPROVED:
        return True
    if status == PENDING:
        return kind == "editor" or (ownership != "other" and not placeholder)
    return False


@pytest.mark.parametrize("kind,ownership,status,placeholder", CASES)
def test_a_listing_shows_approved_placeholders_and_pending_to_their_author_or_an_editor(
    kind, ownership, status, placeholder
):
    viewer, seen = viewer_and_comment(kind, ownership, status, placeholder)
    assert viewer.sees(seen) is expected_sees(kind, ownership, status, placeholder)


@pytest.mark.parametrize("kind,ownership,status,placeholder", CASES)
def test_text_and_author_are_shown_only_for_approved_or_seen_pending_comments(
    kind, ownership, status, placeholder
):
    """A placeholder loses its text, except a pending one for an editor; an author's own
    pending comment that stands as a placeholder is drawn as one (the listing rule)."""
    viewer, seen = viewer_and_comment(kind, ownership, status, placeholder)
    assert viewer.sees_whole(seen) is expected_whole(kind, ownership, status, placeholder)


@pytest.mark.parametrize("kind,ownership,status,placeholder", CASES)
def test_whatever_is_shown_whole_is_listed(kind, ownership, status, placeholder):
    viewer, seen = viewer_and_comment(kind, ownership, status, placeholder)
    assert not viewer.sees_whole(seen) or viewer.sees(seen)


@pytest.mark.parametrize("kind,ownership,status,placeholder", CASES)
def test_a_listed_comment_not_shown_whole_is_drawn_as_a_placeholder(kind, ownership, status, placeholder):
    """What a listing shows is either whole or a placeholder, except a viewer's own
    pending comment that stands for replies: a placeholder in the listing's counts and
    in the page alike."""
    viewer, seen = viewer_and_comment(kind, ownership, status, placeholder)
    drawn_as_placeholder = viewer.sees_placeholder(status=status, placeholder=placeholder)
    if viewer.sees(seen):
        assert viewer.sees_whole(seen) is not drawn_as_placeholder
    editor_sees_it = kind == "editor" and status == PENDING
    assert drawn_as_placeholder is (placeholder and status in HIDDEN and not editor_sees_it)


@pytest.mark.parametrize("kind,ownership", list(itertools.product(KINDS, OWNERSHIP)))
def test_a_viewer_owns_a_comment_by_user_id_or_browser_token(kind, ownership):
    viewer, seen = viewer_and_comment(kind, ownership, APPROVED, False)
    assert viewer.owns(seen) is (ownership != "other")


def test_an_anonymous_comment_is_owned_by_no_member():
    """A comment without an author id is not owned by a logged-in member for that."""
    assert not Viewer(user_id=MEMBER_ID).owns(comment(status=PENDING, author_id=None))


@pytest.mark.parametrize("kind,status", list(itertools.product(KINDS, STATUSES)))
def test_statuses_seen_whoever_wrote_them(kind, status):
    """What the one-document store's query lists by status alone."""
    assert KINDS[kind].sees_status(status) is (status == APPROVED or (kind == "editor" and status == PENDING))


@pytest.mark.parametrize("viewer,shared", [
    (READERS, True),
    (Viewer(confirmed=frozenset({"ann@example.org"})), True),
    (Viewer(editor=True, user_id=3), False),
    (Viewer(user_id=3), False),
    (Viewer(own=frozenset({ObjectId()})), False),
])
def test_only_readers_who_see_what_everyone_sees_share_cached_pages(viewer, shared):
    assert viewer.shared is shared


def test_a_tally_counts_placeholders_as_the_viewer_sees_them():
    groups = [
        {"_id": {"s": APPROVED}, "n": 5},
        {"_id": {"s": PENDING, "p": True}, "n": 2},
        {"_id": {"s": DELETED, "p": True}, "n": 1},
        {"_id": {"s": SPAM, "p": True}, "n": 1},
    ]
    assert Tally.from_groups(groups, READERS) == Tally(total=9, placeholders=4)
    assert Tally.from_groups(groups, KINDS["editor"]) == Tally(total=9, placeholders=2)
