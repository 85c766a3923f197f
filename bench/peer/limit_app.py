"""The limit: Slugline's post page rendered from comments held in memory.

A Django WSGI app on Slugline's settings and middleware, whose URLconf is Slugline's
with one view swapped (bench/peer/limit_page.py): /posts/<slug>/ renders
cms/post_detail.html as cms.views.post_detail does, but the post and its first page of
threaded comments were read from MongoDB once, when the worker started, and the
comments are rendered on every request (no comments cache). What Slugline's page
costs beyond this is its database work (and anything it does per request that this
skips).

    gunicorn --config gunicorn.conf.py --pythonpath bench/peer limit_app:application

Environment: Slugline's (MONGODB_URI, MONGODB_NAME, ...) and LIMIT_POST_SLUG, the
post to serve. gunicorn imports this module in each worker after forking (the
configuration does not preload the app), so each worker opens its own MongoClient,
once, as PyMongo asks.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
os.environ["DJANGO_SETTINGS_MODULE"] = "limit_settings"

from django.core.wsgi import get_wsgi_application  # noqa: E402

application = get_wsgi_application()

from cms import posts  # noqa: E402
from limit_page import handler400, handler403, handler404, keep, urlpatterns  # noqa: E402, F401

POST = posts.get_published(os.environ["LIMIT_POST_SLUG"])
if POST is None:
    raise RuntimeError(f"no published post {os.environ['LIMIT_POST_SLUG']!r}")
LISTING = keep(POST)
