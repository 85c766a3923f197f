"""Demo content: deterministic, threaded, and never dumped on a non-empty database."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from cms import demo, posts
from comments import store


def snapshot(mongo_db) -> list:
    return [
        (c["full_slug"], c["author"]["name"], c["text"])
        for c in mongo_db.comments.find({}, {"_id": 0}).sort([("discussion_id", 1), ("full_slug", 1)])
    ]


def wipe(mongo_db):
    mongo_db.posts.delete_many({})
    mongo_db.comments.delete_many({})
    get_user_model().objects.all().delete()


@pytest.mark.django_db
def test_the_same_seed_gives_the_same_content(mongo_db):
    """Authors, posts, comment texts, times and slugs repeat exactly."""
    demo.seed(num_posts=2, comments_per_post=15, seed=7)
    first = ([p["slug"] for p in mongo_db.posts.find().sort("slug")], snapshot(mongo_db))
    wipe(mongo_db)
    demo.seed(num_posts=2, comments_per_post=15, seed=7)
    again = ([p["slug"] for p in mongo_db.posts.find().sort("slug")], snapshot(mongo_db))
    assert first == again
    wipe(mongo_db)
    demo.seed(num_posts=2, comments_per_post=15, seed=8)
    assert snapshot(mongo_db) != first[1]


@pytest.mark.django_db
def test_demo_threads_have_depth_and_right_summaries(mongo_db):
    """Comments reply to each other several levels deep; post summaries match."""
    demo.seed(num_posts=1, comments_per_post=60, seed=3)
    post = posts.published_page(page=1, per_page=1)[0]
    depths = {c["slug"].count("/") for c in mongo_db.comments.find()}
    assert max(depths) >= 3
    assert post.comment_count == 60 == store.count(discussion_id=post.id)
    latest = store.find_latest(discussion_id=post.id, limit=3)
    assert [c.slug for c in post.latest_comments] == [c.slug for c in latest]


@pytest.mark.django_db
def test_seed_demo_refuses_a_non_empty_database(make_post):
    """The command says so and adds nothing unless told (--force)."""
    make_post()
    with pytest.raises(CommandError, match="already has posts"):
        call_command("seed_demo", posts=1)
    call_command("seed_demo", posts=1, if_empty=True)
    assert posts.count_published() == 1
    call_command("seed_demo", posts=1, comments=0, force=True)
    assert posts.count_published() == 2


@pytest.mark.django_db
def test_demo_bruno_is_an_editor_and_the_others_are_authors(mongo_db):
    """Demo content has one editor; nobody gets a password (README says how to set one)."""
    from cms.dashboard.permissions import is_editor

    demo.seed(num_posts=0)
    users = {u.username: u for u in get_user_model().objects.all()}
    assert is_editor(users[demo.EDITOR]) and demo.EDITOR == "bruno"
    assert users["ada"].is_staff and not is_editor(users["ada"])
    assert not any(u.has_usable_password() for u in users.values())
