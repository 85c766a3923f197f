"""The Unicode rules the comments app takes from ICU (the reference implementation of
Unicode's algorithms, pinned in requirements.txt): confusable skeletons (UTS #39),
default-ignorable code points, and IDNA for e-mail domains (UTS #46). Pure functions,
no I/O; the only module that imports ICU.

`lookalike_key` is what a reader would take for the same text: "Brunо" with a
Cyrillic о, "ｃａｓｉｎｏ", "cas\u200bino" and "CASİNO" all have the key of their plain
Latin spelling. Keys are for comparing, never for showing.

Case and look-alikes do not commute: a capital may imitate a letter its lower-case
form does not (Cyrillic "В" looks like "B", "в" like a small capital; Greek "Η" like
"H", "η" like "n"), so a key made in lower case alone misses the capitals, and the
skeleton of the text as written is not case-blind ("I" is "l", "i" is "i"). A text
is therefore compared in each reading (`lookalike_keys`): in lower case, and as
written with each capital read as the Latin capital it looks like (`capital_reading`),
then folded; the text it is compared with is taken in every case it may be written in
(`spelling_keys`: as stored, upper case, each word capitalised). Two texts are the
same when some key of one is some key of the other: UTS #39's case-insensitive
comparison, without merging lower-case letters that only their capitals confuse (a
"hot" and a "not" stay apart).
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
from typing import Any

from infra import extras, folding

# PyICU is the "icu" extra (pyproject.toml). Without it the comparisons below fall back
# to the search fold alone (no confusable skeletons: "Brunо" with a Cyrillic о is not
# "Bruno") and Python's IDNA 2003; the system check comments.W040 says so.
icu: Any = extras.require("icu", extra="icu", feature="The look-alike check") if extras.available("icu") else None
ICU_MISSING = (
    "PyICU is not installed: names and texts are compared without look-alike skeletons. "
    + extras.MISSING.format(feature="The look-alike check", extra="icu") + "."
)
# Default-ignorable code points that are not format characters (Cf), for the fallback.
_IGNORABLE_NOT_CF = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x3164, 0x3164),
                     (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))


def _ignorable_ranges() -> list[tuple[int, int]]:
    if icu is not None:
        return [(ord(start), ord(end)) for start, end in icu.UnicodeSet("[:Default_Ignorable_Code_Point:]").ranges()]
    codes = {code for code in range(0x110000) if unicodedata.category(chr(code)) == "Cf"}
    codes.update(code for start, end in _IGNORABLE_NOT_CF for code in range(start, end + 1))
    ranges: list[tuple[int, int]] = []
    for code in sorted(codes):
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    return ranges

# Kept inside words of the scripts that need them (Devanagari half forms): see `strip_invisible`.
ZWNJ, ZWJ = "\u200c", "\u200d"
REPLACEMENT = "\ufffd"


@functools.cache
def _invisible() -> tuple[frozenset[int], re.Pattern]:
    """Every default-ignorable code point (bidi controls, zero-width spaces, variation
    selectors, tags, soft hyphens, ...): as a set, and as a pattern of runs of them."""
    ranges = _ignorable_ranges()
    codes = frozenset(code for start, end in ranges for code in range(start, end + 1))
    pattern = re.compile("[" + "".join(f"\\U{start:08x}-\\U{end:08x}" for start, end in ranges) + "]+")
    return codes, pattern


def drop_invisible(text: str) -> str:
    """`text` without its default-ignorable code points (which draw nothing)."""
    return _invisible()[1].sub("", text)


def is_invisible(ch: str) -> bool:
    """Whether `ch` is a default-ignorable code point or another format character."""
    return ord(ch) in _invisible()[0] or unicodedata.category(ch) == "Cf"


_local = threading.local()


def skeleton(text: str) -> str:
    """UTS #39's skeleton of `text`: each character replaced by the prototype of the
    characters it is confusable with ("о" Cyrillic and "ᴏ" both "o")."""
    if icu is None:
        return text
    checker = getattr(_local, "checker", None)
    if checker is None:  # one per thread: ICU's checker is not documented as shareable
        checker = _local.checker = icu.SpoofChecker()
    return str(checker.getSkeleton(0, text))


def lookalike_key(text: str) -> str:
    """What a reader would take for the same text, for comparing: invisible code points
    dropped, the search fold (case, Latin diacritics, compatibility forms:
    infra/folding.py), the confusable skeleton, then the fold again (a skeleton
    may give capitals or marks: "0" is "O", "ɓ" is "b̔")."""
    return folding.fold_for_search(skeleton(folding.fold_for_search(drop_invisible(text))))


@functools.cache
def _capitals() -> tuple[dict[int, str], re.Pattern]:
    """Each capital (not ASCII) whose confusable skeleton is an ASCII capital's: the
    ASCII capital it reads as ("В" Cyrillic and "Β" Greek are "B", "Ι" and "І" are
    "I", whose skeleton is "l"). Capitals that decompose are left to NFKD. With a
    pattern that finds one."""
    ascii_capitals: dict[str, str] = {}
    for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        ascii_capitals.setdefault(skeleton(letter), letter)
    table: dict[int, str] = {}
    if icu is None:
        return table, re.compile("(?!)")
    for start, end in icu.UnicodeSet("[[:Lu:][:Lt:]-[A-Z]]").ranges():
        for code in range(ord(start), ord(end) + 1):
            ch = chr(code)
            if unicodedata.normalize("NFKD", ch) == ch and skeleton(ch) in ascii_capitals:
                table[code] = ascii_capitals[skeleton(ch)]
    return table, re.compile("[" + "".join(map(chr, table)) + "]")


def capital_reading(text: str) -> str:
    """`text` in NFKD with each look-alike capital as the ASCII capital it reads as
    ("ВRUNО" with Cyrillic В and О is "BRUNO"); `text` itself when it has none."""
    decomposed = unicodedata.normalize("NFKD", text)
    table, capital = _capitals()
    return decomposed.translate(table) if capital.search(decomposed) else text


def lookalike_keys(text: str) -> frozenset[str]:
    """The keys of `text` as a reader may read it: in lower case (`lookalike_key`) and
    as written, its look-alike capitals read as the capitals they imitate."""
    return frozenset((lookalike_key(text), lookalike_key(capital_reading(text))))


def spelling_keys(text: str) -> frozenset[str]:
    """`lookalike_keys` of `text` in every case it may be written in: as given, in
    upper case, and each word capitalised (an author's "Вера" written "ВЕРА" or
    "BEPA", a blocked "вино" written "Вино")."""
    return frozenset().union(*(lookalike_keys(form) for form in (text, text.upper(), text.title())))


# Combining marks after a Latin letter (once decomposed): "é" is "e", "İ" is "i".
_LATIN_MARKS = re.compile("(?<=[a-z])[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")


_LATIN_LETTERS = re.compile("[" + "".join(chr(code) for code in folding.LATIN_LETTERS) + "]")


def _fast_fold(text: str) -> str:
    """The search fold's work on Latin text, in C-speed steps (NFKD, case, Latin
    letters without their marks, whitespace runs as one space), for long texts."""
    lowered = unicodedata.normalize("NFKD", text).casefold()
    lowered = _LATIN_LETTERS.sub(lambda found: found.group(0).translate(folding.LATIN_LETTERS), lowered)
    return " ".join(_LATIN_MARKS.sub("", lowered).split())


def text_key(text: str) -> str:
    """`lookalike_key` for a whole comment (thousands of characters at every post):
    the same steps with the Latin marks removed by one regular expression rather than
    letter by letter. Compare a text's key only with keys made by this function."""
    return unicodedata.normalize("NFC", _fast_fold(skeleton(_fast_fold(drop_invisible(text)))))


def text_keys(text: str, *, every_case: bool = False) -> frozenset[str]:
    """`lookalike_keys` made by `text_key` (for a whole comment: its capitals read only
    when it has look-alike ones); with `every_case`, `spelling_keys` (for a blocked
    word or phrase)."""
    forms = (text, text.upper(), text.title()) if every_case else (text,)
    readings = {read for form in forms for read in (form, capital_reading(form))}
    return frozenset(text_key(read) for read in readings)


@functools.cache
def _idna() -> Any:
    return icu.IDNA(icu.IDNA.CHECK_NONTRANSITIONAL_TO_ASCII | icu.IDNA.CHECK_BIDI)


def domain_to_ascii(domain: str) -> str | None:
    """A domain as mail is delivered to it: UTS #46 mapping (NFKC, case, ignorables)
    and Punycode for its non-ASCII labels ("Bücher.Example" is
    "xn--bcher-kva.example"); None when it is not a valid domain name."""
    if not domain:
        return None
    if icu is None:
        try:
            return domain.encode("idna").decode("ascii").lower()
        except UnicodeError:
            return None
    ascii_form = str(_idna().nameToASCII(domain))
    if not ascii_form or REPLACEMENT in ascii_form or not ascii_form.isascii():
        return None
    return ascii_form.lower()
