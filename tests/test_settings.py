"""Settings come from the environment (django-environ), with safe defaults."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROBE = (
    "import json, django; from django.conf import settings; django.setup(); "
    "print(json.dumps({k: str(getattr(settings, k)) for k in "
    "['DEBUG', 'ALLOWED_HOSTS', 'MONGODB_URI', 'MONGODB_NAME', 'MONGODB_TIMEOUT_MS', "
    "'COMMENTS_MAX_DEPTH', 'SECRET_KEY']} | {'DB': settings.DATABASES['default']['NAME'], "
    "'ENGINE': settings.DATABASES['default']['ENGINE']}))"
)
NAMES = [
    "DEBUG", "ALLOWED_HOSTS", "MONGODB_URI", "MONGODB_NAME", "MONGODB_TIMEOUT_MS",
    "COMMENTS_MAX_DEPTH", "SECRET_KEY", "DATABASE_URL",
]


def load_settings(**env) -> dict:
    """Settings as a fresh process sees them with exactly these variables set."""
    clean = {k: v for k, v in os.environ.items() if k not in NAMES}
    clean.update(env, DJANGO_SETTINGS_MODULE="cms.settings")
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, env=clean, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_defaults_are_safe_for_a_fresh_checkout():
    """DEBUG is off, hosts are loopback, Django's database is SQLite under var/."""
    loaded = load_settings()
    assert loaded["DEBUG"] == "False"
    assert "127.0.0.1" in loaded["ALLOWED_HOSTS"]
    assert loaded["ENGINE"] == "django.db.backends.sqlite3"
    assert loaded["DB"].endswith("var/db.sqlite3")
    assert loaded["MONGODB_URI"] == ""
    assert loaded["MONGODB_NAME"] == "slugline"
    assert loaded["SECRET_KEY"] == (REPO / "var" / "secret_key").read_text().strip()


def test_environment_overrides_every_setting():
    """Each documented variable reaches its setting."""
    loaded = load_settings(
        DEBUG="true",
        ALLOWED_HOSTS="blog.example.com,www.example.com",
        MONGODB_URI="mongodb://db.internal:27017/",
        MONGODB_NAME="prod",
        MONGODB_TIMEOUT_MS="750",
        COMMENTS_MAX_DEPTH="4",
        SECRET_KEY="from-the-environment",
        DATABASE_URL="sqlite:////tmp/slugline-elsewhere.sqlite3",
    )
    assert loaded["DEBUG"] == "True"
    assert loaded["ALLOWED_HOSTS"] == str(["blog.example.com", "www.example.com"])
    assert loaded["MONGODB_URI"] == "mongodb://db.internal:27017/"
    assert loaded["MONGODB_NAME"] == "prod"
    assert loaded["MONGODB_TIMEOUT_MS"] == "750"
    assert loaded["COMMENTS_MAX_DEPTH"] == "4"
    assert loaded["SECRET_KEY"] == "from-the-environment"
    assert loaded["DB"] == "/tmp/slugline-elsewhere.sqlite3"

