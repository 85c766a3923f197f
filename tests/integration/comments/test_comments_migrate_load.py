"""comments_migrate on a busy site (comments/transfer/migration.py): readers keep posting
through comments.services, in another thread, while every discussion is copied and
verified. The migration finishes, loses no comment, and still fails loudly when the
target's copy really differs."""

from __future__ import annotations

import itertools
import threading
import time
from datetime import datetime, timedelta, timezone

import pytest

from comments.posting import services
from comments.records import CommentAuthor
from comments.stores import get_store, store_switch
from comments.transfer import migration
from tests.database import TEST_STORES

PAIRS = list(itertools.permutations(TEST_STORES, 2))
BASE = datetime(2026, 3, 1, 8, 0, tzinfo=timezone.utc)
READER = CommentAuthor(id=None, name="Busy Reader", email="busy@example.com")


@pytest.fixture
def no_grace(settings):
    """The last pass waits COMMENTS_STORE_RECHECK_SECONDS for every process; every
    writer here is in this process and rereads the switch at each write."""
    settings.COMMENTS_STORE_RECHECK_SECONDS = 0
    settings.COMMENTS_RATE_PER_IP = 0
    settings.COMMENTS_RATE_PER_USER = 0
    settings.COMMENTS_DUPLICATE_WINDOW = 0


def use_store(name: str, settings, mongo_database) -> None:
    settings.COMMENTS_STORE = name
    get_store(name).ensure_indexes(mongo_database)


class Poster:
    """A thread posting comments (top-level and replies) to `posts` through the
    service until told to stop; a write refused during the frozen last pass
    (store_switch.Moving, a 503 for a reader) is tried again, as a reader would."""

    def __init__(self, posts_to_busy):
        self.posts = posts_to_busy
        self.posted: list = []  # (post, Posted) of every comment that was stored
        self.refused = 0
        self.failed: list[BaseException] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run)

    def _run(self) -> None:
        for n in itertools.count():
            if self.stop.is_set():
                return
            post = self.posts[n % len(self.posts)]
            earlier = [p.comment.slug for q, p in self.posted if q.id == post.id]
            parent = earlier[-1] if earlier and n % 3 == 0 else None
            try:
                done = services.post_comment(post=post, text=f"Busy comment {n}", author=READER,
                                             parent_slug=parent)
            except store_switch.Moving:
                self.refused += 1
                time.sleep(0.02)
                continue
            except BaseException as exc:  # noqa: BLE001 - the test reports it
                self.failed.append(exc)
                return
            self.posted.append((post, done))

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(timeout=60)


def busy_site(make_post, make_comment, *, posts: int = 3, comments: int = 40):
    made = [make_post() for _ in range(posts)]
    for post in made:
        for i in range(comments):
            make_comment(post, text=f"Before {i}", at=BASE + timedelta(minutes=i))
    return made


@pytest.mark.parametrize("source,target", PAIRS)
def test_a_migration_finishes_while_readers_post_and_loses_no_comment(
    source, target, make_post, make_comment, settings, mongo_database, no_grace
):
    """Comments arriving while discussions are copied and verified do not stop the
    migration; every comment stored, before or during it, is in the target after."""
    use_store(source, settings, mongo_database)
    made = busy_site(make_post, make_comment)
    copied_while_posting = []
    with Poster(made) as poster:
        while len(poster.posted) < 3 and not poster.failed:
            time.sleep(0.01)

        def progress(n):
            # A reader posts between two discussions' copies. Left to timing, the copies
            # of three small discussions can outrun the posting thread on a loaded machine.
            before = len(poster.posted)
            copied_while_posting.append(before)
            deadline = time.monotonic() + 30
            while len(poster.posted) == before and not poster.failed and time.monotonic() < deadline:
                time.sleep(0.01)

        report = migration.migrate(target=target, progress=progress)
        posted_during_copies = len(poster.posted)
    assert not poster.failed, poster.failed
    assert store_switch.in_use() == target
    # Readers really posted while discussions were being copied, and after the switch.
    assert copied_while_posting[-1] > copied_while_posting[0] >= 3
    assert len(poster.posted) >= posted_during_copies
    new = get_store(target)
    for post in made:
        slugs = {c.slug for c in migration.snapshot(new, post.id)}
        mine = {done.comment.slug for q, done in poster.posted if q.id == post.id}
        assert mine <= slugs
        assert len(slugs) == 40 + len(mine)
    assert report.recopied >= 1


@pytest.mark.parametrize("source,target", PAIRS[:1])
def test_a_real_difference_still_stops_a_busy_migration(
    source, target, make_post, make_comment, settings, mongo_database, monkeypatch, no_grace
):
    """A target that stores a comment other than it was given fails the migration,
    naming the discussion, with readers posting all along; nothing is switched."""
    use_store(source, settings, mongo_database)
    made = busy_site(make_post, make_comment, posts=2, comments=10)
    new = get_store(target)
    real = new.insert_documents

    def garbling(*, documents):
        documents = [dict(doc, text="Garbled") if i == 0 else doc for i, doc in enumerate(documents)]
        return real(documents=documents)

    monkeypatch.setattr(new, "insert_documents", garbling)
    with Poster(made) as poster, pytest.raises(migration.MigrationError, match=r"Discussion \w+: comments differ"):
        while len(poster.posted) < 3 and not poster.failed:
            time.sleep(0.01)
        migration.migrate(target=target)
    assert not poster.failed, poster.failed
    assert store_switch.in_use() == source
