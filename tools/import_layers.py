"""The comments app's import structure, read from its code: modules per sub-package,
and the layers of its import graph (a module's layer is one more than the highest
layer it imports; modules in an import cycle share one). Prints what docs and notes
quote about the app's shape.

    python tools/import_layers.py [PATH_TO_COMMENTS_PACKAGE]
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path


def modules(package: Path) -> dict[str, Path]:
    root = package.parent
    found = {}
    for path in sorted(package.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        parts = path.relative_to(root).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports(path: Path, known: set[str]) -> set[str]:
    """The app's modules that `path` imports (`from comments import x` names
    comments.x when that is a module, else the package comments)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                out.add(name)
    return out


def layers(graph: dict[str, set[str]]) -> dict[str, int]:
    """Each module's layer, cycles collapsed (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    component: dict[str, int] = {}
    count = 0

    def visit(node: str) -> None:
        nonlocal count
        index[node] = low[node] = len(index)
        stack.append(node)
        on.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            while True:
                member = stack.pop()
                on.discard(member)
                component[member] = count
                if member == node:
                    break
            count += 1

    sys.setrecursionlimit(10_000)
    for node in graph:
        if node not in index:
            visit(node)
    # Components come out in reverse topological order: dependencies first.
    members: dict[int, list[str]] = {}
    for node, c in component.items():
        members.setdefault(c, []).append(node)
    level: dict[int, int] = {}
    for c in range(count):
        below = [level[component[o]] for m in members[c] for o in graph[m] if component[o] != c]
        level[c] = 1 + max(below, default=0)
    return {node: level[component[node]] for node in graph}


def main() -> None:
    package = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "comments")
    found = modules(package)
    graph = {name: imports(path, set(found)) - {name} for name, path in found.items()}
    level = layers(graph)
    rooms = Counter(name.split(".")[1] if name.count(".") >= 2 else "(top level)"
                    for name, path in found.items() if path.name != "__init__.py")
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in found.values())
    print(f"{sum(rooms.values())} modules (and {len(found) - sum(rooms.values())} package files), {lines:,} lines, {max(level.values())} layers of imports")
    for room, n in sorted(rooms.items(), key=lambda item: (-item[1], item[0])):
        print(f"  {room:<16} {n:>3} modules")


if __name__ == "__main__":
    main()
