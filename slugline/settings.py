"""Slugline's settings. Every value comes from the environment (see `.env.example`).

Nothing here differs between development and production except through the
environment, and nothing here connects to a database.
"""

import os
import secrets
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import environ
from csp.constants import NONCE, NONE, SELF

from slugline import languages

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)


def _given(casts: dict[str, Callable[[str], Any]]) -> dict[str, Any]:
    """The settings among `casts` that the environment (or .env) gives, each read by its
    django-environ method; the others are left unset, so that the app's own default
    (the one place it is written) applies."""
    return {name: cast(name) for name, cast in casts.items() if name in os.environ}


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
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# HTTPS and security headers (docs/deploy.md). HTTPS=true (production) turns on the
# redirect to https, secure cookies and HSTS; off by default so that `make run` works
# over plain http on 127.0.0.1. `manage.py check --deploy` passes with HTTPS=true.
HTTPS = env.bool("HTTPS", default=False)
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=HTTPS)
# Load balancers probe health over plain http; a redirect would read as "down".
SECURE_REDIRECT_EXEMPT = [r"^healthz/"]
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=365 * 24 * 3600 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=HTTPS)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=HTTPS)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Opt-in: only behind a reverse proxy that sets X-Forwarded-Proto and appends the
# client's address to X-Forwarded-For (docs/deploy.md has nginx's lines). Without such
# a proxy, clients could send these headers themselves.
BEHIND_PROXY = env.bool("BEHIND_PROXY", default=False)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if BEHIND_PROXY else None

# Content-Security-Policy (django-csp): scripts only from this site, and inline scripts
# only with the request's nonce (`<script nonce="{{ CSP_NONCE }}">`); no plugins, no
# framing, forms post only here. Pictures in posts and profiles may come from anywhere.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF],
        "img-src": [SELF, "https:", "http:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django.contrib.sitemaps",
    "axes",
    "csp",
    # Readers' accounts (docs/accounts.md): django-allauth and the site's accounts app.
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.openid_connect",
    "allauth.mfa",
    "allauth.usersessions",
    "slugline",
    "accounts",
    "infra",
    "comments",
    "media",
    "cms",
    "dashboard",
    "api",
    "webhooks",
]

MIDDLEWARE = [
    "slugline.middleware.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Below WhiteNoise (static files come compressed already), above every middleware
    # that reads or writes a body: text responses go out gzipped (BREACH: the module).
    "slugline.compression.TextGZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Vary: Cookie wherever LocaleMiddleware says Vary: Accept-Language (the cookie chooses too).
    "slugline.language_vary.LanguageCookieVaryMiddleware",
    # After sessions, before common (Django's order): the reader's language for the request.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # /api/ only: bounded bodies, per-IP rate limits, CORS for the allowed origins.
    "api.middleware.ApiLimitsMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # django-allauth: the login flow's state per request; the devices a member is signed in on.
    "allauth.account.middleware.AccountMiddleware",
    "allauth.usersessions.middleware.UserSessionsMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "slugline.middleware.MongoBudgetMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into slugline.logins.locked_out.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "slugline.urls"
WSGI_APPLICATION = "slugline.wsgi.application"

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
                "csp.context_processors.nonce",
            ],
        },
    },
]

# Django's own database: users, sessions, permissions. Posts and comments live in MongoDB.
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Django's cache: infra/stale.py's last good copies of pages and rendered pages of
# comments (COMMENTS_CACHE_SECONDS). Per process (locmem) by default; with several
# gunicorn workers or machines set CACHE_URL (redis://host:6379/0) so that they share
# one (Django's own Redis backend). The login throttle counts in Django's database, the
# comment rate limits in MongoDB. django-allauth's rate limits and replay guards live in
# the default cache and must be shared: with a per-process default, its keys go to a
# table of Django's database instead (slugline/caches.py; `manage.py createcachetable`
# makes it: the release step, make run and the test database do).
CACHES = {"default": env.cache_url("CACHE_URL", default="locmemcache://")}
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache":
    CACHES = {
        "default": {"BACKEND": "slugline.caches.SplitCache",
                    "OPTIONS": {"LOCAL": "local", "SHARED": "shared"}},
        "local": CACHES["default"],
        "shared": {"BACKEND": "django.core.cache.backends.db.DatabaseCache",
                   "LOCATION": "slugline_shared_cache"},
    }

# MongoDB. An empty MONGODB_URI means "the dev database" (see devdb/server.py).
MONGODB_URI = env.str("MONGODB_URI", default="")
MONGODB_NAME = env.str("MONGODB_NAME", default="slugline")
MONGODB_APPNAME = "slugline"  # the client's name in the server's logs
# Time budgets: a page never waits for pymongo's 30-second defaults. A request's
# MongoDB work as a whole gets MONGODB_REQUEST_BUDGET_MS (slugline.middleware); past it,
# or with the server unreachable, pages degrade instead of tying up a worker.
MONGODB_CONNECT_TIMEOUT_MS = env.int("MONGODB_CONNECT_TIMEOUT_MS", default=1000)
MONGODB_SERVER_SELECTION_TIMEOUT_MS = env.int("MONGODB_SERVER_SELECTION_TIMEOUT_MS", default=1000)
# pymongo retries a read until its budget runs out, so the budget (not the server
# selection timeout) bounds how long a request waits for a database that is down.
# MONGODB_TIMEOUT_MS bounds every operation, in requests and commands alike (0: no
# such bound, so batch commands such as seed_demo may take their time). Web requests
# are bounded by MONGODB_REQUEST_BUDGET_MS whatever it is; sockets by the other.
MONGODB_TIMEOUT_MS = env.int("MONGODB_TIMEOUT_MS", default=0)
MONGODB_SOCKET_TIMEOUT_MS = env.int("MONGODB_SOCKET_TIMEOUT_MS", default=60_000)
MONGODB_REQUEST_BUDGET_MS = env.int("MONGODB_REQUEST_BUDGET_MS", default=1500)
MONGODB_HEARTBEAT_MS = env.int("MONGODB_HEARTBEAT_MS", default=1000)

# The blog.
POSTS_PER_PAGE = env.int("POSTS_PER_PAGE", default=10)
DASHBOARD_POSTS_PER_PAGE = env.int("DASHBOARD_POSTS_PER_PAGE", default=25)
FEED_ITEMS = env.int("FEED_ITEMS", default=20)

# The media library (media/) and members' pictures (media/avatars.py): what an upload may be. Pixels are
# checked from the file's header before any is decoded, below Pillow's own bomb guard (89 megapixels).
MEDIA_UPLOAD_MAX_BYTES = env.int("MEDIA_UPLOAD_MAX_BYTES", default=10 * 1024 * 1024)
AVATAR_UPLOAD_MAX_BYTES = env.int("AVATAR_UPLOAD_MAX_BYTES", default=2_000_000)  # a member's picture
MEDIA_MAX_PIXELS = env.int("MEDIA_MAX_PIXELS", default=50_000_000)
MEDIA_MAX_SIDE = env.int("MEDIA_MAX_SIDE", default=12_000)
MEDIA_MIN_SIDE = env.int("MEDIA_MIN_SIDE", default=16)
# The memory one upload's decoding may take (bytes; reckoned from the header, before
# decoding): each worker decodes one picture at a time, so WEB_CONCURRENCY times this
# is what uploads can take of the machine.
MEDIA_DECODE_MAX_BYTES = env.int("MEDIA_DECODE_MAX_BYTES", default=200_000_000)
# What storing an upload's renditions may take (its own budget, not the request's).
MEDIA_STORE_SECONDS = env.float("MEDIA_STORE_SECONDS", default=30.0)
# An upload or deletion of a picture not finished after this long was interrupted:
# the files it left that no picture names are deleted (before the next upload, and by
# `manage.py clean_media`). Far longer than MEDIA_STORE_SECONDS.
MEDIA_PENDING_SECONDS = env.int("MEDIA_PENDING_SECONDS", default=3600)
MEDIA_PER_PAGE = env.int("MEDIA_PER_PAGE", default=24)
MEDIA_CACHE_SECONDS = env.int("MEDIA_CACHE_SECONDS", default=600)  # renditions kept in the cache (never change)
MEDIA_CACHE_MAX_BYTES = env.int("MEDIA_CACHE_MAX_BYTES", default=1_000_000)

# Logging in: one page for readers and editors, django-allauth's /accounts/login/ (also
# named "login"), in the site's layout. After it, editors go to the dashboard, readers back
# where they came from or home (accounts.adapter.AccountAdapter.get_login_redirect_url).
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
# A refused CSRF check is a 403 in the site's layout, like every other refusal.
CSRF_FAILURE_VIEW = "slugline.errors.csrf_failure"

# Login throttling (django-axes, counting in Django's database, so every worker and
# machine shares the counts and a restart keeps them; slugline/logins.py): after
# LOGIN_FAILURE_LIMIT bad passwords for one username from one address, logging in as
# them from there is refused for LOGIN_COOLOFF_MINUTES, counted per username and
# address together (failures from elsewhere never lock a user out). Tries sent at once
# may have up to (requests served at once - 1) more checked before the lock lands.
# Axes first, as it asks; then allauth's backend (Django's ModelBackend, plus a log-in
# by e-mail address). The name Axes counts under is the account's username whether its
# owner typed that or the address (slugline.logins.axes_username).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AXES_USERNAME_CALLABLE = "slugline.logins.axes_username"
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("LOGIN_COOLOFF_MINUTES", default=15))
# A lock ends LOGIN_COOLOFF_MINUTES after it began; further tries do not extend it.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "infra.clients.client_ip"
AXES_LOCKOUT_CALLABLE = "slugline.logins.locked_out"
# The admin lists the failed attempts; deleting one lifts its pause.
AXES_ENABLE_ADMIN = True
# Successful log-ins are not recorded (a table that would grow with every log-in).
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False
# Axes records failures from every worker at once. On SQLite (DATABASE_URL's default)
# each transaction then takes the write lock as it begins, so that two workers
# recording at once wait their turn instead of failing with "database is locked".
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("transaction_mode", "IMMEDIATE")

# Readers' accounts (django-allauth): its settings, in their own module for length.
from slugline.account_settings import *  # noqa: E402,F401,F403
# Links in account mail are https wherever the site is (a request behind a proxy that
# SECURE_PROXY_SSL_HEADER does not cover would otherwise say http).
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https" if HTTPS else "http"

# Comments (app-prefixed, documented in docs/reference.md). Each is set here only when
# the environment gives it; unset, the comments app's own default applies (the one
# place defaults are written: comments/conf.py).
# The site the comments app runs in (comments/host.py): the blog.
COMMENTS_HOST = "cms.comments_host.BlogHost"
# The app's pages in the blog's layout, their titles ending in its name.
COMMENTS_BASE_TEMPLATE = env.str("COMMENTS_BASE_TEMPLATE", default="base.html")
COMMENTS_SITE_NAME = env.str("COMMENTS_SITE_NAME", default="Slugline")
# The comments app's moderation pages, mounted in the dashboard, in its layout.
COMMENTS_MODERATION_BASE_TEMPLATE = env.str("COMMENTS_MODERATION_BASE_TEMPLATE",
                                            default="dashboard/moderation_base.html")
vars().update(_given({
    "COMMENTS_STORE": env.str,
    "COMMENTS_STORE_RECHECK_SECONDS": env.float,
    "COMMENTS_EMBEDDED_MAX_BYTES": env.int,
    "COMMENTS_PER_PAGE": env.int,
    "COMMENTS_MAX_DEPTH": env.int,
    "COMMENTS_INDENT_LIMIT": env.int,
    "COMMENTS_MAX_LENGTH": env.int,
    "COMMENTS_FORM_MAX_AGE": env.int,
    "COMMENTS_MODERATION": env.list,
    "COMMENTS_EDIT_WINDOW": env.int,
    "COMMENTS_FLAGS_TO_HOLD": env.int,
    "COMMENTS_MIN_FILL_SECONDS": env.int,
    "COMMENTS_RATE_WINDOW": env.int,
    "COMMENTS_RATE_PER_IP": env.int,
    "COMMENTS_RATE_PER_USER": env.int,
    "COMMENTS_DUPLICATE_WINDOW": env.int,
    "COMMENTS_CLOSE_AFTER_DAYS": env.int,
    "COMMENTS_QUEUE_PER_PAGE": env.int,
    "COMMENTS_CACHE_SECONDS": env.int,
    "COMMENTS_VOTES_PER_IP_PER_COMMENT": env.int,
    "COMMENTS_VOTES_PER_IP": env.int,
    "COMMENTS_DEFAULT_VIEW": env.str,
    "COMMENTS_FOLD_SCORE": env.int,
    "COMMENTS_MAX_PICKS": env.int,
    "COMMENTS_DISCUSSION_MODEL": env.str,
    "COMMENTS_DISCUSSION_SLUG_FIELD": env.str,
    "COMMENTS_WHO_MAY_COMMENT": env.str,
    "NOTIFICATIONS_BATCH_SECONDS": env.int,
    "NOTIFICATIONS_AUTHOR_DIGEST_MINUTES": env.int,
    "NOTIFICATIONS_QUEUE_DIGEST_MINUTES": env.int,
    "NOTIFICATIONS_CONFIRM_MAX_AGE": env.int,
    "NOTIFICATIONS_MANAGE_MAX_AGE": env.int,
    "NOTIFICATIONS_CONFIRM_WINDOW": env.int,
    "NOTIFICATIONS_CONFIRM_PER_ADDRESS": env.int,
    "NOTIFICATIONS_CONFIRM_PER_CLIENT": env.int,
    "NOTIFICATIONS_MODERATION_LINK_MAX_AGE": env.int,
}))

# E-mail (reply notifications and subscriptions: comments/notifications/notify.py, outbox.py, mail.py).
# EMAIL_URL in django-environ's form (smtp://user:pass@host:587, smtp+tls://…,
# smtp+ssl://…); unset, mail is written as files under var/mail/ (development).
# EMAIL_BACKEND, EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER/PASSWORD, EMAIL_USE_TLS/SSL,
# EMAIL_FILE_PATH: django-environ's documented `vars().update(env.email_url())`.
vars().update(env.email_url("EMAIL_URL", default=f"filemail:///{VAR_DIR / 'mail'}"))
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=20)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Slugline <noreply@localhost>")
# The site's address as links in mail spell it (mail is composed outside any request).
# Production sets it (docs/deploy.md; `check --deploy` warns on a loopback address);
# unset, it is this machine on the port the site listens on (PORT, as gunicorn.conf.py
# binds; `make run PORT=8137` also sets SITE_URL itself).
SITE_URL = env.str("SITE_URL", default=f"http://127.0.0.1:{env.int('PORT', default=8000)}").rstrip("/")
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Languages (slugline/languages.py). A reader's language: the one they chose with the
# switcher (POST /i18n/setlang/, kept in a cookie), else their browser's
# Accept-Language, else LANGUAGE_CODE. URLs carry no language prefix.
LANGUAGES = languages.LANGUAGES
LANGUAGE_CODE = languages.default_language(env.str("LANGUAGE_CODE", default="en"))
# The JSON API (api/; docs/api.md): set only when the environment gives them; unset,
# the API's own defaults apply (api/conf.py).
vars().update(_given({
    "API_RATE_PER_IP": env.int,
    "API_RATE_PER_TOKEN": env.int,
    "API_RATE_WINDOW": env.int,
    "API_COUNTS_MAX": env.int,
    "API_CORS_ORIGINS": env.list,
    "API_MAX_BODY_BYTES": env.int,
    # Webhooks (webhooks/; docs/webhooks.md): likewise, defaults in webhooks/conf.py.
    "WEBHOOKS_ALLOW_PRIVATE": env.bool,
    "WEBHOOKS_TIMEOUT_SECONDS": env.float,
    "WEBHOOKS_MAX_ANSWER_BYTES": env.int,
    "WEBHOOKS_RETRY_HOURS": env.float,
    "WEBHOOKS_CONCURRENCY": env.int,
}))

LOCALE_PATHS = [BASE_DIR / "locale"]
# Templates write dates as DATE_FORMAT / DATETIME_FORMAT of the reader's language;
# slugline/formats/ keeps the English ones the site chose.
FORMAT_MODULE_PATH = ["slugline.formats"]
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
LANGUAGE_COOKIE_SECURE = HTTPS
TIME_ZONE = env.str("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(VAR_DIR / "staticfiles")))
# WhiteNoise serves what `collectstatic` gathered into STATIC_ROOT, compressed and
# under content-hashed names (cached for a year). The release step, `make run` and
# the test session (tests/conftest.py) collect them first.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
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
