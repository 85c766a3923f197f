"""Slugline's settings. Every value comes from the environment (see `.env.example`).

Nothing here differs between development and production except through the
environment, and nothing here connects to a database.
"""

import secrets
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)


def _local_secret_key() -> str:
    """A key generated once into var/ for local runs; production sets SECRET_KEY."""
    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = env.str("SECRET_KEY", default="") or _local_secret_key()
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django.contrib.sitemaps",
    "cms",
    "comments",
]

MIDDLEWARE = [
    "cms.middleware.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "cms.middleware.MongoBudgetMiddleware",
]

ROOT_URLCONF = "cms.urls"
WSGI_APPLICATION = "cms.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Django's own database: users, sessions, permissions. Posts and comments live in MongoDB.
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# MongoDB. An empty MONGODB_URI means "the dev database" (see cms/devdb.py).
MONGODB_URI = env.str("MONGODB_URI", default="")
MONGODB_NAME = env.str("MONGODB_NAME", default="slugline")
# Time budgets: a page never waits for pymongo's 30-second defaults. A request's
# MongoDB work as a whole gets MONGODB_REQUEST_BUDGET_MS (cms.middleware); past it,
# or with the server unreachable, pages degrade instead of tying up a worker.
MONGODB_CONNECT_TIMEOUT_MS = env.int("MONGODB_CONNECT_TIMEOUT_MS", default=1000)
MONGODB_SERVER_SELECTION_TIMEOUT_MS = env.int("MONGODB_SERVER_SELECTION_TIMEOUT_MS", default=1000)
# pymongo retries a read until its budget runs out, so the budget (not the server
# selection timeout) bounds how long a request waits for a database that is down.
MONGODB_TIMEOUT_MS = env.int("MONGODB_TIMEOUT_MS", default=1500)
MONGODB_REQUEST_BUDGET_MS = env.int("MONGODB_REQUEST_BUDGET_MS", default=1500)
MONGODB_HEARTBEAT_MS = env.int("MONGODB_HEARTBEAT_MS", default=1000)

# The blog.
POSTS_PER_PAGE = env.int("POSTS_PER_PAGE", default=10)
DASHBOARD_POSTS_PER_PAGE = env.int("DASHBOARD_POSTS_PER_PAGE", default=25)
FEED_ITEMS = env.int("FEED_ITEMS", default=20)

# Logging in (Django's auth views, in the site's layout) and the dashboard.
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard:posts"
LOGOUT_REDIRECT_URL = "home"
# A refused CSRF check is a 403 in the site's layout, like every other refusal.
CSRF_FAILURE_VIEW = "cms.errors.csrf_failure"

# Comments (app-prefixed, documented in README.md).
COMMENTS_PER_PAGE = env.int("COMMENTS_PER_PAGE", default=50)
COMMENTS_MAX_DEPTH = env.int("COMMENTS_MAX_DEPTH", default=8)
COMMENTS_INDENT_LIMIT = env.int("COMMENTS_INDENT_LIMIT", default=5)
COMMENTS_MAX_LENGTH = env.int("COMMENTS_MAX_LENGTH", default=10_000)
# How long a rendered comment form may be used to post (seconds).
COMMENTS_FORM_MAX_AGE = env.int("COMMENTS_FORM_MAX_AGE", default=2 * 24 * 3600)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = env.str("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
WHITENOISE_USE_FINDERS = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    # 4xx answers are the site working as meant (a bad page number, a missing post):
    # gunicorn's access log records them; Django would add a traceback for each.
    "loggers": {"django.request": {"level": "ERROR"}},
}
