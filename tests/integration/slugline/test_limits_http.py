"""The posting rate limit and the login lockout hold on the production path: real
concurrent HTTP requests to a gunicorn site of four worker processes, and a restart
of all of them. (With counts in each worker's own cache, 79 comments from one address
went through a limit of 20, a lockout came after 16 failures instead of 5, and a
restart forgot both.)

The site runs BEHIND_PROXY, so each test picks its client's address with
X-Forwarded-For, as the proxy would set it.
"""

from __future__ import annotations

import re
import shutil
import urllib.error

import pytest

from bench.harness import Answer, Reader, Site
from comments.stores import get_store
from tests.threads import at_once

WORKERS = 4
# The defaults (docs/reference.md): COMMENTS_RATE_PER_IP and LOGIN_FAILURE_LIMIT.
PER_IP = 20
FAILURE_LIMIT = 5
# A day's window, so that no test run straddles two windows (the limit is per window).
WINDOW = 24 * 3600
PASSWORD = "correct horse battery staple"
CSRF_RE = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture(scope="module")
def site(site_template):
    """gunicorn with WORKERS workers on this session's MongoDB database and its own
    Django database, which has one user, ada."""
    scratch = site_template.site(workers=WORKERS)
    # A hash of few iterations: checking wrong passwords against it is quick (the
    # site's hasher re-hashes it at full strength on ada's first log-in).
    scratch.manage("shell", "-v0", "-c", "from django.contrib.auth.hashers import PBKDF2PasswordHasher; "
                   "from django.contrib.auth.models import User; "
                   "User.objects.create(username='ada', password=PBKDF2PasswordHasher()"
                   f".encode({PASSWORD!r}, 'slugline-test', iterations=1000))")
    scratch.start(**_limits())
    try:
        yield scratch
    finally:
        scratch.stop()
        shutil.rmtree(scratch.workdir, ignore_errors=True)


def _limits() -> dict:
    return {"BEHIND_PROXY": "true", "COMMENTS_STORE": "documents", "COMMENTS_CACHE_SECONDS": "0",
            "COMMENTS_RATE_PER_IP": str(PER_IP), "COMMENTS_RATE_WINDOW": str(WINDOW),
            "LOGIN_FAILURE_LIMIT": str(FAILURE_LIMIT), "LOGIN_COOLOFF_MINUTES": "15"}


def restart(site: Site) -> None:
    """Stop every gunicorn process and start new ones on the same databases."""
    site.stop()
    site.start(**_limits())


class Browser(Reader):
    """The harness's reader, also keeping the last answer's Retry-After."""

    retry_after: str | None = None

    def _send(self, request) -> Answer:
        self.retry_after = None
        try:
            with self.opener.open(request, timeout=self.timeout) as response:
                return Answer(response.status, 0, response.read().decode(errors="replace"))
        except urllib.error.HTTPError as error:
            self.retry_after = error.headers.get("Retry-After")
            return Answer(error.code, 0, error.read().decode(errors="replace"), error.headers.get("Location", ""))


def reader_from(site: Site, address: str) -> Browser:
    """A browser whose requests reach the site from `address`."""
    reader = Browser(site.url)
    reader.opener.addheaders.append(("X-Forwarded-For", address))
    return reader


def comment_form(reader: Reader, post) -> tuple[str, dict]:
    answer, hidden = reader.comment_form(f"/posts/{post.slug}/")
    assert answer.status == 200 and hidden, answer.status
    return f"/posts/{post.slug}/comments/", hidden


def post_comment(reader: Reader, form: tuple[str, dict], text: str):
    action, hidden = form
    return reader.post(action, {**hidden, "name": "Rosa", "text": text})


def log_in(reader: Reader, password: str):
    page = reader.get("/accounts/login/")
    token = CSRF_RE.search(page.body)
    assert page.status == 200 and token, page.status
    return reader.post("/accounts/login/", {"csrfmiddlewaretoken": token.group(1), "login": "ada",
                                            "password": password})


def test_comments_sent_at_once_from_one_address_stop_at_the_limit_across_workers_and_restarts(
    site, make_post,
):
    """PER_IP + 6 comments sent at once from one address through four workers:
    exactly PER_IP are stored; the others answer 429 with Retry-After and the text
    kept. After every worker is restarted, that address is still refused; another
    address posts."""
    post = make_post()
    texts = [f"Comment {n} from one address" for n in range(PER_IP + 6)]
    readers = [reader_from(site, "198.51.100.7") for _ in texts]
    forms = [comment_form(reader, post) for reader in readers]
    answers = at_once([
        lambda reader=reader, form=form, text=text: post_comment(reader, form, text)
        for reader, form, text in zip(readers, forms, texts)
    ])
    assert sorted(a.status for a in answers) == [303] * PER_IP + [429] * 6, site.log()[-2000:]
    stored = sorted(doc["text"] for doc in get_store().iter_documents(discussion_id=post.id))
    assert stored == sorted(text for text, a in zip(texts, answers) if a.status == 303)
    for text, answer in zip(texts, answers):
        if answer.status == 429:
            assert text in answer.body
    retry_after = [reader.retry_after for reader in readers if reader.retry_after]
    assert len(retry_after) == 6 and all(0 < int(value) <= WINDOW for value in retry_after)

    restart(site)
    again = reader_from(site, "198.51.100.7")
    assert post_comment(again, comment_form(again, post), "After the restart").status == 429
    other = reader_from(site, "198.51.100.8")
    assert post_comment(other, comment_form(other, post), "From elsewhere").status == 303


def recorded_failures(site: Site, *, address: str) -> int:
    """ada's failures from `address` as Axes recorded them in the site's database."""
    return int(site.manage("shell", "-v0", "-c", "from axes.models import AccessAttempt; from django.db.models import Sum; "
                           f"print(AccessAttempt.objects.filter(username='ada', ip_address={address!r})"
                           ".aggregate(n=Sum('failures_since_start'))['n'] or 0)"))


def test_bad_passwords_at_once_lock_the_account_from_that_address_only_and_survive_a_restart(site):
    """FAILURE_LIMIT + 5 bad passwords for ada at once from one address through four
    workers: FAILURE_LIMIT are checked, plus at most the WORKERS - 1 that were already
    being checked when the limit-th failure landed; that one and all after it answer
    429. Then ada's right password is refused from that address and
    accepted from another, and after every worker is restarted it is still refused
    there."""
    guesses = FAILURE_LIMIT + 5
    answers = at_once([lambda: log_in(reader_from(site, "203.0.113.5"), "wrong")] * guesses)
    statuses = [a.status for a in answers]
    checked = recorded_failures(site, address="203.0.113.5")
    assert FAILURE_LIMIT <= checked <= FAILURE_LIMIT + WORKERS - 1, (statuses, site.log()[-2000:])
    assert set(statuses) == {200, 429} and statuses.count(200) <= FAILURE_LIMIT - 1

    locked = reader_from(site, "203.0.113.5")
    refused = log_in(locked, PASSWORD)
    assert refused.status == 429 and "Logging in is paused" in refused.body
    assert 0 < int(locked.retry_after) <= 15 * 60
    assert log_in(reader_from(site, "203.0.113.6"), PASSWORD).status == 302

    restart(site)
    assert log_in(reader_from(site, "203.0.113.5"), PASSWORD).status == 429
    assert log_in(reader_from(site, "203.0.113.7"), PASSWORD).status == 302
    assert recorded_failures(site, address="203.0.113.5") == checked
