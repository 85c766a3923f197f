"""A tiny OpenID Connect provider for the tests: django-allauth's own (allauth.idp.oidc)
in a Django project of its own, apart from Slugline (tests/oidc_provider/harness.py
starts it under gunicorn on a loopback port and stops it).

Everything comes from the environment the harness sets: the SQLite file, the signing
key. Its cookies have names of their own: browsers share cookies between ports of one
host, and Slugline runs on the same loopback address.
"""

import os

SECRET_KEY = os.environ["OIDC_PROVIDER_SECRET_KEY"]
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "allauth",
    "allauth.account",
    "allauth.idp.oidc",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]
ROOT_URLCONF = "tests.oidc_provider.urls"
# allauth's own templates (its sign-in and consent pages), which need the request.
TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True,
              "OPTIONS": {"context_processors": ["django.template.context_processors.request",
                                                 "django.contrib.auth.context_processors.auth"]}}]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ["OIDC_PROVIDER_DB"]}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # test users only
USE_TZ = True

SESSION_COOKIE_NAME = "provider_sessionid"
CSRF_COOKIE_NAME = "provider_csrftoken"
MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"
LOGIN_URL = "account_login"

AUTHENTICATION_BACKENDS = ["allauth.account.auth_backends.AuthenticationBackend"]
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_RATE_LIMITS = False

IDP_OIDC_PRIVATE_KEY = os.environ["OIDC_PROVIDER_PRIVATE_KEY"]
