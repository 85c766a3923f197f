"""`publish_scheduled`: publishes due posts; cron-safe (reruns and overlaps do nothing more)."""

from datetime import datetime, timedelta, timezone
from io import StringIO

from django.core.management import call_command

from cms import posts


def run() -> str:
    out = StringIO()
    call_command("publish_scheduled", stdout=out)
    return out.getvalue()


def test_due_posts_are_published_and_a_rerun_does_nothing(make_post):
    """It says how many it published; a second run publishes none."""
    now = datetime.now(timezone.utc)
    due = [make_post(status=posts.SCHEDULED, published=now - timedelta(minutes=n + 1)) for n in range(2)]
    later = make_post(status=posts.SCHEDULED, published=now + timedelta(hours=1))
    assert run() == "Published 2 scheduled posts.\n"
    assert run() == "Published 0 scheduled posts.\n"
    assert all(posts.get_published(p.slug) for p in due) and posts.get_published(later.slug) is None


def test_it_changes_nothing_but_the_status(make_post, mongo_db):
    """Publication time, content and revision stay as the editor left them."""
    post = make_post(status=posts.SCHEDULED, published=datetime.now(timezone.utc) - timedelta(minutes=1))
    before = mongo_db.posts.find_one({"_id": post.id})
    run()
    after = mongo_db.posts.find_one({"_id": post.id})
    assert {k: v for k, v in after.items() if k != "status"} == {
        k: v for k, v in before.items() if k != "status"
    }
    assert after["status"] == posts.PUBLISHED
