"""Text folding: the forms of a text that match however people type it.

Pure functions, no Django and no I/O, so the blog (slugs, search), the dashboard
and the comments app can all use them.

Diacritics are dropped from Latin letters only ("đường" is "duong", "Hà Nội" is
"Ha Noi", "Straße" is "Strasse"): readers of Latin-script languages routinely type
without them. In other scripts the combining marks are part of the letters
(Devanagari vowel signs and virama, Cyrillic "й"), so they stay: only the text's
Unicode normal form (NFC) is made the same.
"""

from __future__ import annotations

import re
import unicodedata

# Latin letters that Unicode does not decompose into a base letter and a mark.
LATIN_LETTERS = _LATIN_LETTERS = str.maketrans(
    {
        "Đ": "D",
        "đ": "d",
        "Ð": "D",
        "ð": "d",
        "Ø": "O",
        "ø": "o",
        "Ł": "L",
        "ł": "l",
        "Ħ": "H",
        "ħ": "h",
        "Ŧ": "T",
        "ŧ": "t",
        "ı": "i",
        "ß": "ss",
        "ẞ": "SS",
        "Æ": "AE",
        "æ": "ae",
        "Œ": "OE",
        "œ": "oe",
        "Þ": "TH",
        "þ": "th",
    }
)
NUKTA = "\u093c"
ZWNJ, ZWJ = "\u200c", "\u200d"
# Dropped by `fold_for_search`: the nukta (क़ and क are typed interchangeably in Hindi) and the
# zero-width joiners, which change how a word is drawn, not what it says.
_INVISIBLE_IN_SEARCH = {ord(NUKTA): None, ord(ZWNJ): None, ord(ZWJ): None}


def _is_latin(ch: str) -> bool:
    return ch.isascii() or unicodedata.name(ch, "").startswith("LATIN ")


def _keeps_marks(base: str) -> bool:
    """Whether the combining marks after `base` are part of its letter: after a
    letter or digit of a script other than Latin."""
    return unicodedata.category(base)[0] in "LN" and not _is_latin(base)


def unaccent(text: str) -> str:
    """`text` in NFC with its Latin letters stripped of diacritics (and of
    compatibility forms: full-width letters, ligatures); other scripts as they are."""
    decomposed = unicodedata.normalize("NFKD", text).translate(_LATIN_LETTERS)
    kept: list[str] = []
    marks_kept = False
    for ch in decomposed:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Mc", "Me"):
            if marks_kept:
                kept.append(ch)
            continue
        marks_kept = _keeps_marks(ch)
        kept.append(ch)
    return unicodedata.normalize("NFC", "".join(kept))


def fold_for_search(text: str) -> str:
    """What a search compares: `text` without case, Latin diacritics, nukta or
    zero-width joiners, its runs of whitespace made single spaces. The same text
    typed in any of these ways folds to the same string."""
    # Decomposed first: NFC would hide a nukta inside a precomposed letter (ऩ).
    lowered = unicodedata.normalize("NFKD", text).casefold()
    return " ".join(unaccent(lowered.translate(_INVISIBLE_IN_SEARCH)).split())


def _variants_by_letter() -> dict[str, str]:
    """Each ASCII letter with every precomposed Latin letter that folds to it
    ("d": "dDđĐďĎ…"), from the Latin blocks of Unicode; each Devanagari letter
    with its precomposed nukta form ("क": "कक़")."""
    variants: dict[str, set[str]] = {}
    for code in (*range(0x41, 0x5B), *range(0x61, 0x7B), *range(0xC0, 0x250), *range(0x1E00, 0x1F00)):
        ch = chr(code)
        folded = fold_for_search(ch)
        if len(folded) == 1 and folded.isascii() and folded.isalpha():
            variants.setdefault(folded, set()).add(ch)
    for code in range(0x0900, 0x0980):
        ch = chr(code)
        folded = fold_for_search(ch)
        if len(folded) == 1 and folded != ch:
            variants.setdefault(folded, {folded}).add(ch)
    return {letter: "".join(sorted(chars)) for letter, chars in variants.items()}


_VARIANTS = _variants_by_letter()
# Combining marks a stored text may carry after a letter if it was stored decomposed.
_MARKS = "[\u0300-\u036f]*"
# What `fold_for_search` drops (_INVISIBLE_IN_SEARCH), anywhere in a stored text.
_INVISIBLE = "[" + NUKTA + ZWNJ + ZWJ + "]*"


def pattern(text: str) -> str:
    """A regular expression (for MongoDB's `$regex`, case-insensitive) that finds
    `text` inside stored text however either was typed: each Latin letter of the
    folded query matches any accented form of it ("duong" finds "Đường"), a
    Devanagari letter its nukta form, what folding drops (nukta, zero-width joiners)
    may be anywhere, everything else is escaped, so what a reader types is only ever
    matched literally."""
    parts = []
    for ch in fold_for_search(text):
        if ch == " ":
            parts.append(r"\s")
        elif ch in _VARIANTS:
            parts.append("[" + re.escape(_VARIANTS[ch]) + "]" + (_MARKS if ch.isascii() else ""))
        else:
            parts.append(re.escape(ch))
        # Whatever `fold_for_search` dropped (a nukta, a zero-width joiner) may follow, and more
        # whitespace after a space.
        parts.append(r"[\s" + _INVISIBLE[1:] if ch == " " else _INVISIBLE)
    return "".join(parts)


def contains(haystack: str, needle: str) -> bool:
    """Whether `needle` occurs in `haystack` however either was typed (the Python
    side of `pattern`)."""
    return fold_for_search(needle) in fold_for_search(haystack)
