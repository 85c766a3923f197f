"""The old name of the WSGI module, kept so that `gunicorn cms.wsgi` in an existing
deployment keeps working. The application lives in `slugline/wsgi.py`."""

from slugline.wsgi import application  # noqa: F401
