"""The peer of bench/peer.py: a tiny blog whose threaded comments are
django-comments-xtd's, in Django's SQLite database. Not part of Slugline; it runs in
its own virtualenv (var/peer-venv/) and only ever on loopback.

Environment: XTD_DATABASE (the SQLite file, default var/peer/xtd.sqlite3),
XTD_SECRET_KEY (bench/peer.py passes one per run; a fresh one otherwise).
"""

import os
import secrets
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
REPO = BASE_DIR.parents[2]

SECRET_KEY = os.environ.get("XTD_SECRET_KEY") or secrets.token_urlsafe(50)
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.sites",
    # xtd first: its templates replace django_comments' own (as its docs ask).
    "django_comments_xtd",
    "django_comments",
    "blog",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "xtd_site.urls"
WSGI_APPLICATION = "xtd_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
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

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("XTD_DATABASE") or str(REPO / "var" / "peer" / "xtd.sqlite3"),
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"

SITE_ID = 1
COMMENTS_APP = "django_comments_xtd"
# Slugline nests replies up to COMMENTS_MAX_DEPTH (8, at most 19) levels; xtd's
# default (0) allows no replies at all.
COMMENTS_XTD_MAX_THREAD_LEVEL = 19
COMMENTS_XTD_CONFIRM_EMAIL = False
