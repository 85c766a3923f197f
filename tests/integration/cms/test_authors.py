"""Authors: profiles, the summary posts embed, renames and the repair of copies."""

import re

import pytest

from cms import authors, posts
from cms.authors import USERNAME_TAKEN, AuthorError, Repaired
from cms.models import AuthorProfile
from comments.records import CommentAuthor
from comments.stores import get_store

pytestmark = pytest.mark.usefixtures("each_store")


@pytest.fixture
def ada(make_user):
    return make_user("ada", display_name="Ada Lindqvist")


def member(user) -> CommentAuthor:
    """How a logged-in user's comment records its author (comments/views/)."""
    return CommentAuthor(id=user.pk, name=authors.summary_for(user).name)


def test_summary_uses_the_profile_then_the_full_name_then_the_username(make_user, django_user_model):
    """A post shows the display name; without a profile, the user's own names."""
    ada = make_user("ada", display_name="Ada Lindqvist")
    plain = django_user_model.objects.create_user(username="plain", first_name="Pat", last_name="Lain")
    bare = django_user_model.objects.create_user(username="bare")
    assert authors.summary_for(ada) == posts.AuthorSummary(id=ada.pk, username="ada", name="Ada Lindqvist")
    assert authors.summary_for(plain).name == "Pat Lain"
    assert authors.summary_for(bare).name == "bare"


def test_find_author_finds_staff_and_profiles_but_not_readers(make_user):
    """Readers who merely have an account have no author page."""
    author = make_user("ada")
    make_user("reader", role="reader")
    assert authors.find_author(username="ada") == author
    assert authors.find_author(username="reader") is None
    assert authors.find_author(username="nobody") is None


@pytest.mark.django_db
def test_staff_profiles_lists_staff_by_username(make_user):
    """The editors' author list: staff only, sorted, with display names."""
    make_user("chen", display_name="Chen Mei")
    make_user("ada", display_name="Ada Lindqvist")
    make_user("reader", role="reader")
    assert [(p.username, p.name) for p in authors.staff_profiles()] == [
        ("ada", "Ada Lindqvist"),
        ("chen", "Chen Mei"),
    ]


def test_a_rename_keeps_the_old_username_and_updates_every_copy(ada, make_post, make_comment):
    """Profile first (old username kept), then posts, comments and comment summaries."""
    post = make_post(author=authors.summary_for(ada))
    comment = make_comment(post, author=member(ada))
    repaired = authors.update_author(
        user=ada,
        username="ada_l",
        display_name="Ada L.",
        bio="New bio",
        avatar_url="https://example.com/a.png",
    )
    assert repaired == Repaired(posts=1, comments=1, summaries=1)
    profile = AuthorProfile.objects.get(user=ada)
    assert profile.old_usernames == ["ada"] and profile.display_name == "Ada L." and profile.bio == "New bio"
    stored = posts.get_by_id(post.id)
    assert stored.author == posts.AuthorSummary(
        id=ada.pk, username="ada_l", name="Ada L.", picture="https://example.com/a.png"
    )
    assert get_store().find_by_slug(discussion_id=post.id, slug=comment.slug).author.name == "Ada L."
    assert [c.author_name for c in stored.latest_comments] == ["Ada L."]


def test_renaming_back_and_forth_keeps_each_old_username_once(ada):
    """The record lists former names, never the current one, each once."""
    authors.update_author(user=ada, username="ada2", display_name="Ada", bio="", avatar_url="")
    authors.update_author(user=ada, username="ada", display_name="Ada", bio="", avatar_url="")
    authors.update_author(user=ada, username="ada3", display_name="Ada", bio="", avatar_url="")
    assert AuthorProfile.objects.get(user=ada).old_usernames == ["ada2", "ada"]


def test_a_taken_username_is_refused_and_nothing_changes(ada, make_user, make_post):
    """AuthorError; the profile and the posts keep the old name."""
    make_user("bruno")
    post = make_post(author=authors.summary_for(ada))
    with pytest.raises(AuthorError, match=re.escape(USERNAME_TAKEN)):
        authors.update_author(user=ada, username="bruno", display_name="Other", bio="", avatar_url="")
    ada.refresh_from_db()
    assert ada.username == "ada" and AuthorProfile.objects.get(user=ada).display_name == "Ada Lindqvist"
    assert posts.get_by_id(post.id).author.name == "Ada Lindqvist"


def test_a_new_display_name_without_a_profile_creates_one(make_post, django_user_model):
    """A staff user without a profile (a superuser, say) gets one on the first edit."""
    boss = django_user_model.objects.create_user(username="boss", is_staff=True)
    post = make_post(author=authors.summary_for(boss))
    authors.update_author(user=boss, display_name="The Boss", bio="", avatar_url="")
    assert posts.get_by_id(post.id).author.name == "The Boss"
    assert AuthorProfile.objects.get(user=boss).old_usernames == []


def test_find_renamed_follows_an_old_username(ada):
    """An old username leads to its author; a current or unknown one does not."""
    authors.update_author(user=ada, username="ada_l", display_name="Ada", bio="", avatar_url="")
    assert authors.find_renamed(username="ada") == ada
    assert authors.find_renamed(username="ada_l") is None
    assert authors.find_renamed(username="never") is None


def test_sync_author_writes_nothing_when_all_copies_agree(ada, make_post, make_comment):
    """A rerun is free of writes."""
    post = make_post(author=authors.summary_for(ada))
    make_comment(post, author=member(ada))
    assert authors.sync_author(user=ada) == Repaired()


def test_sync_all_authors_repairs_every_copy_that_disagrees(
    ada, make_user, make_post, make_comment, mongo_db
):
    """Posts, comments and summaries out of line with a profile are fixed; the rest untouched."""
    chen = make_user("chen", display_name="Chen Mei")
    stale = make_post(author=authors.summary_for(ada))
    fine = make_post(author=authors.summary_for(chen))
    make_comment(fine, author=member(ada))
    # The profile changes behind the copies' backs, as if a rename stopped at once.
    AuthorProfile.objects.filter(user=ada).update(display_name="Ada Renamed")
    assert authors.sync_all_authors() == Repaired(posts=1, comments=1, summaries=1)
    assert posts.get_by_id(stale.id).author.name == "Ada Renamed"
    assert posts.get_by_id(fine.id).author.name == "Chen Mei"
    assert [c.author_name for c in posts.get_by_id(fine.id).latest_comments] == ["Ada Renamed"]
    assert authors.sync_all_authors() == Repaired()


def test_sync_all_authors_leaves_copies_of_deleted_users_alone(make_post, make_user):
    """A post whose author's account is gone keeps its embedded summary."""
    gone = make_user("gone", display_name="Gone Author")
    post = make_post(author=authors.summary_for(gone))
    gone.delete()
    assert authors.sync_all_authors() == Repaired()
    assert posts.get_by_id(post.id).author.name == "Gone Author"


@pytest.mark.stores("documents")
def test_repair_comment_summaries_fixes_only_stale_summaries(ada, make_post, make_comment, mongo_db):
    """A summary naming a comment by its old name is recomputed; others are not touched."""
    stale, fresh = make_post(), make_post()
    make_comment(stale, author=member(ada))
    make_comment(fresh, author=member(ada))
    mongo_db.comments.update_many({"discussion_id": stale.id}, {"$set": {"author.name": "Ada New"}})
    assert authors.repair_comment_summaries() == 1
    assert [c.author_name for c in posts.get_by_id(stale.id).latest_comments] == ["Ada New"]
    assert authors.repair_comment_summaries(post_ids=[fresh.id]) == 0
    assert authors.repair_comment_summaries(post_ids=[]) == 0
