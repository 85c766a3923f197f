"""What changed between two versions of a post: pure functions, no I/O."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

SAME, ADDED, REMOVED, GAP = "same", "added", "removed", "gap"


@dataclass(frozen=True)
class DiffLine:
    kind: str  # SAME, ADDED, REMOVED, or GAP (unchanged lines left out)
    text: str


@dataclass(frozen=True)
class FieldChange:
    field: str
    old: str
    new: str


def diff_lines(old: str, new: str, *, context: int = 3) -> list[DiffLine]:
    """The lines of `new` against `old`: changed lines with `context` unchanged lines
    around them, and a GAP wherever unchanged lines are left out. Empty if equal."""
    a, b = old.splitlines(), new.splitlines()
    if a == b:
        return []
    groups = list(difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context))
    lines: list[DiffLine] = []
    for n, group in enumerate(groups):
        if n > 0 or group[0][1] > 0:
            lines.append(DiffLine(GAP, ""))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [DiffLine(SAME, text) for text in a[i1:i2]]
            else:
                lines += [DiffLine(REMOVED, text) for text in a[i1:i2]]
                lines += [DiffLine(ADDED, text) for text in b[j1:j2]]
    if groups[-1][-1][2] < len(a):
        lines.append(DiffLine(GAP, ""))
    return lines


def field_changes(old: dict[str, str], new: dict[str, str]) -> list[FieldChange]:
    """The one-line fields (title, slug, tags ...) whose values differ, in `old`'s order."""
    return [FieldChange(name, old[name], new.get(name, "")) for name in old if old[name] != new.get(name, "")]
