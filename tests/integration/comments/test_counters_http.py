"""The counters hold on the production path: real concurrent HTTP requests to a
gunicorn site of four worker processes, for every comment store. Fifty readers post
while two editors approve, spam and delete the same comments and a third bans one of
the posters, all at once; afterwards every counter equals a recount, and so does the
post's comment count."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest

from bench.harness import Reader
from cms import posts
from comments.moderation import changes
from comments.posting import services
from comments.records import CommentAuthor
from comments.stores import counters, counting, get_store
from tests.threads import at_once

WORKERS = 4
POSTERS = 50
SEEDED = 30
PASSWORD = "counters-test-password"
EDITORS = ("edith", "emil", "esme")
ACTIONS = "/dashboard/moderation/actions/"
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
MAKE_EDITORS = """
from django.contrib.auth.models import Group
from django.contrib.auth.hashers import make_password
from cms.authors import create_author
from cms.roles import EDITORS_GROUP
group = Group.objects.get_or_create(name=EDITORS_GROUP)[0]
for name in {names!r}:
    create_author(username=name, display_name=name.capitalize(), password={password!r}).groups.add(group)
"""


@pytest.fixture(scope="module")
def site(site_template):
    """One site for every store (tests/sites.py), whose Django database has the editors."""
    editors = ("shell", "-c", MAKE_EDITORS.format(names=EDITORS, password=PASSWORD))
    with site_template.running(workers=WORKERS, every_store=True, before=(editors,), COMMENTS_RATE_PER_IP="0",
                               COMMENTS_CACHE_SECONDS="0", COMMENTS_DUPLICATE_WINDOW="0") as scratch:
        yield scratch


@pytest.fixture
def using(site, site_store):
    return site


def _logged_in(base_url: str, username: str) -> tuple[Reader, str]:
    editor = Reader(base_url, timeout=60)
    page = editor.get("/accounts/login/")
    token = CSRF.search(page.body).group(1)
    answer = editor.post("/accounts/login/", {"csrfmiddlewaretoken": token, "login": username,
                                              "password": PASSWORD})
    assert answer.status in (302, 303), (answer.status, answer.body[-500:])
    token = CSRF.search(editor.get("/dashboard/moderation/").body).group(1)
    return editor, token


def _poster(base_url: str, post, n: int):
    reader = Reader(base_url, timeout=60)
    answer, hidden = reader.comment_form(f"/posts/{post.slug}/")
    assert answer.status == 200 and hidden, answer.status
    return lambda: reader.post(f"/posts/{post.slug}/comments/",
                               {**hidden, "name": f"Poster {n}", "text": f"Posted at once, number {n}."})


def _moderating(editor: Reader, token: str, ids: list, rng: random.Random):
    def run():
        answers = []
        for action in ("approve", "spam", "delete", "approve", "spam"):
            chosen = rng.sample(ids, k=len(ids) // 2)
            answers.append(editor.post(ACTIONS, {"csrfmiddlewaretoken": token, "action": action,
                                                 "ids": [str(i) for i in chosen], "confirmed": "on"}))
        return answers
    return run


def assert_counters_exact(discussion_id, log: list[str] = ()) -> None:
    stored = counters.state(discussion_id, store=get_store()).counts
    docs = list(get_store().iter_documents(discussion_id=discussion_id))
    assert not [d for d in docs if d.get("intent")], ("every change finished", log[-20:])
    assert stored == counting.recount(docs)
    assert posts.get_by_id(discussion_id).comment_count == stored.approved
    assert counters.check(discussion_id, store=get_store()) is None


def test_posters_moderators_and_a_ban_at_once_leave_every_counter_exact(using, make_post):
    post = make_post()
    seeded = [services.post_comment(post=post, text=f"Seeded {n}", ip="192.0.2.1",
                                    author=CommentAuthor(id=None, name=f"Seed {n}")).comment for n in range(SEEDED)]
    banned = seeded[0]
    editors = [_logged_in(using.url, name) for name in EDITORS]
    ids = [c.id for c in seeded]
    work = [_poster(using.url, post, n) for n in range(POSTERS)]
    work += [_moderating(*editors[0], ids, random.Random(1)), _moderating(*editors[1], ids, random.Random(2))]
    editor, token = editors[2]
    work.append(lambda: editor.post(ACTIONS, {"csrfmiddlewaretoken": token, "one": f"ban:{banned.id}",
                                              "confirmed": "on"}))
    outcomes = at_once(work)
    errors = [o for o in outcomes if isinstance(o, BaseException)]
    assert errors == [], errors
    flat = [a for o in outcomes for a in (o if isinstance(o, list) else [o])]
    assert {a.status for a in flat} <= {303, 302}, f"{sorted({a.status for a in flat})}\n{using.failures()}"
    assert len(list(get_store().iter_documents(discussion_id=post.id))) == SEEDED + POSTERS
    cut_short = [line for line in using.log().splitlines() if "WARNING" in line or "ERROR" in line]
    # What a request's time budget cut short is finished by the background loop (make run).
    changes.finish_pending(older_than=timedelta(0))
    assert_counters_exact(post.id, cut_short)
