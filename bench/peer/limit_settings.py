"""Slugline's settings with the limit's URLconf (bench/peer/limit_app.py)."""

from slugline.settings import *  # noqa: F403

ROOT_URLCONF = "limit_app"
WSGI_APPLICATION = "limit_app.application"
