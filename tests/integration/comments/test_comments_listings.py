"""What a page of comments shows to whom (comments/reading/listings.py) against the real server:
each status, seen by a reader, the comment's author and an editor; placeholders;
counts and cursors over a discussion with hidden comments."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from django.core.exceptions import BadRequest

from comments.moderation import queue as moderation
from comments.reading import listers, listings
from comments.records import APPROVED, DELETED, PENDING, READERS, SPAM, CommentAuthor, Viewer
from comments.stores import get_store

pytestmark = pytest.mark.usefixtures("each_store")

BASE = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
EDITOR = Viewer(user_id=99, editor=True)


def shown(post, viewer=READERS, **query) -> list[listings.Shown]:
    return listers.list_comments(discussion_id=post.id, view=query.pop("view", "threaded"), viewer=viewer,
                               **query).shown


def texts(post, viewer=READERS) -> list[str]:
    return [item.placeholder or item.comment.text for item in shown(post, viewer)]


@pytest.fixture
def trio(make_post, make_comment):
    """A post with three top-level comments, "before", "middle" and "after"."""
    post = make_post()
    made = [make_comment(post, text=t, at=BASE + timedelta(minutes=i))
            for i, t in enumerate(["before", "middle", "after"])]
    return post, made


@pytest.mark.parametrize("status,reader,author,editor", [
    (APPROVED, True, True, True),
    (PENDING, False, True, True),
    (SPAM, False, False, False),
    (DELETED, False, False, False),
])
def test_each_status_is_listed_for_reader_author_and_editor_as_designed(trio, status, reader, author, editor):
    """Approved: everyone; pending: its author and editors; spam and deleted (without replies): nobody."""
    post, made = trio
    middle = made[1]
    get_store().set_status(ids=[middle.id], status=status)
    own = Viewer(own=frozenset({middle.id}))
    for viewer, expected in [(READERS, reader), (own, author), (EDITOR, editor)]:
        listed = texts(post, viewer)
        assert listed == (["before", "middle", "after"] if expected else ["before", "after"]), viewer


def test_a_pending_comment_carries_the_awaiting_notice_only_where_shown(trio):
    """The author and editors see a pending comment marked as awaiting moderation."""
    post, made = trio
    get_store().set_status(ids=[made[1].id], status=PENDING)
    for viewer in (Viewer(own=frozenset({made[1].id})), EDITOR):
        items = shown(post, viewer)
        assert [item.awaiting for item in items] == [False, True, False]


def test_a_member_sees_their_own_pending_comment_by_user_id(make_post, make_comment):
    """A logged-in author sees their pending comment on any device (by user id)."""
    post = make_post()
    mine = make_comment(post, author=CommentAuthor(id=12, name="Twelve"))
    get_store().set_status(ids=[mine.id], status=PENDING)
    assert texts(post, Viewer(user_id=12)) == [mine.text]
    assert texts(post, Viewer(user_id=13)) == []


def test_counts_match_what_each_viewer_is_shown(trio):
    """total and comment_count count exactly what the page lists for that viewer."""
    post, made = trio
    get_store().set_status(ids=[made[0].id], status=PENDING)
    get_store().set_status(ids=[made[2].id], status=SPAM)
    for viewer, count in [(READERS, 1), (Viewer(own=frozenset({made[0].id})), 2), (EDITOR, 2)]:
        listing = listers.list_comments(discussion_id=post.id, view="threaded", viewer=viewer)
        assert listing.total == listing.comment_count == len(listing.shown) == count


def test_a_deleted_parent_shows_as_a_placeholder_and_its_replies_stay(make_post, make_comment):
    """Readers see "[deleted]" without text or author in the parent's place, then its replies, threaded."""
    post = make_post()
    parent = make_comment(post, text="Parent words", at=BASE)
    reply = make_comment(post, text="Reply words", parent_slug=parent.slug, at=BASE + timedelta(minutes=1))
    moderation.moderate(action="delete", comment_ids=[parent.id])
    for viewer in (READERS, EDITOR):
        items = shown(post, viewer)
        assert [item.comment.slug for item in items] == [parent.slug, reply.slug]
        assert items[0].placeholder == "[deleted]"
        assert items[0].comment.text == items[0].comment.html == items[0].comment.author.name == ""
        assert items[1].comment.text == "Reply words" and items[1].indent == 1
    listing = listers.list_comments(discussion_id=post.id, view="threaded")
    assert (listing.total, listing.comment_count) == (2, 1)


def test_removing_a_subthread_hides_it_whole(make_post, make_comment):
    """An editor's remove-thread takes the comment and all replies below it off every page."""
    post = make_post()
    keep = make_comment(post, text="Keep", at=BASE)
    root = make_comment(post, text="Root", at=BASE + timedelta(minutes=1))
    child = make_comment(post, text="Child", parent_slug=root.slug, at=BASE + timedelta(minutes=2))
    make_comment(post, text="Grandchild", parent_slug=child.slug, at=BASE + timedelta(minutes=3))
    sibling = make_comment(post, text="Sibling", parent_slug=keep.slug, at=BASE + timedelta(minutes=4))
    assert moderation.remove_subthread(comment_id=root.id).total == 3
    assert texts(post) == ["Keep", "Sibling"]
    assert texts(post, EDITOR) == ["Keep", "Sibling"]
    assert get_store().find_by_id(sibling.id).status == APPROVED


@pytest.mark.parametrize("view", ["threaded", "newest", "chronological"])
def test_cursor_pages_skip_hidden_comments_and_still_cover_every_shown_one(
    make_post, make_comment, settings, view,
):
    """Next links walk every listed comment once in order, whatever is hidden in between."""
    settings.COMMENTS_PER_PAGE = 3
    post = make_post()
    made, parent = [], None
    for i in range(14):
        comment = make_comment(post, text=f"C{i}", at=BASE + timedelta(minutes=i),
                               parent_slug=parent.slug if parent and i % 3 else None, summarise=False)
        parent = comment if i % 3 == 0 else parent
        made.append(comment)
    for i in (1, 4, 5, 9):
        get_store().set_status(ids=[made[i].id], status=SPAM if i % 2 else PENDING)
    expected = [c.slug for c in get_store().find_page(discussion_id=post.id, order=view, limit=100)]
    assert len(expected) == 10
    seen, listing = [], listers.list_comments(discussion_id=post.id, view=view)
    while True:
        seen += [item.comment.slug for item in listing.shown]
        if not listing.next_cursor:
            break
        listing = listers.list_comments(discussion_id=post.id, view=view, after=listing.next_cursor)
    assert seen == expected
    assert listing.num_pages == 4


def test_a_cursor_made_for_one_viewer_pages_for_another(trio, settings):
    """Cursors carry keys, not positions: an editor's cursor works for a reader (no crash, no repeats)."""
    settings.COMMENTS_PER_PAGE = 1
    post, made = trio
    get_store().set_status(ids=[made[1].id], status=PENDING)
    cursor = listers.list_comments(discussion_id=post.id, view="threaded", viewer=EDITOR).next_cursor
    following = listers.list_comments(discussion_id=post.id, view="threaded", after=cursor)
    assert [item.comment.text for item in following.shown] == ["after"]
    with pytest.raises(BadRequest):
        listers.list_comments(discussion_id=post.id, view="newest", after=cursor)


def test_page_of_counts_only_what_the_viewer_sees(trio, settings):
    """The full-discussion page of a comment skips the comments hidden from the viewer."""
    settings.COMMENTS_PER_PAGE = 1
    post, made = trio
    get_store().set_status(ids=[made[0].id], status=PENDING)
    assert listings.page_of(made[2]) == 2
    assert listings.page_of(made[2], EDITOR) == 3


def test_moderation_only_fields_never_reach_a_shown_comment(make_post, make_comment):
    """present() drops the e-mail address, the IP address and the form key for every viewer."""
    post = make_post()
    comment = make_comment(post, ip="198.51.100.4", form_key="k" * 22)
    assert comment.ip and comment.author.email and comment.form_key
    for viewer in (READERS, EDITOR):
        item = shown(post, viewer)[0]
        assert item.comment.ip is None and item.comment.author.email == "" and item.comment.form_key is None


def test_a_comments_page_opens_to_whom_the_listing_shows_it(trio):
    """A comment's own page is open exactly to those who would see it listed."""
    post, made = trio
    middle = made[1]
    get_store().set_status(ids=[middle.id], status=PENDING)
    pending = get_store().find_by_id(middle.id)
    assert not READERS.sees(pending)
    assert Viewer(own=frozenset({middle.id})).sees(pending) and EDITOR.sees(pending)
    get_store().set_status(ids=[middle.id], status=SPAM)
    assert not EDITOR.sees(get_store().find_by_id(middle.id))


def test_each_moderation_transition_changes_who_sees_the_comment(make_post, make_comment, settings):
    """Posted held, approved, marked spam, approved again, deleted: visibility follows every step."""
    settings.COMMENTS_MODERATION = ["all"]
    post = make_post()
    comment = make_comment(post, text="Watched")
    author = Viewer(own=frozenset({comment.id}))
    steps = [
        (None, {"reader": False, "author": True, "editor": True}),
        ("approve", {"reader": True, "author": True, "editor": True}),
        ("spam", {"reader": False, "author": False, "editor": False}),
        ("approve", {"reader": True, "author": True, "editor": True}),
        ("delete", {"reader": False, "author": False, "editor": False}),
    ]
    for action, expected in steps:
        if action:
            moderation.moderate(action=action, comment_ids=[comment.id])
        seen = {name: texts(post, viewer) == ["Watched"]
                for name, viewer in [("reader", READERS), ("author", author), ("editor", EDITOR)]}
        assert seen == expected, action
