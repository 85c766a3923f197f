"""Rendered pages of comments, kept in Django's cache.

A post page and a discussion page show a page of comments that is the same for
every reader who sees what everyone sees. Its HTML is rendered once and kept in the
default cache (CACHES; local memory by default, Redis when CACHE_URL names it) for
COMMENTS_CACHE_SECONDS, under a key made of everything it depends on, the post's
version first: the `seq` of its discussion's state (comments/stores/discussion_state.py).
Every change to a discussion's comments (a comment, an edit, a delete, flags that
hold one, moderation, a rename, a vote, an import) raises it, so a list cached before
the change is never read again: a reader sees their own comment at once, and a hit
costs one read of the state by `_id` and no comment query at all.

What differs from reader to reader stays out: the fragment is rendered without the
request (no CSRF token, no user), the comment form is rendered around it on every
request, and a viewer whose page differs (an editor, a logged-in member, a browser
that posted comments: their pending comments, their Edit links) gets a page of their
own, never cached; so does a reader who voted on the discussion (their votes drawn
pressed, for pages read without JavaScript).

Plain functions; no request in sight.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from bson import ObjectId
from django.conf import settings
from django.core.cache import cache
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from pymongo.errors import PyMongoError

from comments import conf
from comments.host import Discussion, get_host
from comments.moderation import branches
from comments.posting import services
from comments.posting.confirmations import Confirmations
from comments.reading import listers, listings, thread_cuts
from comments.reading.pictures import listing_with_pictures
from comments.records import Tally, Viewer
from comments.stores import counters, get_store, store_switch
from comments.stores.discussion_state import State
from infra import mongo, stale
from infra.cache_prefix import delete_prefix

TEMPLATE = "comments/includes/comments.html"
# Bump when the fragment's templates change shape, so that a shared cache (Redis)
# serves no list rendered by the previous release.
REVISION = 8
KEY_PREFIX = "comments:list:"
# A page showing a comment posted moments ago says "2 minutes ago": it is kept for
# at most a tenth of the age of its youngest comment (never under MIN_SECONDS), so
# relative times stay about right.
MIN_SECONDS = 5


@dataclass(frozen=True)
class Fragment:
    """A rendered page of comments and the page number it shows (for the title)."""

    html: SafeString
    number: int
    cached: bool = False
    # The confirmations given were drawn beside their comment (it is on this page).
    placed: bool = False


def fragment_key(
    *, post: Discussion, view: str, page: str | None = None, after: str | None = None,
    before: str | None = None, version: str | None = None,
) -> str:
    """The cache key of one page of one discussion: everything the fragment depends on
    (`version`: its state's, read when not given)."""
    current = conf.get()
    parts = {
        "discussion": str(post.id),
        "version": version if version is not None else discussion_version(post.id),
        "slug": post.slug,
        "view": view,
        "page": page or "",
        "after": after or "",
        "before": before or "",
        "store": store_in_use(),
        "per_page": current.per_page,
        "max_depth": current.max_depth,
        "indent": current.indent_limit,
        "closed": services.comments_closed(post=post),
        "time_zone": settings.TIME_ZONE,
        # Rendered in the reader's language: one copy per language, never another's.
        "language": get_language(),
        "revision": REVISION,
        # Members' pictures as the host has them now (a removed one is drawn no more).
        "pictures": get_host().member_pictures_version(),
    }
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:40]
    return f"{KEY_PREFIX}{post.id}:{digest}"


def forget(discussion_id: ObjectId) -> int | None:
    """Drop every cached page of a discussion's comments, whatever its version (an
    erased member's words leave the cache with them), and keep its current state as the
    last good copy, so that no page under an older version is served in an outage
    either; how many pages went (None: the cache cannot list its keys, infra/cache_prefix.py)."""
    stale.remembered(f"discussion_state:{discussion_id}", lambda: counters.state(discussion_id, store=get_store()))
    return delete_prefix(cache, f"{KEY_PREFIX}{discussion_id}:")


def discussion_version(discussion_id: ObjectId) -> str:
    """The version of a discussion's pages (its counters' state's, in the store in use):
    part of every shared answer's cache key, new with every change to the discussion."""
    return counters.version(discussion_id, store=get_store())


def readers_tally(post: Discussion, state: State | None = None) -> Tally:
    """What a reader's listing of the whole discussion holds, from its counters
    (comments/stores/counters.py): a reader's page then costs one comment query, not two
    (plus one naming the parents of replies that open the page, when they are on an
    earlier page)."""
    counts = (state or counters.state(post.id, store=get_store())).counts
    return Tally(total=counts.listed, placeholders=counts.placeholders)


def store_in_use() -> str:
    """The comment store pages are read from (COMMENTS_STORE until `comments_migrate`
    records a switch); while MongoDB is unreachable, the setting, so that a cached page
    can still be served."""
    return store_switch.in_use()


def keep_seconds(listing: listings.Listing, *, now: datetime | None = None) -> int:
    """How long this page may stay cached: COMMENTS_CACHE_SECONDS, shortened while its
    youngest comment is recent enough for its relative time to change."""
    seconds = conf.get().cache_seconds
    times = [shown.comment.posted for shown in listing.shown]
    if not times:
        return seconds
    age = ((now or datetime.now(timezone.utc)) - max(times)).total_seconds()
    return max(MIN_SECONDS, min(seconds, int(age // 10)))


def render_listing(
    *, post: Discussion, listing: listings.Listing | None, confirmations: Confirmations | None = None,
    own_votes: dict[str, str] | None = None,
) -> SafeString:
    """The comments part of a page: heading, order links, the comments and the page
    links (or, for None, the notice that comments are unavailable); `confirmations`
    beside the comment they name. Its members' pictures are asked for here, once."""
    context = {
        "post": post,
        "listing": listing_with_pictures(listing) if listing is not None else None,
        "views": listers.VIEWS,
        "comments_url": reverse("comments:discussion", args=[post.slug]),
        # Vote buttons, which submit the page's vote form (comments/templatetags/comment_votes.py).
        "votes_shown": True,
        "confirmations": confirmations,
        "own_votes": own_votes or {},
        "closed": services.comments_closed(post=post),
    }
    return mark_safe(render_to_string(TEMPLATE, context))


def _state_if_available(post: Discussion) -> State | None:
    """The discussion's state, or during an outage the last one read (so a page
    cached under its version is still served); None while MongoDB is unreachable and
    no copy is kept (the listing then says so, or raises, as `comments_fragment` is asked)."""
    try:
        return stale.remembered(f"discussion_state:{post.id}", lambda: counters.state(post.id, store=get_store()))
    except PyMongoError as exc:
        if not mongo.is_outage(exc):
            raise
        return None


def comments_fragment(
    *, post: Discussion, view: str, viewer: Viewer, page: str | None = None, after: str | None = None,
    before: str | None = None, degrade: bool = False, confirmations: Confirmations | None = None,
    own_votes: dict[str, str] | None = None,
) -> Fragment:
    """A page of `post`'s comments as `viewer` sees it, rendered, from the cache when
    it may be shared and is there. `degrade`: while MongoDB is unreachable, the notice
    instead of an error (the post page). `confirmations`: messages about one comment,
    drawn beside it if this page shows it (such a page is this reader's own, never
    cached). `own_votes`: the reader's votes by comment slug, drawn pressed (a page of
    their own too). BadRequest and Http404 as `listers.list_comments`."""
    seconds = conf.get().cache_seconds
    key = None
    beside = confirmations if confirmations is not None and confirmations.beside else None
    state = _state_if_available(post) if viewer.shared else None
    if seconds and state is not None and beside is None and not own_votes:
        key = fragment_key(post=post, view=view, page=page, after=after, before=before, version=state.version)
        kept = cache.get(key)
        if kept is not None:
            return Fragment(html=mark_safe(kept["html"]), number=kept["number"], cached=True)
    query: dict[str, Any] = dict(discussion_id=post.id, view=view, page=page, after=after, before=before, viewer=viewer,
                 tally=readers_tally(post, state) if state is not None else None,
                 opens=state.opens if state is not None else None,
                 rules=branches.from_state(state) if state is not None else None)
    listing = listers.list_comments_if_available(**query) if degrade else listers.list_comments(**query)
    if listing is not None:
        listing = thread_cuts.count_waiting_if_available(listing, discussion_id=post.id, viewer=viewer)
    html = render_listing(post=post, listing=listing, confirmations=beside, own_votes=own_votes)
    number = listing.number if listing else 1
    if key is not None and listing is not None:
        cache.set(key, {"html": str(html), "number": number}, keep_seconds(listing))
    placed = beside is not None and listing is not None and any(
        item.comment.anchor == beside.anchor for item in listing.shown
    )
    return Fragment(html=html, number=number, placed=placed)
