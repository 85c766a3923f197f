"""Entity tags for the API's reads, and the 304 that saves sending a page again.

Only answers that are the same for every reader are tagged: a viewer with comments
of their own, a member or an editor sees Edit rights and pending comments that
change with time, not only with the discussion. A shared answer's tag is a digest of
what it shows, and nothing else: a change readers cannot see (a comment held for
moderation, a spam comment removed before anyone saw it) leaves the answer and so
its tag as they were, and tells no one that something happened.

The answer is kept in the default cache under its discussion's version (every change
to the discussion raises its `seq`: comments/stores/discussion_state.py; what the HTML
pages' cache keys are made of, comments/reading/fragments.py), the request and the settings
that shape it: while the discussion is unchanged, a request and its 304 read no
comment.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.http import HttpResponseNotModified
from django.utils.translation import get_language

from comments.api import Discussion, comments_closed
from comments.rest import VIEWS, Viewer, comment_settings, discussion_version, store_in_use

# Bump when the shape of the API's answers, or of what the cache keeps, changes.
REVISION = 2
# Answers the same for every reader are kept in the default cache under these keys.
CACHE_PREFIX = "api:v1:"


def cache_key(*, post: Discussion, viewer: Viewer, what: str, query: dict[str, str | None]) -> str | None:
    """The cache key of an answer about `post` for this request (`what`: the endpoint,
    `query`: its parameters) at the discussion's version, or None for an answer that
    is not shared."""
    if not viewer.shared:
        return None
    current = comment_settings()
    parts = {
        "what": what, "query": query, "discussion": str(post.id), "version": discussion_version(post.id),
        "slug": post.slug, "closed": comments_closed(discussion=post), "store": store_in_use(),
        "per_page": current.per_page, "indent": current.indent_limit, "max_depth": current.max_depth,
        "language": get_language(), "views": list(VIEWS), "revision": REVISION,
    }
    return CACHE_PREFIX + hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:32]


def tag_of(body: Any) -> str:
    """The strong entity tag of an answer: a digest of its content (and of REVISION)."""
    text = json.dumps([REVISION, body], sort_keys=True, default=str, ensure_ascii=False)
    return '"' + hashlib.sha256(text.encode()).hexdigest()[:32] + '"'


def matches(request, etag: str | None) -> bool:
    """Whether the client's If-None-Match names `etag` (or is `*`)."""
    if etag is None:
        return False
    sent = request.headers.get("If-None-Match", "")
    tags = {tag.strip().removeprefix("W/") for tag in sent.split(",")}
    return etag in tags or "*" in tags


def not_modified(etag: str) -> HttpResponseNotModified:
    response = HttpResponseNotModified()  # no body, so no Content-Type
    response["ETag"] = etag
    return response
