"""Which writes to a sharded collection the engines would refuse, found in the source.

On a sharded collection MongoDB (and DocumentDB on Citus, the development cluster's
engine) must know which shard a single-document write goes to:
- `update_one`, `replace_one`, `delete_one` (and their bulk forms `UpdateOne`, `ReplaceOne`,
  `DeleteOne`) need `_id` or the whole shard key in their filter;
- `find_one_and_update`, `find_one_and_replace`, `find_one_and_delete` need the shard key
  (`_id` alone is not enough: DocumentDB answers ShardKeyNotFound);
- an upsert needs the shard key (it must know where to insert).
`update_many`, `delete_many` and inserts go anywhere.

`write_problems` reads a module's source (no import, no server) and reports each such
call whose collection is a sharded one and whose filter lacks what it needs. It follows
what this project's code does: a collection is `get_db().NAME`, `db.NAME`,
`db["NAME"]`, a function or method that returns one (`_pages()`, `self._collection()`),
`.with_options(...)` of one, or a local name assigned one; a filter is a dict literal
or a local name assigned one. A filter it cannot read on a sharded collection is a
problem too: a write path must show its key where the reader (and this check) can see it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

SINGLE = ("update_one", "replace_one", "delete_one")
MODIFY = ("find_one_and_update", "find_one_and_replace", "find_one_and_delete")
BULK = {"UpdateOne": "update_one", "ReplaceOne": "replace_one", "DeleteOne": "delete_one"}
DB_NAMES = ("db", "database")


@dataclass(frozen=True)
class WriteProblem:
    where: str
    line: int
    collection: str
    method: str
    reason: str

    def __str__(self) -> str:
        return f"{self.where}:{self.line}: {self.method} on sharded {self.collection}: {self.reason}"


def write_problems(source: str, where: str, keys: Mapping[str, list[str]]) -> list[WriteProblem]:
    """The refused writes in `source` (a module's text, named `where` in the answers);
    `keys` maps each sharded collection to its shard key's field names."""
    tree = ast.parse(source)
    returns = _returners(tree, keys)
    problems: list[WriteProblem] = []
    for scope, owner in _scopes(tree):
        finder = _Finder(keys, returns, owner, scope)
        for call in (node for node in ast.walk(scope) if isinstance(node, ast.Call)):
            problems += finder.check(call, where)
    return sorted(set(problems), key=lambda p: p.line)


def project_problems(root: Path, packages: list[str], keys: Mapping[str, list[str]]) -> list[WriteProblem]:
    """`write_problems` over every module of these packages under `root`."""
    found = []
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            found += write_problems(path.read_text(), str(path.relative_to(root)), keys)
    return found


Scope = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef


def _scopes(tree: ast.Module) -> Iterator[tuple[Scope, str | None]]:
    """Each function (with its class, if a method), and the module's own statements."""
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    yield ast.Module(body=[node for node in tree.body if not isinstance(node, defs)], type_ignores=[]), None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node, None
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield item, node.name


def _returners(tree: ast.Module, keys: Mapping[str, list[str]]) -> dict[tuple[str | None, str], str]:
    """Functions and methods whose body returns a sharded collection: (class, name) -> collection."""
    found: dict[tuple[str | None, str], str] = {}
    for _ in range(3):  # one returning another's (`_collection` returning `_pages()`)
        for scope, owner in _scopes(tree):
            if isinstance(scope, ast.Module):
                continue
            returned = [n.value for n in ast.walk(scope) if isinstance(n, ast.Return) and n.value is not None]
            finder = _Finder(keys, found, owner, scope)
            names = {name for value in returned if (name := finder.collection(value)) is not None}
            if len(names) == 1:
                found[(owner, scope.name)] = names.pop()
    return found


class _Finder:
    def __init__(self, keys: Mapping[str, list[str]], returns: dict[tuple[str | None, str], str],
                 owner: str | None, scope: ast.AST) -> None:
        self.keys, self.returns, self.owner, self.scope = keys, returns, owner, scope

    def _assigned(self, name: str) -> list[ast.expr]:
        return [node.value for node in ast.walk(self.scope) if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)]

    def collection(self, expr: ast.expr, depth: int = 0) -> str | None:
        """The sharded collection `expr` is, if it is one."""
        if depth > 5:
            return None
        if isinstance(expr, ast.Attribute) and expr.attr in self.keys and _is_db(expr.value):
            return expr.attr
        if (isinstance(expr, ast.Subscript) and _is_db(expr.value) and isinstance(expr.slice, ast.Constant)
                and expr.slice.value in self.keys):
            return str(expr.slice.value)
        if isinstance(expr, ast.Call):
            func = expr.func
            if isinstance(func, ast.Name):
                return self.returns.get((None, func.id))
            if isinstance(func, ast.Attribute):
                if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
                    return self.returns.get((self.owner, func.attr))
                if func.attr == "with_options":
                    return self.collection(func.value, depth + 1)
        if isinstance(expr, ast.Name):
            for value in self._assigned(expr.id):
                if (found := self.collection(value, depth + 1)) is not None:
                    return found
        return None

    def _filter_fields(self, expr: ast.expr | None) -> set[str] | None:
        """The field names a filter names at its top level; None if it cannot be read."""
        if isinstance(expr, ast.Name):
            dicts = [value for value in self._assigned(expr.id) if isinstance(value, ast.Dict)]
            expr = dicts[-1] if len(dicts) == 1 else None
        if not isinstance(expr, ast.Dict):
            return None
        return {key.value for key in expr.keys
                if isinstance(key, ast.Constant) and isinstance(key.value, str)}

    def check(self, call: ast.Call, where: str) -> list[WriteProblem]:
        func = call.func
        if not isinstance(func, ast.Attribute):
            return []
        if func.attr == "bulk_write":
            collection = self.collection(func.value)
            if collection is None:
                return []
            ops = [(node, BULK[node.func.id]) for node in ast.walk(self.scope) if isinstance(node, ast.Call)
                   and isinstance(node.func, ast.Name) and node.func.id in BULK]
            return [problem for op, method in ops for problem in self._needs(op, method, collection, where)]
        upsert = any(k.arg == "upsert" and not (isinstance(k.value, ast.Constant) and not k.value.value)
                     for k in call.keywords)
        if func.attr not in SINGLE + MODIFY and not upsert:
            return []
        collection = self.collection(func.value)
        if collection is None:
            return []
        return self._needs(call, func.attr, collection, where, upsert=upsert)

    def _needs(self, call: ast.Call, method: str, collection: str, where: str, *,
               upsert: bool = False) -> list[WriteProblem]:
        upsert = upsert or any(k.arg == "upsert" for k in call.keywords)
        named = (k.value for k in call.keywords if k.arg == "filter")
        given = call.args[0] if call.args else next(named, None)
        fields = self._filter_fields(given)
        key = list(self.keys[collection])

        def problem(reason: str) -> list[WriteProblem]:
            return [WriteProblem(where, call.lineno, collection, method, reason)]

        if fields is None:
            return problem("its filter is not a dict literal this check can read")
        has_key = all(name in fields for name in key)
        if method in MODIFY and not has_key:
            return problem(f"find-and-modify needs the shard key {key} in its filter")
        if upsert and not has_key:
            return problem(f"an upsert needs the shard key {key} in its filter")
        if method in SINGLE and not has_key and "_id" not in fields:
            return problem(f"a single-document write needs _id or the shard key {key} in its filter")
        return []


def _is_db(expr: ast.expr) -> bool:
    """`get_db()`, `db`, `self.db`, `client[...]`-like database expressions."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
        return expr.func.id == "get_db"
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        return expr.func.attr == "get_db"
    if isinstance(expr, ast.Name):
        return expr.id in DB_NAMES or expr.id.endswith("_db")
    if isinstance(expr, ast.Attribute):
        return expr.attr in DB_NAMES or expr.attr.endswith("_db")
    return isinstance(expr, ast.Subscript)
