"""The limit: Slugline's post page rendered from comments already in memory.

A Django WSGI app on Slugline's settings and middleware, whose URLconf is Slugline's
with one view swapped: /posts/<slug>/ renders cms/post_detail.html as cms.views.post_detail
does (its comment section kept on the request for `{% comment_section %}`), but the post and its first
page of threaded comments were read from MongoDB once, when the worker started, and the
comments are rendered on every request (no comments cache). What
Slugline's page costs beyond this is its database work (and anything it does per
request that this skips).

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

from django.http import Http404  # noqa: E402
from django.shortcuts import render  # noqa: E402
from django.urls import path  # noqa: E402

from cms import posts  # noqa: E402
from comments.reading import fragments, listers, sections  # noqa: E402
from comments.posting import services as comment_services  # noqa: E402
from comments.posting.forms import CommentForm  # noqa: E402
from slugline.urls import handler400, handler403, handler404  # noqa: E402, F401
from slugline.urls import urlpatterns as site_urlpatterns  # noqa: E402

POST = posts.get_published(os.environ["LIMIT_POST_SLUG"])
if POST is None:
    raise RuntimeError(f"no published post {os.environ['LIMIT_POST_SLUG']!r}")
LISTING = listers.list_comments(discussion_id=POST.id, view="threaded")


def post_detail(request, slug):
    """cms.views.post_detail without the database and without the comments cache: the
    same templates and context, the comments rendered on every request."""
    if slug != POST.slug:
        raise Http404(f"this server only has /posts/{POST.slug}/")
    section = sections.keep(request, sections.Section(
        discussion=POST,
        comments_html=fragments.render_listing(post=POST, listing=LISTING),
        number=1,
        form=CommentForm(user=request.user, discussion_id=POST.id),
        closed=comment_services.comments_closed(post=POST),
        messages=[],
    ))
    return render(request, "cms/post_detail.html", {"post": POST, "messages": section.messages})


urlpatterns = [
    path("posts/<slug:slug>/", post_detail, name="post"),
    *[pattern for pattern in site_urlpatterns if getattr(pattern, "name", None) != "post"],
]
