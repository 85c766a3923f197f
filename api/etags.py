"""Entity tags for the API's reads, and the 304 that saves sending a page again.

A page of comments changes only when its discussion's comments do, and every such
change raises its discussion's `seq` (comments/discussion_state.py; what the HTML pages' cache keys are
made of, comments/fragments.py). So a tag made of that version, the request and the
settings that shape the answer says whether a client's copy is still current without
reading a single comment. Only answers that are the same for every reader are tagged:
a viewer with comments of their own, a member or an editor sees Edit rights and
pending comments that change with time, not only with the version.
"""

from __future__ import annotations

import hashlib
import json

from django.http import HttpResponse
from django.utils.translation import get_language

from comments import conf, counters, fragments, listings, services
from comments.host import Discussion
from comments.records import Viewer

# Bump when the shape of the API's answers changes.
REVISION = 1
# Answers the same for every reader are kept in the default cache under their tag.
CACHE_PREFIX = "api:v1:"


def etag_for(*, post: Discussion, viewer: Viewer, what: str, query: dict[str, str | None]) -> str | None:
    """The strong entity tag of an answer about `post` for this request (`what`: the
    endpoint, `query`: its parameters), or None for an answer that is not shared."""
    if not viewer.shared:
        return None
    current = conf.get()
    parts = {
        "what": what, "query": query, "discussion": str(post.id), "version": counters.version(post.id),
        "slug": post.slug, "closed": services.comments_closed(post=post), "store": fragments.store_in_use(),
        "per_page": current.per_page, "indent": current.indent_limit, "max_depth": current.max_depth,
        "language": get_language(), "views": list(listings.VIEWS), "revision": REVISION,
    }
    return '"' + hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:32] + '"'


def matches(request, etag: str | None) -> bool:
    """Whether the client's If-None-Match names `etag` (or is `*`)."""
    if etag is None:
        return False
    sent = request.headers.get("If-None-Match", "")
    tags = {tag.strip().removeprefix("W/") for tag in sent.split(",")}
    return etag in tags or "*" in tags


def not_modified(etag: str) -> HttpResponse:
    response = HttpResponse(status=304)
    response["ETag"] = etag
    return response
