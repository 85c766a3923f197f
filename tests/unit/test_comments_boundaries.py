"""The comments app's boundaries, read from the code's imports: the app imports nothing
from the blog or the other apps above it, and the blog's modules that use comments
(and the dashboard's that have moved) reach it only through comments.api."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Packages above the comments app: it may import none of them.
ABOVE = {"cms", "dashboard", "api", "media", "slugline"}
# Modules of the host that use the comments app only through its public API.
THROUGH_THE_API = [
    "cms/views.py", "cms/feeds.py", "cms/authors.py", "cms/comments_host.py", "cms/apps.py",
    "cms/management/commands/publish_scheduled.py", "dashboard/moderation.py", "dashboard/services.py",
]
PUBLIC = {"comments.api"}


def imported_modules(path: Path) -> list[str]:
    """Every module `path` imports, written out whole (`from comments import api` is
    comments.api), wherever in the file the import is."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [f"{node.module}.{alias.name}" if node.module == "comments" else node.module
                      for alias in node.names]
    return found


def test_imported_modules_reads_both_forms(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("import cms.posts\nfrom comments import api, pages\n"
                      "from comments.stores import get_store\ndef f():\n    from cms.views import home\n")
    assert imported_modules(source) == ["cms.posts", "comments.api", "comments.pages", "comments.stores",
                                        "cms.views"]


@pytest.mark.parametrize("path", sorted((ROOT / "comments").rglob("*.py")),
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_comments_app_imports_nothing_from_above_it(path):
    assert [name for name in imported_modules(path) if name.split(".")[0] in ABOVE] == []


@pytest.mark.parametrize("name", THROUGH_THE_API)
def test_the_host_reaches_the_comments_app_only_through_its_api(name):
    inside = [module for module in imported_modules(ROOT / name) if module.split(".")[0] == "comments"]
    assert inside and set(inside) <= PUBLIC, inside
