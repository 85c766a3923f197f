"""The comments app's boundaries, read from the code's imports: the app imports nothing
from the blog or the other apps above it, and the blog's modules that use comments
(and the dashboard's that have moved) reach it only through comments.api."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Packages above the comments app: it may import none of them.
ABOVE = {"cms", "dashboard", "api", "media", "slugline", "accounts", "webhooks"}
# Modules of the host that use the comments app only through its public API.
THROUGH_THE_API = [
    "cms/views.py", "cms/feeds.py", "cms/authors.py", "cms/comments_host.py", "cms/apps.py",
    "cms/management/commands/publish_scheduled.py", "dashboard/moderation.py", "dashboard/services.py",
    "cms/demo.py", "cms/wxr/importer.py", "cms/wxr/parse.py", "cms/wxr/records.py",
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


# --- The site imports only the app's public names -------------------------------------

SITE = ("cms", "api", "media", "slugline", "dashboard", "accounts", "webhooks")
# What a host may import from the app: its public API, what a host's REST API builds on
# (comments.rest), and the Django entry points a host mounts (URLconfs); the template tags
# are reached by `{% load %}`, not by import.
PUBLIC_NAMES = {"comments", "comments.api", "comments.rest", "comments.urls", "comments.notifications.urls"}
# The app's rooms, lowest first: a room imports only the core and the rooms below it
# (votes, the data and rules of readers' votes, below reading, which draws a reader's
# own votes; the vote views are in views; erasure, above reading, drops cached pages).
ROOMS = ["stores", "moderation", "posting", "votes", "notifications", "reading", "erasure", "transfer", "views"]
# Rooms that stand at the level of another (name -> the room whose rank it takes): none now.
PEERS: dict[str, str] = {}
# The core modules at the top of the app that every room may use (below the rooms) ...
CORE = {"host", "conf", "records", "slugs", "keyset", "scores", "addresses", "errors", "signals"}
# ... and those that stand above the rooms (they gather them).
ABOVE_THE_ROOMS = {"api", "rest", "checks", "benchmark", "apps", "urls"}
# Imports against the order that are known and named until they are turned round
# ((importing file, imported module)): none now.
CROSSINGS: set[tuple[str, str]] = set()


def site_modules() -> list[Path]:
    return sorted(path for package in SITE for path in (ROOT / package).rglob("*.py"))


def comments_modules(path: Path) -> list[str]:
    """The comments modules `path` imports, each resolved to the module it names
    (`from comments.posting import services` is comments.posting.services)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            base = ROOT.joinpath(*node.module.split("."))
            names = [f"{node.module}.{alias.name}" if (base / f"{alias.name}.py").exists()
                     or (base / alias.name).is_dir() else node.module for alias in node.names]
        found += [name for name in names if name.split(".")[0] == "comments"]
    return found


def non_public(path: Path) -> set[str]:
    return {name for name in comments_modules(path) if name not in PUBLIC_NAMES}


def figures() -> tuple[int, int, int]:
    """(site files importing the app, those reaching non-public modules, distinct
    non-public modules reached): `python tests/unit/test_comments_boundaries.py`."""
    users = [path for path in site_modules() if comments_modules(path)]
    reaching = {path: non_public(path) for path in users if non_public(path)}
    return len(users), len(reaching), len(set().union(*reaching.values()))


def test_non_public_names_what_reaches_past_the_public_modules(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("from comments.rest import Viewer\nfrom comments import api, conf\n"
                      "from comments.posting import services\nimport comments.reading.listings\n")
    assert non_public(source) == {"comments.conf", "comments.posting.services", "comments.reading.listings"}


@pytest.mark.parametrize("path", site_modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_site_imports_only_the_public_names(path):
    assert non_public(path) == set()


@pytest.mark.parametrize("path", [p for p in sorted(ROOT.rglob("*.py")) if p.parts[len(ROOT.parts)] not in
                                  ("comments", "tests", "bench", ".venv", "var", "node_modules", "build", "dist")],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_nothing_outside_the_app_imports_its_internal_area(path):
    assert [name for name in comments_modules(path) if name.startswith("comments.internal")] == []


def rank(module: str) -> int | None:
    """Where a comments module stands: the core 0, the rooms 1.. in order, what stands
    above them last; None for the internal area and the package itself."""
    parts = module.split(".")[1:]
    if not parts or parts[0] in ("internal", "templatetags", "management"):
        return None
    room = PEERS.get(parts[0], parts[0])
    if room in ROOMS:
        return 1 + ROOMS.index(room)
    if parts[0] in CORE:
        return 0
    return len(ROOMS) + 1 if parts[0] in ABOVE_THE_ROOMS else None


@pytest.mark.parametrize("path", sorted((ROOT / "comments").rglob("*.py")),
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_app_layers_point_one_way(path):
    own = rank(".".join(path.relative_to(ROOT).with_suffix("").parts))
    if own is None:
        return
    higher = [name for name in comments_modules(path) if (other := rank(name)) is not None and other > own
              and (path.relative_to(ROOT).as_posix(), name) not in CROSSINGS]
    assert higher == [], higher


def import_cycle(graph: dict[str, set[str]]) -> list[str]:
    """A loop of imports in `graph` (module -> the modules it imports), its first module
    repeated at the end; [] when there is none."""
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as exc:
        return list(exc.args[1])
    return []


def test_import_cycle_finds_a_loop_and_only_a_loop():
    assert sorted(set(import_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}))) == ["a", "b", "c"]
    assert import_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_the_app_s_modules_import_no_cycle():
    """No loop among the app's modules, not even through an import for the type checker
    only (`if TYPE_CHECKING:`) or a hook handed over in `ready()`: every module can be
    read after the ones it imports."""
    paths = sorted((ROOT / "comments").rglob("*.py"))
    names = {path: ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
             for path in paths}
    graph = {names[path]: set(comments_modules(path)) - {names[path]} for path in paths}
    assert import_cycle(graph) == []


def test_rank_orders_the_rooms():
    assert rank("comments.records") < rank("comments.stores.base") < rank("comments.posting.services") \
        < rank("comments.votes.collection") < rank("comments.reading.listings") < rank("comments.views.votes") \
        == rank("comments.views.reading") < rank("comments.api")
    assert rank("comments.internal.rendering") is None


if __name__ == "__main__":
    print("site files importing comments: {}; reaching non-public modules: {}; "
          "distinct non-public modules: {}".format(*figures()))
