"""The limit's post page: cms/post_detail.html rendered as cms.views.post_detail renders
it (its comment section kept on the request for `{% comment_section %}`), from a post
and a page of comments already in memory, the comments rendered on every request (no
comments cache). What Slugline's page costs beyond this is its database work (and
anything it does per request that this skips).

A URLconf: Slugline's, with /posts/<slug>/ served from `KEPT` (filled by `keep`).
bench/peer/limit_app.py serves it under gunicorn; bench/comment_pages.py asks it
through Django's test client (`override_settings(ROOT_URLCONF=...)`).
"""

from django.http import Http404
from django.shortcuts import render
from django.urls import path

from cms import posts
from comments.posting import services as comment_services
from comments.posting.forms import CommentForm
from comments.reading import fragments, listers, listings, sections
from slugline.urls import handler400, handler403, handler404  # noqa: F401
from slugline.urls import urlpatterns as site_urlpatterns

# The posts this URLconf serves, by slug, with the first page of their threaded comments.
KEPT: dict[str, tuple[posts.Post, listings.Listing]] = {}


def keep(post: posts.Post) -> listings.Listing:
    """Read `post`'s first threaded page once and serve the post from memory from now on."""
    listing = listers.list_comments(discussion_id=post.id, view="threaded")
    KEPT[post.slug] = (post, listing)
    return listing


def post_detail(request, slug):
    """cms.views.post_detail without the database and without the comments cache: the
    same templates and context, the comments rendered on every request."""
    if slug not in KEPT:
        raise Http404(f"this server only has {', '.join(f'/posts/{kept}/' for kept in KEPT)}")
    post, listing = KEPT[slug]
    section = sections.keep(request, sections.Section(
        discussion=post,
        comments_html=fragments.render_listing(post=post, listing=listing),
        number=1,
        form=CommentForm(user=request.user, discussion_id=post.id),
        closed=comment_services.comments_closed(post=post),
        messages=[],
    ))
    return render(request, "cms/post_detail.html", {"post": post, "messages": section.messages})


urlpatterns = [
    path("posts/<slug:slug>/", post_detail, name="post"),
    *[pattern for pattern in site_urlpatterns if getattr(pattern, "name", None) != "post"],
]
