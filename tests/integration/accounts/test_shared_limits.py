"""allauth's rate limits hold across gunicorn workers and restarts: its keys live in a
table of Django's database when the default cache is per process (slugline/caches.py).
With each worker counting in its own memory, two workers let up to twice the sign-ups
through; here exactly the limit passes."""

from __future__ import annotations

import re
import shutil

import pytest

from bench.harness import Reader, Site
from tests.threads import at_once

SIGNUP_PER_MINUTE = 10  # settings.ACCOUNT_RATE_LIMITS["signup"]: "10/m/ip,…"
CSRF_RE = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture(scope="module")
def site(site_template):
    """gunicorn with two workers on its own Django database (mail written as files)."""
    scratch = site_template.site(workers=2)
    scratch.start(**_env(scratch))
    try:
        yield scratch
    finally:
        scratch.stop()
        shutil.rmtree(scratch.workdir, ignore_errors=True)


def _env(site: Site) -> dict:
    return {"BEHIND_PROXY": "true", "EMAIL_URL": f"filemail:///{site.workdir / 'mail'}"}


def sign_up(site: Site, address: str, n: int):
    reader = Reader(site.url, timeout=60)
    reader.opener.addheaders.append(("X-Forwarded-For", address))
    token = CSRF_RE.search(reader.get("/accounts/signup/").body).group(1)
    return reader.post("/accounts/signup/", {"csrfmiddlewaretoken": token, "email": f"reader{n}@example.org",
                                             "display_name": f"Reader {n}", "password1": "a long enough passphrase 7"})


def test_the_signup_limit_is_one_count_for_every_worker_and_survives_a_restart(site):
    answers = at_once([lambda n=n: sign_up(site, "198.51.100.20", n) for n in range(SIGNUP_PER_MINUTE + 4)])
    statuses = sorted(answer.status for answer in answers)
    assert statuses == [302] * SIGNUP_PER_MINUTE + [429] * 4, (statuses, site.failures())
    refused = next(answer for answer in answers if answer.status == 429)
    assert 'class="site-header"' in refused.body and "Too many tries" in refused.body

    site.stop()
    site.start(**_env(site))
    assert sign_up(site, "198.51.100.20", 100).status == 429
    assert sign_up(site, "198.51.100.21", 101).status == 302
