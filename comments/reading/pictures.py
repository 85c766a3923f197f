"""Members' pictures on a page of comments: whatever the page draws (a listing, a
permalink page's comment, its ancestors and replies) is given its authors' pictures
after one question to the host for all of them (comments/reading/avatars.py), never one
per comment."""

from __future__ import annotations

from dataclasses import replace

from comments.reading.avatars import pictures_of
from comments.reading.listings import Listing, Shown


def with_pictures(*groups: list[Shown]) -> list[list[Shown]]:
    """Each group of comments as drawn, its members' comments with their pictures (a
    placeholder shows no author, so it is not asked about)."""
    found = pictures_of(item.comment.author.id for group in groups for item in group if not item.placeholder)
    if not found:
        return [list(group) for group in groups]
    return [[replace(item, picture=found.get(item.comment.author.id)) if not item.placeholder
             and item.comment.author.id is not None else item for item in group] for group in groups]


def listing_with_pictures(listing: Listing) -> Listing:
    """The listing with its members' pictures."""
    [shown] = with_pictures(listing.shown)
    return replace(listing, shown=shown)


def item_with_picture(item: Shown) -> Shown:
    """One comment with its author's picture (a page that draws it alone)."""
    [[shown]] = with_pictures([item])
    return shown
