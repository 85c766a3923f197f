"""The comments store's author copies (comments/stores/, added for renames and
author pages): find by (discussion, slug) keys, distinct member authors, and renames."""

import pytest
from bson import ObjectId

from comments.records import CommentAuthor
from comments.stores import get_store

pytestmark = pytest.mark.usefixtures("each_store")

MEMBER = CommentAuthor(id=7, name="Member Name")


def test_find_by_keys_returns_exactly_the_named_comments(make_post, make_comment):
    """One query over two discussions; a slug named only for the other discussion is left out."""
    first, second = make_post(), make_post()
    a = make_comment(first, new_part=lambda: "aaaaaaaa")
    make_comment(first, new_part=lambda: "bbbbbbbb")
    c = make_comment(second, new_part=lambda: "bbbbbbbb")
    found = get_store().find_by_keys(keys=[(first.id, a.slug), (second.id, c.slug)])
    assert sorted((x.discussion_id, x.slug) for x in found) == sorted(
        [(first.id, "aaaaaaaa"), (second.id, "bbbbbbbb")]
    )
    assert get_store().find_by_keys(keys=[]) == []


def test_member_authors_leave_out_anonymous_commenters(make_post, make_comment):
    """Only comments by logged-in users (an author id) are listed, each copy once."""
    post = make_post()
    make_comment(post, author=MEMBER)
    make_comment(post, author=MEMBER)
    make_comment(post)  # anonymous: id None
    assert get_store().find_member_authors() == [MEMBER]


def test_discussion_ids_by_author(make_post, make_comment):
    """The posts a user commented on, each once."""
    first, second, third = make_post(), make_post(), make_post()
    make_comment(first, author=MEMBER)
    make_comment(first, author=MEMBER)
    make_comment(second, author=MEMBER)
    make_comment(third)
    assert sorted(get_store().find_discussion_ids_by_author(author_id=MEMBER.id)) == sorted([first.id, second.id])
    assert get_store().find_discussion_ids_by_author(author_id=999) == []


def test_set_author_name_renames_only_that_users_comments_and_only_once(make_post, make_comment):
    """Anonymous comments with the same name stay; a rerun changes nothing."""
    post = make_post()
    mine = make_comment(post, author=MEMBER)
    namesake = make_comment(post, author=CommentAuthor(id=None, name="Member Name"))
    assert get_store().set_author_name(author_id=MEMBER.id, name="New Name") == 1
    assert get_store().set_author_name(author_id=MEMBER.id, name="New Name") == 0
    assert get_store().find_by_slug(discussion_id=post.id, slug=mine.slug).author.name == "New Name"
    assert get_store().find_by_slug(discussion_id=post.id, slug=namesake.slug).author.name == "Member Name"


def test_find_by_keys_ignores_unknown_discussions():
    """Keys of discussions that do not exist find nothing."""
    assert get_store().find_by_keys(keys=[(ObjectId(), "aaaaaaaa")]) == []
