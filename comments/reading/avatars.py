"""A member's avatar beside their comments: their initials on a colour of the
stylesheet's palette (classes `avatar avatar-0` … `avatar-7`), drawn in HTML and CSS,
so no reader's browser asks anyone for a picture. Both come from what the comment
stores (its author's name and account id), so a cached page draws the same avatar.
It is decorative (`aria-hidden`): the name beside it says who wrote the comment."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

# The stylesheet's avatar colours (comments/static/comments/comments.css: .avatar-0 … .avatar-7).
PALETTE = 8


@dataclass(frozen=True)
class Avatar:
    initials: str
    colour: int


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


def avatar_for(*, user_id: int | None, name: str) -> Avatar | None:
    """A member's avatar; None for a stranger's comment (no account: no avatar)."""
    if user_id is None:
        return None
    return Avatar(initials=initials(name), colour=colour(user_id))
