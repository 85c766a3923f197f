"""PCRE2 patterns, of the subset the code builds, run by Python's `re` with the
matches MongoDB's server gives them (its PCRE2 runs without Unicode properties):
literal and escaped characters, classes and ranges, `\\s`, groups, alternation,
`*`, `+` and `?`, anchors. `\\s` is ASCII whitespace only, and case-insensitive
matching folds each character by Unicode's simple case folding (K and the Kelvin
sign, ſ and s, ẞ and ß alike; İ, ı and "ss" apart), done here by folding the
pattern's characters and the text alike. Anything else raises UnsupportedPattern
naming the construct. Pure: no I/O. infra/matching.py evaluates `$regex` with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

UNSUPPORTED_REGEX = "the filter matcher does not evaluate {construct!r} in the pattern {pattern!r}"
# What MongoDB's PCRE2 takes for \s without Unicode properties: ASCII whitespace only.
ASCII_SPACE = "\t\n\x0b\x0c\r "
# Ranges that case folding cannot keep as ranges are listed character by character, up to this size.
MAX_FOLDED_RANGE = 4096


class UnsupportedPattern(ValueError):
    """A pattern uses a construct outside the subset (module docstring)."""


def simple_fold(ch: str) -> str:
    """One character by Unicode's simple case folding (what PCRE2's caseless matching
    compares): "K" and the Kelvin sign give "k", "ẞ" gives "ß", "İ" stays "İ"."""
    folded = ch.casefold()
    if len(folded) == 1:
        return folded
    lowered = ch.lower()
    return lowered if len(lowered) == 1 else ch


def fold_text(text: str) -> str:
    """`text` folded character by character (its length kept, so matches stay in place)."""
    return "".join(map(simple_fold, text)) if not text.isascii() else text.lower()


_QUANTIFIERS = "*+?"


def translate(pattern: str, *, fold: bool) -> str:
    """A PCRE2 pattern of the supported subset as a Python pattern with the same
    matches (on text folded by fold_text when `fold`); UnsupportedPattern for any
    other construct."""
    out: list[str] = []
    i = 0

    def refuse(construct: str) -> UnsupportedPattern:
        return UnsupportedPattern(UNSUPPORTED_REGEX.format(construct=construct, pattern=pattern))

    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            if i + 1 == len(pattern):
                raise refuse("\\")
            escaped = pattern[i + 1]
            if escaped in "sS":
                out.append(("[" if escaped == "s" else "[^") + re.escape(ASCII_SPACE) + "]")
            elif escaped.isalnum() or not escaped.isascii():
                raise refuse("\\" + escaped)
            else:
                out.append(_literal(escaped, fold))
            i += 2
        elif ch == "[":
            text, i = _class(pattern, i, fold, refuse)
            out.append(text)
        elif ch == "(":
            if pattern.startswith("(?:", i):
                out.append("(?:")
                i += 3
                continue
            if pattern.startswith("(?", i):
                raise refuse(pattern[i:i + 3])
            out.append("(")
            i += 1
        elif ch in ")|^$.":
            out.append(ch)
            i += 1
        elif ch in _QUANTIFIERS:
            if not out or out[-1] in ("(", "(?:", "|", "^"):
                raise refuse(ch)
            out.append(ch)
            i += 1
            if i < len(pattern) and pattern[i] in "?+":
                raise refuse(ch + pattern[i])
        elif ch in "{}]":
            raise refuse(ch)
        else:
            out.append(_literal(ch, fold))
            i += 1
    try:
        re.compile("".join(out))
    except re.error as exc:
        raise refuse(str(exc)) from exc
    return "".join(out)


def _literal(ch: str, fold: bool) -> str:
    return re.escape(simple_fold(ch) if fold else ch)


def _class(pattern: str, start: int, fold: bool, refuse: Callable[[str], UnsupportedPattern]) -> tuple[str, int]:
    """A character class from `start` (its `[`): the Python class, and where the
    pattern goes on. A `]` first in the class is literal, as in PCRE2."""
    i = start + 1
    negated = pattern.startswith("^", i)
    i += negated
    members: list[str] = []
    first = True
    while True:
        if i >= len(pattern):
            raise refuse("[")
        ch = pattern[i]
        if ch == "]" and not first:
            break
        first = False
        if ch == "\\":
            escaped = pattern[i + 1] if i + 1 < len(pattern) else ""
            if escaped == "s":
                members.append(re.escape(ASCII_SPACE))
                i += 2
                continue
            if not escaped or escaped.isalnum() or not escaped.isascii():
                raise refuse("\\" + escaped)
            low, i = escaped, i + 2
        elif ch == "[":
            raise refuse("[ inside a class")
        else:
            low, i = ch, i + 1
        if pattern.startswith("-", i) and i + 1 < len(pattern) and pattern[i + 1] != "]":
            high = pattern[i + 1]
            if high == "\\":
                high = pattern[i + 2] if i + 2 < len(pattern) else ""
                if not high or high.isalnum() or not high.isascii():
                    raise refuse("\\" + high)
                i += 1
            i += 2
            if ord(high) < ord(low):
                raise refuse(f"{low}-{high}")
            members.append(_range(low, high, fold, refuse))
        else:
            members.append(_literal(low, fold))
    return ("[^" if negated else "[") + "".join(members) + "]", i + 1


def _range(low: str, high: str, fold: bool, refuse: Callable[[str], UnsupportedPattern]) -> str:
    """A class range; folded, the characters it covers once folded."""
    chars = [chr(code) for code in range(ord(low), ord(high) + 1)] if fold else []
    if not fold or all(simple_fold(c) == c for c in chars):
        return re.escape(low) + "-" + re.escape(high)
    if len(chars) > MAX_FOLDED_RANGE:
        raise refuse(f"{low}-{high}")
    return "".join(re.escape(c) for c in sorted({simple_fold(c) for c in chars}))
