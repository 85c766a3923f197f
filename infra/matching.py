"""A MongoDB filter evaluated in Python: `compile_filter(spec)` is the predicate
`find(spec)` applies to one document, so a filter is written once, as a MongoDB
filter, and code holding documents in memory (the embedded comment store) selects
what the server would. Pure: no I/O.

Operators, with the server's semantics (the development server, FerretDB v2 on
DocumentDB, is the reference the property tests compare with): implicit equality
(array membership; null matches null and missing), dotted paths through documents
and arrays, `$and`/`$or`/`$nor`/`$not`, `$eq`/`$ne`/`$in`/`$nin`, `$exists`,
type-bracketed `$gt`/`$gte`/`$lt`/`$lte` (a boolean is not a number; NaN equals only
NaN; dates to the millisecond), `$elemMatch`, and `$regex` (options "" or "i") in the
subset of patterns infra/pcre.py reads as PCRE2 does. Anything else raises
UnsupportedFilter naming it, so a new operator is never half-evaluated; so does
where the servers disagree (NULL_AMONG_OTHERS, NULL_IN_OR). Patterns
come from code (what a reader types is escaped first), never from a stranger.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from infra import pcre
from infra.bson_values import (
    ARRAY,
    BOOLEAN,
    DATE,
    DOCUMENT,
    MISSING,
    NULL,
    NUMBER,
    OBJECT_ID,
    OTHER,
    STRING,
    bracket,
    is_nan,
    millis,
    same,
)

Predicate = Callable[[Any], bool]
Matcher = Callable[[Mapping[str, Any]], bool]

UNKNOWN_OPERATOR = "unknown operator {operator} (the filter matcher does not evaluate it)"
UNSUPPORTED_VALUE = "the filter matcher cannot compare with a {kind} value ({operator})"
NEEDS_LIST = "{operator} needs a non-empty list"
NEEDS_ARRAY = "{operator} needs an array"
NEEDS_DOCUMENT = "{operator} needs a document"
REGEX_NEEDS_STRING = "$regex has to be a string"
OPTIONS_NEED_REGEX = "$options needs a $regex"
# DocumentDB and MongoDB part ways on a path with a numeric part or of three parts or
# more: DocumentDB does not count it as null where it goes missing under an array (`a.0`
# of `{a: []}`, `a.b.c` of `{a: [{b: null}]}`) in an $in of null and another value, nor
# within an $or, though `{path: null}` alone does. Refused, not evaluated one engine's way.
NULL_AMONG_OTHERS = "{operator} of null among other values on {path}: the servers disagree on it"
NULL_IN_OR = "{operator} with null on {path} within $or: the servers disagree on it"
UNSUPPORTED_OPTIONS = "the filter matcher supports $options '' and 'i', not {options!r}"


class UnsupportedFilter(ValueError):
    """A filter uses an operator, value or pattern the matcher does not evaluate."""


def matches(spec: Mapping[str, Any], document: Mapping[str, Any]) -> bool:
    """Whether `document` meets the MongoDB filter `spec` (compile once to test many)."""
    return compile_filter(spec)(document)


def compile_filter(spec: Mapping[str, Any]) -> Matcher:
    """The predicate of a MongoDB filter document; UnsupportedFilter if it holds
    something the matcher does not evaluate (module docstring)."""
    return _compile(spec, in_or=False)


def _compile(spec: Mapping[str, Any], *, in_or: bool) -> Matcher:
    if not isinstance(spec, Mapping):
        raise UnsupportedFilter(NEEDS_DOCUMENT.format(operator="a filter"))
    return _every([_clause(key, value, in_or) for key, value in spec.items()])


def _every(tests: list[Callable[[Any], bool]]) -> Callable[[Any], bool]:
    """All of `tests` (compiled filters are called once per document: no generator)."""
    if len(tests) == 1:
        return tests[0]

    def every(value: Any) -> bool:
        for test in tests:
            if not test(value):
                return False
        return True

    return every


def _some(tests: list[Callable[[Any], bool]]) -> Callable[[Any], bool]:
    def some(value: Any) -> bool:
        for test in tests:
            if test(value):
                return True
        return False

    return some


def top_fields(spec: Mapping[str, Any]) -> frozenset[str]:
    """The top-level fields a filter reads ("author" for "author.name"): all a
    document needs to hold to be matched as if it held every field."""
    found: set[str] = set()
    for key, value in spec.items():
        if key in ("$and", "$or", "$nor") and isinstance(value, (list, tuple)):
            for branch in value:
                found |= top_fields(branch) if isinstance(branch, Mapping) else set()
        elif not key.startswith("$"):
            found.add(key.split(".", 1)[0])
    return frozenset(found)


# --- Clauses: logical operators and field conditions -----------------------------------------


def _clause(key: str, value: Any, in_or: bool) -> Matcher:
    if key in ("$and", "$or", "$nor"):
        if not isinstance(value, (list, tuple)) or not value:
            raise UnsupportedFilter(NEEDS_LIST.format(operator=key))
        branches = [_compile(branch, in_or=in_or or key == "$or") for branch in value]
        if key == "$and":
            return _every(branches)
        either = _some(branches)
        return either if key == "$or" else lambda document: not either(document)
    if key.startswith("$"):
        raise UnsupportedFilter(UNKNOWN_OPERATOR.format(operator=key))
    parts = key.split(".")
    if len(parts) > 2 or any(part.isdigit() for part in parts):
        _refuse_where_the_servers_disagree(key, value, in_or=in_or)
    test = _condition(value)
    if len(parts) == 1:
        return lambda document: test([document.get(key, MISSING)] if type(document) is dict
                                     else _reach(document, parts))
    return lambda document: test(_reach(document, parts))


def _refuse_where_the_servers_disagree(path: str, value: Any, *, in_or: bool, negated: bool = False) -> None:
    """On a path with a numeric part or of three parts or more: raise NULL_AMONG_OTHERS
    for an `$in`/`$nin` (under `$not` too) that holds null and another value, and
    NULL_IN_OR for a test of equality with null (plain, `$eq`, `$in`, or a negated
    `$ne`/`$nin`) within an `$or`."""
    if not _is_operators(value):
        if in_or and value is None:
            raise UnsupportedFilter(NULL_IN_OR.format(operator="equality", path=path))
        return
    for operator, operand in value.items():
        if operator == "$not":
            _refuse_where_the_servers_disagree(path, operand, in_or=in_or, negated=not negated)
            continue
        listed = operator in ("$in", "$nin") and isinstance(operand, (list, tuple))
        if listed and len(operand) > 1 and any(item is None for item in operand):
            raise UnsupportedFilter(NULL_AMONG_OTHERS.format(operator=operator, path=path))
        with_null = (listed and None in operand) or (operator in ("$eq", "$ne") and operand is None)
        if in_or and with_null and (operator in ("$eq", "$in")) != negated:
            raise UnsupportedFilter(NULL_IN_OR.format(operator=operator, path=path))


def _is_operators(value: Any) -> bool:
    return isinstance(value, Mapping) and bool(value) and next(iter(value)).startswith("$")


def _condition(value: Any) -> Callable[[list[Any]], bool]:
    """A test of the values a path resolves to (MISSING where a document lacks it)."""
    if not _is_operators(value):
        return _equals(value)
    operators = dict(value)
    tests: list[Callable[[list[Any]], bool]] = []
    if "$options" in operators and "$regex" not in operators:
        raise UnsupportedFilter(OPTIONS_NEED_REGEX)
    for operator, operand in operators.items():
        if operator == "$options":
            continue
        if operator == "$regex":
            tests.append(_regex(operand, operators.get("$options", "")))
        else:
            tests.append(_operator(operator, operand))
    return _every(tests)


def _operator(operator: str, operand: Any) -> Callable[[list[Any]], bool]:
    if operator == "$eq":
        return _equals(operand)
    if operator == "$ne":
        equal = _equals(operand)
        return lambda found: not equal(found)
    if operator in ("$in", "$nin"):
        if not isinstance(operand, (list, tuple)):
            raise UnsupportedFilter(NEEDS_ARRAY.format(operator=operator))
        member = _in([_checked(item, operator) for item in operand])
        return member if operator == "$in" else lambda found: not member(found)
    if operator in _ORDERINGS:
        return _ordering(operator, operand)
    if operator == "$exists":
        wanted = bool(operand)
        return lambda found: any(value is not MISSING for value in found) is wanted
    if operator == "$not":
        if not _is_operators(operand):
            raise UnsupportedFilter(NEEDS_DOCUMENT.format(operator="$not"))
        inner = _condition(operand)
        return lambda found: not inner(found)
    if operator == "$elemMatch":
        return _elem_match(operand)
    raise UnsupportedFilter(UNKNOWN_OPERATOR.format(operator=operator))


# --- Paths: documents and arrays -------------------------------------------------------------


def _reach(document: Mapping[str, Any], parts: Sequence[str]) -> list[Any]:
    """What a dotted path reaches (`_resolve`), straight down while it meets documents."""
    value: Any = document
    for part in parts:
        if type(value) is dict:
            value = value.get(part, MISSING)
            if value is MISSING:
                return [MISSING]
            continue
        if isinstance(value, (list, tuple)):
            return list(_resolve(document, parts))
        if not isinstance(value, Mapping) or part not in value:
            return [MISSING]
        value = value[part]
    return [value]


def _resolve(value: Any, parts: Sequence[str]) -> Iterator[Any]:
    """What a dotted path reaches from `value`: through documents by name, through
    arrays into their documents (and to an element by a numeric part); MISSING where
    a document lacks the name or a scalar stands in the way. An array of no documents
    reaches nothing (so `{"a.b": null}` does not match `{a: [1]}`)."""
    if not parts:
        yield value
        return
    head, rest = parts[0], parts[1:]
    if isinstance(value, Mapping):
        yield from _resolve(value[head], rest) if head in value else iter((MISSING,))
    elif isinstance(value, (list, tuple)):
        if head.isdigit():
            if int(head) < len(value):
                element = value[int(head)]
                # An array picked by its position is compared whole, not element by element.
                yield from _resolve(_Whole(element) if isinstance(element, list) and not rest else element, rest)
            else:
                yield MISSING
        for element in value:
            if isinstance(element, Mapping):
                yield from _resolve(element, parts)
    else:
        yield MISSING


class _Whole(list[Any]):
    """An array reached by a numeric path part: tested as one value."""


# --- Values ------------------------------------------------------------------------------


def _checked(operand: Any, operator: str) -> Any:
    """A filter's value, refused if the matcher cannot compare it (bytes, patterns...)."""
    kind = bracket(operand)
    if kind == OTHER:
        raise UnsupportedFilter(UNSUPPORTED_VALUE.format(kind=type(operand).__name__, operator=operator))
    if kind == DOCUMENT:
        for item in operand.values():
            _checked(item, operator)
    elif kind == ARRAY:
        for item in operand:
            _checked(item, operator)
    return operand


def _on_candidates(test: Callable[[Any], bool]) -> Callable[[list[Any]], bool]:
    """Whether `test` holds for some value reached or some element of an array reached."""

    def any_candidate(found: list[Any]) -> bool:
        for value in found:
            if test(value):
                return True
            if isinstance(value, (list, tuple)) and not isinstance(value, _Whole):
                for element in value:
                    if test(element):
                        return True
        return False

    return any_candidate


def _equals(operand: Any) -> Callable[[list[Any]], bool]:
    """Implicit equality: some value reached (or an element of it) is the operand;
    null also matches where the path is missing."""
    return _in([_checked(operand, "$eq")])


def _in(operands: list[Any]) -> Callable[[list[Any]], bool]:
    """Equality with any of `operands` (checked): strings, numbers, ids and booleans
    looked up in sets by their type class, the rest compared one by one (`same`)."""
    strings = {v for v in operands if bracket(v) == STRING}
    numbers = {v for v in operands if bracket(v) == NUMBER and not is_nan(v)}
    ids = {v for v in operands if bracket(v) == OBJECT_ID}
    booleans = {v for v in operands if bracket(v) == BOOLEAN}
    null = any(v is None for v in operands)
    nan = any(is_nan(v) for v in operands)
    rest = [v for v in operands if bracket(v) in (DATE, DOCUMENT, ARRAY)]

    def test(value: Any) -> bool:
        kind = bracket(value)
        if kind == STRING:
            return value in strings
        if kind == NUMBER:
            return value in numbers or (nan and is_nan(value))
        if kind == OBJECT_ID:
            return value in ids
        if kind == BOOLEAN:
            return value in booleans
        if kind == NULL:
            return null
        return any(same(value, wanted) for wanted in rest)

    return _on_candidates(test)


_ORDERINGS: dict[str, Callable[[int], bool]] = {
    "$gt": lambda c: c > 0, "$gte": lambda c: c >= 0, "$lt": lambda c: c < 0, "$lte": lambda c: c <= 0,
}


def _ordering(operator: str, operand: Any) -> Callable[[list[Any]], bool]:
    """$gt, $gte, $lt, $lte: values of the operand's type class only."""
    bound = _checked(operand, operator)
    kind = bracket(bound)
    if kind in (DOCUMENT, ARRAY):
        raise UnsupportedFilter(UNSUPPORTED_VALUE.format(kind=type(operand).__name__, operator=operator))
    holds = _ORDERINGS[operator]
    key = millis(bound) if kind == DATE else bound
    if kind == NULL:
        # Null sorts with missing, and nothing is above or below it in its class.
        equal = _equals(None)
        return (lambda found: equal(found)) if operator in ("$gte", "$lte") else (lambda found: False)

    def test(value: Any) -> bool:
        if bracket(value) != kind:
            return False
        if kind == NUMBER and (is_nan(value) or is_nan(bound)):
            return is_nan(value) and is_nan(bound) and operator in ("$gte", "$lte")
        return holds(_order(value, key))

    return _on_candidates(test)


def _order(a: Any, b: Any) -> int:
    if isinstance(a, datetime):
        a, b = millis(a), b if isinstance(b, int) else millis(b)
    return int(a > b) - int(a < b)


def _elem_match(operand: Any) -> Callable[[list[Any]], bool]:
    """Some element of an array reached meets the condition (operators on the element
    itself) or the filter (on an element that is a document, or an array)."""
    if not isinstance(operand, Mapping):
        raise UnsupportedFilter(NEEDS_DOCUMENT.format(operator="$elemMatch"))
    if _is_operators(operand):
        # The element itself, an array too, not its elements: [[null]] has no element
        # {$lte: null} holds for, and [[2]] none {$gt: 1} holds for.
        on_value = _condition(operand)
        element_meets: Predicate = lambda element: on_value(  # noqa: E731
            [_Whole(element) if isinstance(element, (list, tuple)) else element])
    else:
        on_document = compile_filter(operand)
        element_meets = lambda element: on_document(element) if isinstance(element, Mapping) else (  # noqa: E731
            # An array element is read as a document whose fields are its positions, as
            # MongoDB reads it: {b: null} matches [] (no field b).
            isinstance(element, (list, tuple)) and on_document({str(i): e for i, e in enumerate(element)}))
    return lambda found: any(
        isinstance(value, (list, tuple)) and any(element_meets(e) for e in value) for value in found)


def _regex(pattern: Any, options: Any) -> Callable[[list[Any]], bool]:
    if not isinstance(pattern, str):
        raise UnsupportedFilter(REGEX_NEEDS_STRING)
    if options not in ("", "i"):
        raise UnsupportedFilter(UNSUPPORTED_OPTIONS.format(options=options))
    folding = options == "i"
    try:
        compiled = re.compile(pcre.translate(pattern, fold=folding))
    except pcre.UnsupportedPattern as exc:
        raise UnsupportedFilter(str(exc)) from exc
    fold_text = pcre.fold_text

    def test(value: Any) -> bool:
        return isinstance(value, str) and compiled.search(fold_text(value) if folding else value) is not None

    return _on_candidates(test)
