"""Commenters' names: how a typed or imported name is cleaned before it is stored, and
the names anonymous commenters may not take: those of the site's authors (the author
copies its posts carry, so no query of Django's database) and of its members (the
host's `member_names`), however spelled, with look-alike letters too. Every
stranger's comment asks, so what is built from them is kept in the process for
NAMES_SECONDS (`reserved`): a site's members make it large (20,000 names, 1.4 MB
pickled), too large to read back out of a cache for each comment.

(Staff comments carry a badge from `CommentAuthor.staff`, stored when they post.)"""

from __future__ import annotations

import functools
import itertools
import threading
import time
import unicodedata
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from django.core.cache import cache
from django.utils.translation import gettext_noop
from pymongo.errors import PyMongoError

from comments.host import get_host
from comments.internal import unicode_text
from infra import mongo

NAMES_SECONDS = 60
# How many names' readings a process remembers between builds (`_reserved_forms`).
NAMES_REMEMBERED = 100_000
# The cache key of the names' generation: `forget` draws a new one, so every process
# sharing the cache (or only this one, with a cache of its own) builds them again.
_GENERATION = "comments:reserved-names:generation"
TAKEN = gettext_noop(
    "“{name}” is the name of one of this site's authors or members. Please choose another "
    "name, or log in if it is yours."
)
# Categories that become a space in a name: controls (tab, NEL "\x85"), line and
# paragraph separators, and every kind of space.
_SPACES = {"Cc", "Zl", "Zp", "Zs"}


def clean(name: str) -> str:
    """A name as it is stored and shown: NFC; bidi controls (U+202E, which would draw
    "\u202erofakO onurB" as "Bruno Okafor") and every other invisible format
    character dropped, but for the zero-width joiners inside a word of a script that
    draws with them (Devanagari half forms); line breaks, controls and other spaces
    made single spaces; trimmed."""
    kept: list[str] = []
    for ch in unicodedata.normalize("NFC", str(name)):
        if unicodedata.category(ch) in _SPACES:
            kept.append(" ")
        elif ch in (unicode_text.ZWJ, unicode_text.ZWNJ):
            if kept and not kept[-1].isascii() and unicodedata.category(kept[-1])[0] in "LM":
                kept.append(ch)
        elif not unicode_text.is_invisible(ch):
            kept.append(ch)
    return " ".join("".join(kept).split())


def _split(key: str) -> tuple[str, ...]:
    """A look-alike key's words: runs of letters, digits and marks."""
    found, word = [], []
    for ch in key:
        if unicodedata.category(ch)[0] in "LNM":
            word.append(ch)
        elif word:
            found.append("".join(word))
            word = []
    if word:
        found.append("".join(word))
    return tuple(found)


def words(name: str) -> tuple[str, ...]:
    """A name as a reader would read it, word by word, for comparing: look-alike
    letters as the letters they imitate, without case, Latin diacritics, invisible
    characters or punctuation ("Brunо  Okafor!" with a Cyrillic о is ("bruno",
    "okafor")). Letters, digits and the marks of scripts whose marks are part of
    their letters (Devanagari) stay, so two different Hindi names stay different.
    This is the name read in lower case; `readings` gives every reading."""
    return _split(unicode_text.lookalike_key(name))


def readings(name: str, *, every_case: bool = False) -> frozenset[tuple[str, ...]]:
    """`words` of the name in each way a reader may read it (unicode_text's
    `lookalike_keys`: in lower case, and as written with its look-alike capitals read
    as the capitals they imitate, so "ВRUNО ОKAFOR" is ("bruno", "okafor")); with
    `every_case`, of the name in every case it may be written in (`spelling_keys`)."""
    keys = unicode_text.spelling_keys(name) if every_case else unicode_text.lookalike_keys(name)
    return frozenset(filter(None, (_split(key) for key in keys)))


def run_together(name: str) -> str:
    """A name's words run together, as `is_taken` compares a name typed without spaces:
    "Ada Lindqvist.", "ａｄａ lindqvist" and "ADA-LINDQVIST" are all "adalindqvist"."""
    return "".join(words(name))


# An author's words run together are compared in every order up to this many words.
ORDERED_WORDS = 4


@functools.lru_cache(maxsize=NAMES_REMEMBERED)
def _reserved_forms(name: str) -> tuple[frozenset[tuple[str, ...]], frozenset[str]]:
    """One name's part of `Reserved`: its readings in every case, and their words run
    together in any order. Remembered by name, so building the names again (each
    NAMES_SECONDS, after `forget`) reads anew only the names that changed: a name's
    readings take ICU about 0.4 ms, 8 s for 20,000 members."""
    found = readings(name, every_case=True)
    joined = frozenset(
        "".join(order)
        for reading in found
        for order in (itertools.permutations(reading) if len(reading) <= ORDERED_WORDS else (reading,))
    )
    return found, joined


@dataclass(frozen=True)
class Reserved:
    """Names no one else may take, as `taken_by` compares them: each name's readings
    in every case (sets of words), and their words run together in any order."""

    names: frozenset[tuple[str, ...]] = frozenset()
    run_together: frozenset[str] = frozenset()

    @classmethod
    def of(cls, names: Iterable[str]) -> Reserved:
        forms = [_reserved_forms(name) for name in set(names)]
        return cls(names=frozenset().union(*(found for found, _ in forms)),
                   run_together=frozenset().union(*(joined for _, joined in forms)))

    def taken_by(self, name: str) -> bool:
        """Whether `name` would pass for one of these names: its words, in any order and
        with words around them ("BRUNO OKAFOR (editor)", "Okafor, Bruno"), or run
        together ("adalindqvist"), in any reading of either."""
        seen = readings(name)
        typed = frozenset(word for reading in seen for word in reading)
        if not typed:
            return False
        joined = {"".join(reading) for reading in seen}
        return (
            not typed.isdisjoint(self.run_together)
            or not self.run_together.isdisjoint(joined)
            or any(typed.issuperset(reserved) for reserved in self.names)
        )


@dataclass(frozen=True)
class _Kept:
    names: Reserved
    generation: str
    until: float


_kept: _Kept | None = None
_building = threading.Lock()


def reserved() -> Reserved:
    """The display names of the authors of the site's posts and of its members (not
    their usernames: "chen" is many people's name, "Chen Mei" one author's): built at
    most once per NAMES_SECONDS in a process, and again once `forget` was called (or
    the cache emptied). No names while MongoDB is unreachable: the comment then cannot
    be stored either, and the form comes back with the reader's text and the outage's
    message."""
    global _kept
    generation = cache.get(_GENERATION)
    kept = _kept
    if kept is not None and kept.generation == generation and kept.until > time.monotonic():
        return kept.names
    with _building:
        if _kept is not kept and _kept is not None and _kept.generation == generation:
            return _kept.names  # another thread built them meanwhile
        if generation is None:
            generation = uuid.uuid4().hex
            if not cache.add(_GENERATION, generation, None):
                generation = cache.get(_GENERATION) or generation
        try:
            host = get_host()
            names = Reserved.of([*host.author_names(), *host.member_names()])
        except PyMongoError as exc:
            if not mongo.is_outage(exc):
                raise
            return Reserved()
        _kept = _Kept(names=names, generation=generation, until=time.monotonic() + NAMES_SECONDS)
        return names


def forget() -> None:
    """Build the names again at the next check: a new author's or member's name is
    reserved from then on (an import that makes authors as it goes, a member who
    changes their display name). Every process that shares the cache sees it."""
    cache.set(_GENERATION, uuid.uuid4().hex, None)


def is_taken(name: str) -> bool:
    """Whether an anonymous commenter's `name` would pass for an author's: the same
    name however spelled, its words in any order, run together ("adalindqvist"), or
    with words around it ("BRUNO OKAFOR (editor)")."""
    return reserved().taken_by(name)
