"""A malformed AUTH_OIDC_PROVIDERS stops the site at start-up: every process that loads
the settings (gunicorn's workers, manage.py) exits with a message naming the variable,
and never the secret it holds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SECRET = "never-in-a-log-5b1c"


def check(value: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "AUTH_OIDC_PROVIDERS": value, "DJANGO_SETTINGS_MODULE": "slugline.settings"}
    return subprocess.run([sys.executable, "manage.py", "check"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize(("value", "said"), [
    ('[{"id": "company", "secret": "' + SECRET + '"', "AUTH_OIDC_PROVIDERS is not valid JSON"),
    (json.dumps([{"id": "company", "name": "Company", "server_url": "http://id.example.com",
                  "client_id": "slugline", "secret": SECRET}]),
     'AUTH_OIDC_PROVIDERS: provider 1 ("company"): "server_url" must be an https:// address'),
])
def test_a_malformed_value_stops_start_up_naming_the_variable(value, said):
    done = check(value)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("django.core.exceptions.ImproperlyConfigured: " + said), done.stderr[-2000:]
    assert SECRET not in done.stderr + done.stdout


def test_a_well_formed_value_starts():
    done = check(json.dumps([{"id": "company", "name": "Company", "server_url": "https://id.example.com",
                              "client_id": "slugline", "secret": SECRET}]))
    assert done.returncode == 0, done.stderr[-2000:]


def test_gunicorn_does_not_start_with_a_malformed_value():
    """Its workers fail to boot on the settings, and the master gives up (no site
    answering with providers missing)."""
    from django.conf import settings

    from bench.harness import Site

    site = Site(mongodb_uri=settings.MONGODB_URI, name=settings.MONGODB_NAME, workers=1)
    try:
        with pytest.raises(RuntimeError, match="did not start"):
            site.start(AUTH_OIDC_PROVIDERS='[{"id": "company"')
        assert "ImproperlyConfigured: AUTH_OIDC_PROVIDERS is not valid JSON" in site.log()
    finally:
        site.stop()
        shutil.rmtree(site.workdir, ignore_errors=True)
