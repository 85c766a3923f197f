"""A member's avatar beside their comments: their own picture when the host has one
(`BaseHost.member_pictures`, served by the host: asked once for a page of comments,
`pictures_of`), else their initials on a colour of the stylesheet's palette (classes
`avatar avatar-0` … `avatar-7`), drawn in HTML and CSS, so no reader's browser asks
anyone else for a picture. The initials come from what the comment stores (its author's
name and account id). It is decorative (`aria-hidden`, no alt text): the name beside
it says who wrote the comment."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from comments.host import MemberPicture, get_host

# The stylesheet's avatar colours (comments/static/comments/comments.css: .avatar-0 … .avatar-7).
PALETTE = 8


@dataclass(frozen=True)
class Avatar:
    initials: str
    colour: int
    # The member's picture, drawn in place of the initials (None: the initials).
    picture: MemberPicture | None = None


def _first_letter(word: str) -> str:
    """The word's first letter or digit with the marks that follow it ("É" from "Émile")."""
    for at, char in enumerate(word):
        if unicodedata.category(char)[0] in "LN":
            end = at + 1
            while end < len(word) and unicodedata.combining(word[end]):
                end += 1
            return unicodedata.normalize("NFC", word[at:end]).upper()
    return ""


def initials(name: str) -> str:
    """At most two letters: the first of the name's first and last words ("Ada
    Lovelace": "AL"; "grace": "G"); "?" for a name with no letter or digit."""
    letters = [letter for letter in map(_first_letter, name.split()) if letter]
    if not letters:
        return "?"
    return letters[0] + (letters[-1] if len(letters) > 1 else "")


def colour(user_id: int) -> int:
    """The member's colour: always the same for one account."""
    return int(user_id) % PALETTE


def avatar_for(*, user_id: int | None, name: str, picture: MemberPicture | None = None) -> Avatar | None:
    """A member's avatar; None for a stranger's comment (no account: no avatar)."""
    if user_id is None:
        return None
    return Avatar(initials=initials(name), colour=colour(user_id), picture=picture)


def pictures_of(user_ids: Iterable[int | None]) -> dict[int, MemberPicture]:
    """The pictures of these members that have one, by user id: one question to the
    host for all of them (none when there is no member among them)."""
    ids = sorted({int(user_id) for user_id in user_ids if user_id is not None})
    return get_host().member_pictures(ids) if ids else {}
