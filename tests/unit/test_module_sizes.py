"""Every runtime module stays small enough to read whole: at most MAX_LINES lines
(house style: small modules named for what they do). Data modules, listed here with
their reason, are exempt; a module that grows past the limit is split by job."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 400
# The packages whose modules are checked.
PACKAGES = ["comments", "cms", "dashboard", "api", "media", "infra", "slugline", "devdb"]
# Modules that are data, not code, with the reason (globs relative to the repository).
DATA_MODULES = {
    "cms/demo_content/*.py": "demo prose: the demo site's posts and comments, one language per module",
}


def line_count(path: Path) -> int:
    with path.open(encoding="utf-8") as source:
        return sum(1 for _ in source)


def is_data_module(path: Path) -> bool:
    relative = path.relative_to(ROOT)
    return any(relative.match(pattern) for pattern in DATA_MODULES)


def checked_modules() -> list[Path]:
    return sorted(path for package in PACKAGES if (ROOT / package).is_dir()
                  for path in (ROOT / package).rglob("*.py") if not is_data_module(path))


def test_the_checked_packages_are_there():
    # A package renamed or moved away would otherwise be skipped without a word.
    assert [package for package in PACKAGES if not (ROOT / package).is_dir()] == []


def test_line_count_counts_every_line(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("a = 1\n\n# note\nb = 2", encoding="utf-8")
    assert line_count(module) == 4


def test_data_modules_are_only_the_listed_ones():
    assert is_data_module(ROOT / "cms/demo_content/english.py")
    assert not is_data_module(ROOT / "cms/demo.py")
    assert not is_data_module(ROOT / "comments/stores/embedded.py")


def test_every_listed_data_module_exists():
    # A stale exemption would silently cover a future module of that name.
    assert [pattern for pattern in DATA_MODULES if not list(ROOT.glob(pattern))] == []


@pytest.mark.parametrize("path", checked_modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_module_is_at_most_max_lines(path):
    lines = line_count(path)
    assert lines <= MAX_LINES, (
        f"{path.relative_to(ROOT)} has {lines} lines, over {MAX_LINES}: split it by job into modules "
        "named for what they hold (or, for pure data, list it in DATA_MODULES with the reason)"
    )
