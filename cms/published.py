"""The published post at an address, for the blog's pages and the comments app's
host (cms/comments_host.py), with the copy last read while MongoDB is unreachable."""

from django.http import Http404
from django.utils.translation import gettext, gettext_noop

from cms import posts
from infra import stale

NO_SUCH_POST = gettext_noop("There is no published post at this address.")


def published_post_or_404(slug: str) -> posts.Post:
    """The published post, or the copy last read while MongoDB is unreachable."""
    post = stale.remembered(f"post:{slug}", lambda: posts.get_published(slug))
    if post is None:
        raise Http404(gettext(NO_SUCH_POST))
    return post
