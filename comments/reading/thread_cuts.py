"""Where a page of comments cuts a thread at the indent limit: how many replies wait
behind each "Continue this thread" link, so that the link says so ("Continue this
thread (3 replies)"). A comment's replies follow it in every view that cuts threads,
so when the comment after the page is not one of them they are all among the page's
own comments and are counted there (comments/reading/cut_counts.py, no query); the store counts the
others, one subthread for each such link the page draws (a page draws few: a comment at
the limit whose replies run past the page's end, and one for a page that opens among
them). Plain functions over the store; no request in sight."""

from __future__ import annotations

from dataclasses import replace

from bson import ObjectId
from pymongo.errors import PyMongoError

from comments.reading.listings import Listing
from comments.records import Comment, Viewer
from comments.stores import get_store
from infra import mongo


def count_waiting(listing: Listing, *, discussion_id: ObjectId, viewer: Viewer) -> Listing:
    """`listing` with the number of replies behind each of its "Continue this thread"
    links, as `viewer` would find them on the page the link leads to: those the
    listing counted already (comments/reading/cut_counts.py) are kept."""
    store = get_store()

    def waiting(comment: Comment) -> int:
        return store.tally_listing(discussion_id=discussion_id, below=comment, viewer=viewer).comments

    shown = [replace(item, waiting=waiting(item.comment)) if item.continue_thread and not item.waiting else item
             for item in listing.shown]
    continued = 0
    if listing.continued_from:
        holder = store.find_by_slug(discussion_id=discussion_id, slug=listing.continued_from)
        continued = waiting(holder) if holder is not None else 0
    return replace(listing, shown=shown, continued_waiting=continued)


def count_waiting_if_available(listing: Listing, *, discussion_id: ObjectId, viewer: Viewer) -> Listing:
    """`count_waiting`, or `listing` as it is (its links without a number) while MongoDB
    is unreachable or over its budget: a page that could be listed is still drawn."""
    try:
        return count_waiting(listing, discussion_id=discussion_id, viewer=viewer)
    except PyMongoError as exc:
        if not mongo.is_outage(exc):
            raise
        return listing
