"""infra/matching.py agrees with the server: random filters, of the shapes the code
builds and of the operators the matcher knows, are sent to the development server
(`find` on one collection) and evaluated in Python on the same random documents;
both select the same documents. This is what keeps each comment filter written once
(comments/stores/queries.py's `Query`, records.visible_to, the queue's filters)
true in the embedded store, which evaluates them in Python.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from bson import ObjectId
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from comments import slugs
from infra import folding
from comments.records import (
    ORDERS,
    QUEUE_TABS,
    RANKED_ORDERS,
    STATUSES,
    Comment,
    CommentAuthor,
    QueueFilter,
    Viewer,
    by_commenter,
    exactly,
    queue_order,
)
from comments.stores.queries import Duplicate, Query, field_value
from infra.matching import NULL_AMONG_OTHERS, NULL_IN_OR, UnsupportedFilter, compile_filter

PROBES = "matching_probe"
AGREEMENT = settings(max_examples=60, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
BASE = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
# Strings where PCRE2 and Python part ways unless the matcher reads patterns as the server
# does: case folding beyond ASCII (Kelvin sign, long s, sharp s, Turkish i, final sigma),
# whitespace outside ASCII, regex metacharacters, and code points past the BMP.
ALPHABET = "aAbkKsSſßẞiIİıσςΣéÉ \t\n\u00a0\u2003./*+?()[]^$|\\{}-\U0001f600"
OIDS = [ObjectId(f"{n:024x}") for n in range(1, 9)]


@pytest.fixture
def probes(mongo_db):
    return mongo_db[PROBES]


def server_and_matcher(collection, documents: list[dict], spec: dict) -> tuple[set, set]:
    """The `_id`s the server's find(spec) and the matcher select among `documents`."""
    selected = compile_filter(spec)
    return {d["_id"] for d in collection.find(spec, {"_id": 1})}, {d["_id"] for d in documents if selected(d)}


def stored(collection, documents: list[dict]) -> None:
    collection.delete_many({})
    if documents:
        collection.insert_many([dict(d) for d in documents])


# --- Any filter of the operators the matcher knows, on documents of mixed types -------------------

texts = st.text(alphabet=ALPHABET, max_size=5)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from([1.0, -0.5, 2.5, math.nan]), texts,
    st.sampled_from(OIDS[:3]),
    st.integers(0, 3000).map(lambda us: BASE + timedelta(microseconds=us * 997)),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.fixed_dictionaries({}, optional={"b": inner, "c": inner})),
    max_leaves=6,
)
paths = st.sampled_from(["a", "a.b", "a.0", "a.b.c", "c"])


@st.composite
def patterns(draw) -> dict:
    """The $regex shapes the code builds: anchored escaped prefixes (slugs), exact
    case-insensitive values (e-mail), folded names (the queue's name filter)."""
    text = draw(texts)
    kind = draw(st.sampled_from(["subtree", "replies", "exactly", "name", "prefix_i"]))
    if kind == "subtree":
        return {"$regex": slugs.subtree_regex(text)}
    if kind == "replies":
        return {"$regex": slugs.replies_regex(text)}
    if kind == "exactly":
        return exactly(text)
    if kind == "name":
        return {"$regex": folding.pattern(text), "$options": "i"}
    return {"$regex": "^" + "".join("\\" + c if not c.isalnum() and c.isascii() else c for c in text),
            "$options": "i"}


def conditions(depth: int):
    comparable = scalars.filter(lambda v: v is None or not isinstance(v, (list, dict)))
    plain = st.one_of(
        values,
        st.builds(lambda v: {"$eq": v}, values), st.builds(lambda v: {"$ne": v}, values),
        st.builds(lambda vs: {"$in": vs}, st.lists(values, max_size=3)),
        st.builds(lambda vs: {"$nin": vs}, st.lists(values, max_size=3)),
        st.builds(lambda op, v: {op: v}, st.sampled_from(["$gt", "$gte", "$lt", "$lte"]), comparable),
        st.builds(lambda lo, hi: {"$gte": lo, "$lt": hi}, st.integers(-2, 2), st.integers(-2, 3)),
        st.builds(lambda b: {"$exists": b}, st.booleans()),
        patterns(),
        st.builds(lambda v: {"$elemMatch": {"b": v}}, values),
        st.builds(lambda op, v: {"$elemMatch": {op: v}}, st.sampled_from(["$gt", "$lte"]), comparable),
    )
    if depth == 0:
        return plain
    negatable = plain.filter(lambda c: isinstance(c, dict) and c and next(iter(c)).startswith("$"))
    return st.one_of(plain, st.builds(lambda c: {"$not": c}, negatable))


def filters(depth: int = 2):
    leaf = st.dictionaries(paths, conditions(1), min_size=1, max_size=2)
    if depth == 0:
        return leaf
    return st.one_of(
        leaf,
        st.builds(lambda op, branches: {op: branches}, st.sampled_from(["$and", "$or", "$nor"]),
                  st.lists(filters(depth - 1), min_size=1, max_size=3)),
    )


@AGREEMENT
@given(documents=st.lists(st.fixed_dictionaries({}, optional={"a": values, "c": values}), max_size=8),
       specs=st.lists(filters(), min_size=1, max_size=6))
def test_any_filter_selects_on_the_server_what_the_matcher_selects(probes, documents, specs):
    documents = [{"_id": n, **d} for n, d in enumerate(documents)]
    stored(probes, documents)
    for spec in specs:
        if refused_where_the_servers_disagree(spec):
            continue
        server, ours = server_and_matcher(probes, documents, spec)
        assert ours == server, spec


def refused_where_the_servers_disagree(spec: dict) -> bool:
    """Whether the matcher refuses `spec` as NULL_AMONG_OTHERS or NULL_IN_OR (its only
    refusals of a filter these strategies build; any other refusal fails the test)."""
    try:
        compile_filter(spec)
    except UnsupportedFilter as refusal:
        if "the servers disagree" in str(refusal):
            return True
        raise
    return False


def test_the_server_counts_a_missing_element_as_null_except_in_an_in_among_other_values(probes):
    """Why the matcher refuses NULL_AMONG_OTHERS: the development server (DocumentDB)
    matches `{a: []}` with `{"a.0": null}` and `$in: [null]`, as MongoDB does, but not
    with `$in: [null, 1]`. If this ever fails, the server agrees and the refusal can go."""
    stored(probes, [{"_id": 0, "a": []}])
    assert [d["_id"] for d in probes.find({"a.0": None})] == [0]
    assert [d["_id"] for d in probes.find({"a.0": {"$in": [None]}})] == [0]
    assert [d["_id"] for d in probes.find({"a.0": {"$in": [None, 1]}})] == []
    with pytest.raises(UnsupportedFilter, match="the servers disagree"):
        compile_filter({"a.0": {"$in": [None, 1]}})
    assert NULL_AMONG_OTHERS.endswith("the servers disagree on it")


def test_the_server_counts_a_path_missing_under_an_array_as_null_except_within_an_or(probes):
    """Why the matcher refuses NULL_IN_OR: within an `$or` of tests on one such path the
    development server stops matching `{a: []}` with `{"a.0": null}` and `{b: [{c: null}]}`
    with `{"b.c.d": null}`, which MongoDB matches, as it does outside the `$or` (and, for
    the second, in an `$in` of null among others). If this ever fails, the refusal can go."""
    stored(probes, [{"_id": 0, "a": []}, {"_id": 1, "b": [{"c": None}]}])
    assert sorted(d["_id"] for d in probes.find({"a.0": None})) == [0, 1]
    assert [d["_id"] for d in probes.find({"$or": [{"a.0": None}]})] == [1]
    assert [d["_id"] for d in probes.find({"$or": [{"a.0": {"$in": [None]}}, {"a.0": 1}]})] == [1]
    assert sorted(d["_id"] for d in probes.find({"b.c.d": None})) == [0, 1]
    assert [d["_id"] for d in probes.find({"$or": [{"b.c.d": None}]})] == [0]
    assert [d["_id"] for d in probes.find({"b.c.d": {"$in": [None, 1]}})] == [0]
    with pytest.raises(UnsupportedFilter, match="the servers disagree"):
        compile_filter({"$or": [{"a.0": None}]})
    assert NULL_IN_OR.endswith("the servers disagree on it")


# --- Every Query the stores build, on comment documents -----------------------------------------

NAMES = ["Rosa", "rosa", "ROSA\u00a0M", "Nguyễn Văn", "NGUYEN VAN", "Đường", "duong", "Ada", "İlker", "ılker",
         "Straße", "STRASSE", "क़लम", "कलम", "\u212aim", "ſam"]
TYPED = ["ros", "rosa m", "nguyen", "duong", "ilker", "ı", "strasse", "ß", "कलम", "ADA", "kim", "SAM", "a.m"]
EMAILS = ["rosa@example.com", "ROSA@EXAMPLE.COM", "ada@example.org", "r.sa@example.com", "ſam@example.com"]
SLUGS = ["a", "a/b", "a/b/c", "a/bc", "ab", "b", "b/a", "a.b", "a*"]
IPS = [None, "192.0.2.1", "192.0.2.10", "2001:db8::1"]
DISCUSSIONS = [ObjectId("aaaaaaaaaaaaaaaaaaaaaaaa"), ObjectId("bbbbbbbbbbbbbbbbbbbbbbbb")]


@st.composite
def comment_documents(draw) -> list[dict]:
    """Up to 8 complete comment documents, as records.new_document and the writes that
    follow (status, placeholder, flags, votes, picks) leave them."""
    count = draw(st.integers(0, 8))
    documents = []
    for n in range(count):
        slug = draw(st.sampled_from(SLUGS))
        author = {"id": draw(st.sampled_from([None, 1, 2])), "name": draw(st.sampled_from(NAMES)),
                  "email": draw(st.sampled_from(EMAILS)), **({"staff": True} if draw(st.booleans()) else {})}
        up, down = draw(st.integers(0, 2)), draw(st.integers(0, 2))
        documents.append({
            "_id": OIDS[n], "discussion_id": draw(st.sampled_from(DISCUSSIONS)),
            "parent_id": draw(st.sampled_from([None, *OIDS[:3]])), "slug": slug, "full_slug": slug,
            "thread": slug.split("/")[0], "posted": BASE + timedelta(microseconds=draw(st.integers(0, 5000)) * 499),
            "author": author, "text": draw(st.sampled_from(["a", "b"])), "html": "", "form_key": None,
            "status": draw(st.sampled_from(STATUSES)), "placeholder": draw(st.booleans()),
            "ip": draw(st.sampled_from(IPS)), "edited": None, "flag_count": draw(st.integers(0, 2)),
            "votes": {"up": up, "down": down}, "score": up - down, "rank": draw(st.sampled_from([0.0, 0.2, 0.5])),
            "picked": draw(st.booleans()),
        })
    return documents


def some(strategy, size: int = 3):
    return st.none() | st.frozensets(strategy, max_size=size)


@st.composite
def queries(draw, comments: list[Comment]) -> Query:
    """A Query with any of the fields the stores' operations set."""
    one = st.sampled_from(comments) if comments else st.none()
    order_name = draw(st.sampled_from([*ORDERS, *RANKED_ORDERS, *QUEUE_TABS]))
    order = tuple(ORDERS.get(order_name) or RANKED_ORDERS.get(order_name) or queue_order(order_name))
    past = draw(st.none() | one)
    tab = draw(st.none() | st.sampled_from(QUEUE_TABS))
    author = CommentAuthor(id=draw(st.sampled_from([None, 1])), name=draw(st.sampled_from(NAMES)),
                           email=draw(st.sampled_from(EMAILS)))
    return Query(
        discussion_id=draw(st.none() | st.sampled_from(DISCUSSIONS)),
        discussion_ids=draw(some(st.sampled_from(DISCUSSIONS))),
        below=draw(st.none() | one), subthread=draw(st.none() | one),
        viewer=draw(st.none() | st.builds(Viewer, user_id=st.sampled_from([None, 1, 2]),
                                          own=st.frozensets(st.sampled_from(OIDS), max_size=2),
                                          editor=st.booleans())),
        exclude=draw(st.frozensets(st.sampled_from(STATUSES), max_size=3)),
        ids=draw(some(st.sampled_from(OIDS), 4)), slugs=draw(some(st.sampled_from(SLUGS))),
        commenter=draw(st.none() | st.builds(
            lambda user, ips: by_commenter(user_id=user, ips=ips) if user or ips else by_commenter(user_id=1),
            st.sampled_from([None, 1, 2]), st.lists(st.sampled_from(IPS[1:]), max_size=2))),
        tab=tab,
        filters=QueueFilter(discussion_id=draw(st.none() | st.sampled_from(DISCUSSIONS)),
                            name=draw(st.sampled_from(["", *TYPED])), email=draw(st.sampled_from(["", *EMAILS])),
                            ip=draw(st.sampled_from(["", *IPS[1:]]))) if tab else QueueFilter(),
        duplicate=draw(st.none() | st.builds(
            Duplicate, parent_id=st.sampled_from([None, OIDS[0]]), author=st.just(author),
            ip=st.sampled_from(IPS), text=st.sampled_from(["a", "b"]),
            since=st.integers(0, 5000).map(lambda n: BASE + timedelta(microseconds=n * 499)))),
        roots=draw(st.booleans()),
        threads=draw(some(st.sampled_from([s.split("/")[0] for s in SLUGS]))),
        tallies=draw(st.none() | st.tuples(st.integers(0, 2), st.integers(0, 2))),
        picked=draw(st.none() | st.booleans()),
        order=order,
        after=tuple(field_value(past, name) for name, _ in order) if past is not None else None,
    )


@AGREEMENT
@given(data=st.data(), documents=comment_documents())
def test_every_query_selects_on_the_server_what_the_embedded_store_selects_in_python(probes, data, documents):
    """Query.selection() sent to the server, and Query.matches on each Comment as the
    embedded store unpacks it, select the same comments."""
    stored(probes, documents)
    comments = [Comment.from_doc(d) for d in documents]
    for _ in range(4):
        query = data.draw(queries(comments))
        server = {d["_id"] for d in probes.find(query.selection(), {"_id": 1})}
        selected = query.matcher()
        assert {c.id for c in comments if selected(c)} == server, query
        assert {c.id for c in comments if query.viewer is None or query.viewer.sees(c)} >= server


@pytest.mark.parametrize("name", ["ROSA\u00a0M", "İlker", "STRASSE"])
def test_the_queue_name_filter_means_what_the_server_means(probes, name):
    """Edge cases where a Python substring search on folded text (what the embedded
    store once did) and the server's pattern part ways; the matcher sides with the server."""
    document = {"_id": 1, "author": {"name": name}}
    stored(probes, [document])
    for typed in ("rosa m", "ilker", "strasse", "ß"):
        spec = {"author.name": {"$regex": folding.pattern(typed), "$options": "i"}}
        server, ours = server_and_matcher(probes, [document], spec)
        assert ours == server, (name, typed)
