"""`sync_authors`: a rename that died half-way converges when it runs, and a rerun
writes nothing."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from cms import authors, posts
from cms.models import AuthorProfile
from comments.records import CommentAuthor
from comments.stores import get_store

pytestmark = pytest.mark.usefixtures("each_store")


class Crash(Exception):
    """The process dying half-way through a rename."""


def run() -> str:
    out = StringIO()
    call_command("sync_authors", stdout=out)
    return out.getvalue()


@pytest.fixture
def ada_everywhere(make_user, make_post, make_comment):
    """Ada with two posts, comments of hers on both, and a reader's comment."""
    ada = make_user("ada", display_name="Ada Lindqvist")
    me = CommentAuthor(id=ada.pk, name="Ada Lindqvist")
    made = [make_post(author=authors.summary_for(ada), tags=["mongo"]) for _ in range(2)]
    for post in made:
        make_comment(post, author=me, text="Ada answers")
    make_comment(made[0], author=CommentAuthor(id=None, name="Ada Lindqvist"), text="A namesake")
    return ada, made


def names_everywhere(ada_id: int, made) -> set[str]:
    """Every copy of the author's name: posts, her comments, and the posts' comment summaries."""
    found = set()
    for post in made:
        stored = posts.get_by_id(post.id)
        found.add(stored.author.name)
        found |= {c.author_name for c in stored.latest_comments if c.excerpt == "Ada answers"}
        found |= {
            c.author.name
            for c in get_store().find_page(discussion_id=post.id, order="threaded", limit=50)
            if c.author.id == ada_id
        }
    return found


def test_a_rename_that_died_after_the_posts_is_finished_by_sync_authors(ada_everywhere, monkeypatch):
    """The profile and posts have the new name, comments the old; sync_authors fixes the rest."""
    ada, made = ada_everywhere

    def die(**kwargs):
        raise Crash

    monkeypatch.setattr(get_store(), "set_author_name", die)
    with pytest.raises(Crash):
        authors.update_author(user=ada, username="ada_l", display_name="Ada L.", bio="", avatar_url="")
    monkeypatch.undo()

    assert AuthorProfile.objects.get(user=ada).old_usernames == ["ada"]
    assert names_everywhere(ada.pk, made) == {"Ada L.", "Ada Lindqvist"}  # half-way

    assert run() == "Repaired 0 posts, 2 comments and 2 comment summaries.\n"
    assert names_everywhere(ada.pk, made) == {"Ada L."}
    assert run() == "Repaired 0 posts, 0 comments and 0 comment summaries.\n"
    # The reader who happens to share the old name keeps it.
    namesake = [
        c
        for c in get_store().find_page(discussion_id=made[0].id, order="threaded", limit=50)
        if c.author.id is None
    ]
    assert [c.author.name for c in namesake] == ["Ada Lindqvist"]


def test_a_rename_that_died_before_the_summaries_is_finished_by_sync_authors(ada_everywhere, monkeypatch):
    """Posts and comments renamed, the posts' comment summaries not yet."""
    ada, made = ada_everywhere

    def die(**kwargs):
        raise Crash

    monkeypatch.setattr(authors, "repair_comment_summaries", die)
    with pytest.raises(Crash):
        authors.update_author(user=ada, display_name="Ada L.", bio="", avatar_url="")
    monkeypatch.undo()

    assert names_everywhere(ada.pk, made) == {"Ada L.", "Ada Lindqvist"}
    assert run() == "Repaired 0 posts, 0 comments and 2 comment summaries.\n"
    assert names_everywhere(ada.pk, made) == {"Ada L."}


def test_a_rename_that_died_before_any_copy_is_finished_by_sync_authors(ada_everywhere, monkeypatch):
    """Only the profile changed: the new author page and the old address both work afterwards."""
    ada, made = ada_everywhere

    def die(**kwargs):
        raise Crash

    monkeypatch.setattr(authors, "sync_author", die)
    with pytest.raises(Crash):
        authors.update_author(user=ada, username="ada_l", display_name="Ada L.", bio="", avatar_url="")
    monkeypatch.undo()

    assert run() == "Repaired 2 posts, 2 comments and 2 comment summaries.\n"
    reader = Client()
    assert reader.get("/authors/ada/")["Location"] == "/authors/ada_l/"
    page = reader.get("/authors/ada_l/").content.decode()
    # Only the reader who shares the old name still shows it.
    assert page.count('class="post-summary"') == 2 and page.count("Ada Lindqvist") == 1
    assert "Ada Lindqvist" not in reader.get("/tags/mongo/").content.decode()
    assert "Ada Lindqvist" not in reader.get("/feeds/latest/atom/").content.decode()


def test_sync_authors_on_a_consistent_site_writes_nothing(ada_everywhere, mongo_db):
    """Nothing disagrees: nothing is repaired, documents are untouched."""
    before = list(mongo_db.posts.find()) + list(mongo_db.comments.find())
    assert run() == "Repaired 0 posts, 0 comments and 0 comment summaries.\n"
    assert list(mongo_db.posts.find()) + list(mongo_db.comments.find()) == before
