"""`publish_scheduled`: publishes due posts; cron-safe (reruns and overlaps do nothing
more); with --loop it keeps publishing until a signal, through database outages."""

import os
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from cms import posts

REPO = Path(__file__).resolve().parents[3]


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


# --- --loop ----------------------------------------------------------------------------


def start_loop(*, every: str = "0.2", **env) -> subprocess.Popen:
    """`manage.py publish_scheduled --loop` in its own process, on this session's database."""
    from django.conf import settings

    env = {**os.environ, "MONGODB_URI": settings.MONGODB_URI, "MONGODB_NAME": settings.MONGODB_NAME,
           "DJANGO_SETTINGS_MODULE": "slugline.settings", **env}
    return subprocess.Popen([sys.executable, "manage.py", "publish_scheduled", "--loop", "--every", every],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_the_loop_publishes_a_post_scheduled_a_second_ahead_and_stops_on_a_signal(make_post, signum):
    """Started before the post is due, it publishes it once due; SIGTERM or Ctrl-C
    ends it at once and cleanly."""
    loop = start_loop()
    try:
        post = make_post(status=posts.SCHEDULED, published=datetime.now(timezone.utc) + timedelta(seconds=1))
        assert posts.get_published(post.slug) is None
        assert wait_until(lambda: posts.get_published(post.slug) is not None, 10)
        loop.send_signal(signum)
        out, err = loop.communicate(timeout=5)
    finally:
        loop.kill()
    assert loop.returncode == 0, err
    assert "Published 1 scheduled post." in out and "Traceback" not in err


def test_the_loop_outlives_a_database_outage(make_post):
    """With the database unreachable it says so and keeps trying, instead of exiting."""
    loop = start_loop(MONGODB_URI="mongodb://127.0.0.1:9/", MONGODB_SERVER_SELECTION_TIMEOUT_MS="200")
    said: list[str] = []
    watchdog = threading.Timer(60, loop.kill)  # a loop that never says it ends the read
    watchdog.start()
    try:
        # Read what it says as it says it (its start-up alone takes seconds on a busy machine).
        for line in loop.stderr:
            said.append(line)
            if sum("the database did not answer" in told for told in said) >= 2:
                break
        assert loop.poll() is None, "".join(said)
        loop.terminate()
        out, err = loop.communicate(timeout=10)
    finally:
        watchdog.cancel()
        loop.kill()
    assert loop.returncode == 0
    assert "".join(said).count("the database did not answer") >= 2, "".join(said) + err


def test_every_must_be_positive():
    with pytest.raises(CommandError, match="above 0"):
        call_command("publish_scheduled", "--loop", "--every", "0")


def test_the_loop_finishes_a_moderation_action_cut_short(make_post, make_comment, mongo_db):
    """An action recorded but never applied (its request died a minute ago) is applied
    and its post's summary put right by the loop, without anyone trying again."""
    from comments.moderation import changes
    from comments import records
    from comments.stores import get_store

    post = make_post()
    spam = make_comment(post, text="Buy now")
    doc = changes.record(action="spam", status=records.SPAM, comments=[spam], editor="edith")
    mongo_db.comment_changes.update_one({"_id": doc["_id"]},
                                        {"$set": {"at": datetime.now(timezone.utc) - timedelta(minutes=2)}})
    assert posts.get_by_id(post.id).comment_count == 1
    loop = start_loop()
    try:
        assert wait_until(lambda: posts.get_by_id(post.id).comment_count == 0, 15)
        loop.terminate()
        out, err = loop.communicate(timeout=5)
    finally:
        loop.kill()
    assert get_store().find_by_id(spam.id).status == records.SPAM
    assert "Finished 1 moderation action(s)" in out, err
