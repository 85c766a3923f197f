"""The names anonymous commenters may not take: those of the site's authors (the
author copies its posts carry, so no query of Django's database), however spelled.
Kept for NAMES_SECONDS in Django's cache, since every comment posted asks.

(Staff comments carry a badge from `CommentAuthor.staff`, stored when they post.)"""

from __future__ import annotations

import unicodedata

from django.core.cache import cache
from django.utils.translation import gettext_noop
from pymongo.errors import PyMongoError

from comments import folding
from comments.host import get_host
from infra import mongo

NAMES_SECONDS = 60
_KEY = "comments:author-names"
TAKEN = gettext_noop(
    "“{name}” is the name of one of this site's authors. Please choose another name, "
    "or log in if it is yours."
)


def fold(name: str) -> str:
    """A name reduced to what a reader would take for the same name: the search fold
    (case, Latin diacritics, compatibility forms such as full-width letters and
    ligatures: comments/folding.py), then spaces and punctuation dropped ("Ada
    Lindqvist." and "ａｄａ lindqvist" are "adalindqvist"). Letters, digits and the
    marks of scripts whose marks are part of their letters (Devanagari) stay, so two
    different Hindi names never fold to the same consonants."""
    return "".join(ch for ch in folding.fold(name) if unicodedata.category(ch)[0] in "LNM")


def reserved() -> frozenset[str]:
    """The folded display names of the authors of the site's posts (not their
    usernames: "chen" is many people's name, "Chen Mei" one author's). Empty while
    MongoDB is unreachable: the comment then cannot be stored either, and the form
    comes back with the reader's text and the outage's message."""
    names = cache.get(_KEY)
    if names is None:
        try:
            names = frozenset(filter(None, (fold(name) for name in get_host().author_names())))
        except PyMongoError as exc:
            if not mongo.is_outage(exc):
                raise
            return frozenset()
        cache.set(_KEY, names, NAMES_SECONDS)
    return names


def is_taken(name: str) -> bool:
    """Whether an anonymous commenter's `name` would pass for an author's."""
    folded = fold(name)
    return bool(folded) and folded in reserved()
