"""The old name of the settings module, kept so that `DJANGO_SETTINGS_MODULE=cms.settings`
in an existing deployment keeps working. The settings live in `slugline/settings.py`."""

from slugline.settings import *  # noqa: F401,F403
