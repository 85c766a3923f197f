"""comments/slugs.py: slug parts, full slugs, their sort orders and the patterns
passed to MongoDB as `{'$regex': ...}` (evaluated here with Python's `re`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from comments import slugs
from comments.slugs import DEPTH_CEILING, PART_ALPHABET, PART_LENGTH, SEPARATOR

UTC = timezone.utc
WHEN = datetime(2026, 11, 29, 20, 41, 7, 123456, tzinfo=UTC)
A, B, C, D = "aaaaaaaa", "bbbbbbbb", "k3x7q2ab", "7mfp2d4c"


def reply_to(parent: tuple[str, str], *, posted: datetime, part: str) -> tuple[str, str]:
    """(slug, full_slug) of a reply to the comment whose (slug, full_slug) is `parent`."""
    return slugs.child_slugs(parent_slug=parent[0], parent_full_slug=parent[1], posted=posted, part=part)


def regex_matches(pattern: str, value: str) -> bool:
    """MongoDB's `$regex` is a search (not anchored unless the pattern says so)."""
    return re.search(pattern, value) is not None


# --- parts ---------------------------------------------------------------------------


def test_part_alphabet_is_32_distinct_lowercase_base32_characters():
    """The alphabet has 32 distinct characters (5 bits each), none of them upper case."""
    assert len(PART_ALPHABET) == len(set(PART_ALPHABET)) == 32
    assert PART_ALPHABET == PART_ALPHABET.lower()
    assert SEPARATOR not in PART_ALPHABET


def test_new_part_is_eight_characters_of_the_alphabet_and_uses_all_of_it():
    """Every new part is PART_LENGTH characters of PART_ALPHABET; together they use every letter."""
    parts = [slugs.new_part() for _ in range(2000)]
    assert PART_LENGTH == 8
    assert all(len(part) == PART_LENGTH for part in parts)
    assert all(set(part) <= set(PART_ALPHABET) for part in parts)
    # 16,000 draws of 32 letters: a letter never drawn means the alphabet is not all used.
    assert set("".join(parts)) == set(PART_ALPHABET)
    # 40 random bits each: 2,000 parts collide with probability about 2e-6.
    assert len(set(parts)) == len(parts)


def test_new_part_is_a_valid_slug_path():
    """A fresh part is accepted by is_slug_path as a top-level slug."""
    assert all(slugs.is_slug_path(slugs.new_part()) for _ in range(200))


# --- slugs and full slugs -------------------------------------------------------------


def test_time_part_is_utc_with_microseconds():
    """time_part writes the UTC time as YYYY.MM.DD.HH.MM.SS.ffffff."""
    assert slugs.time_part(WHEN) == "2026.11.29.20.41.07.123456"


def test_time_part_converts_other_time_zones_to_utc():
    """A posting time given in another zone is written as the same instant in UTC."""
    tokyo = WHEN.astimezone(timezone(timedelta(hours=9)))
    assert slugs.time_part(tokyo) == "2026.11.29.20.41.07.123456"


def test_time_part_pads_every_field_to_a_fixed_width():
    """Small values are zero-padded, so the prefix always has the same length."""
    early = datetime(2001, 2, 3, 4, 5, 6, 7, tzinfo=UTC)
    assert slugs.time_part(early) == "2001.02.03.04.05.06.000007"


def test_root_slugs_are_the_part_and_the_time_prefixed_part():
    """A top-level comment's slug is its part; its full_slug is `time:part`."""
    assert slugs.root_slugs(posted=WHEN, part=C) == (C, "2026.11.29.20.41.07.123456:k3x7q2ab")


def test_root_full_slug_has_the_documented_part_length():
    """A full_slug part is FULL_PART_LENGTH (27 + PART_LENGTH) characters."""
    _, full = slugs.root_slugs(posted=WHEN, part=C)
    assert len(full) == slugs.FULL_PART_LENGTH == 27 + PART_LENGTH


def test_child_slugs_append_to_the_parent_slugs_with_a_slash():
    """A reply's slug and full_slug are its parent's followed by `/` and its own part."""
    parent_slug, parent_full = slugs.root_slugs(posted=WHEN, part=C)
    later = WHEN + timedelta(seconds=1, microseconds=1)
    assert slugs.child_slugs(parent_slug=parent_slug, parent_full_slug=parent_full, posted=later, part=D) == (
        "k3x7q2ab/7mfp2d4c",
        "2026.11.29.20.41.07.123456:k3x7q2ab/2026.11.29.20.41.08.123457:7mfp2d4c",
    )


def test_child_slugs_of_a_reply_nest_one_level_deeper():
    """A reply to a reply carries the whole path from the root."""
    s1, f1 = slugs.root_slugs(posted=WHEN, part=A)
    s2, f2 = slugs.child_slugs(parent_slug=s1, parent_full_slug=f1, posted=WHEN, part=B)
    s3, f3 = slugs.child_slugs(parent_slug=s2, parent_full_slug=f2, posted=WHEN, part=C)
    assert s3 == f"{A}/{B}/{C}"
    t = slugs.time_part(WHEN)
    assert f3 == f"{t}:{A}/{t}:{B}/{t}:{C}"


@pytest.mark.parametrize(
    ("slug", "expected"),
    [(A, 0), (f"{A}/{B}", 1), (f"{A}/{B}/{C}", 2), ("/".join([A] * DEPTH_CEILING), DEPTH_CEILING - 1)],
)
def test_depth_counts_the_levels_below_the_root(slug, expected):
    """depth is 0 for a top-level comment and one more per level of reply."""
    assert slugs.depth(slug) == expected


@pytest.mark.parametrize(
    ("slug", "expected"),
    [(A, None), (f"{A}/{B}", A), (f"{A}/{B}/{C}", f"{A}/{B}")],
)
def test_parent_slug_is_the_path_without_the_last_part(slug, expected):
    """parent_slug drops the last part, and is None for a top-level comment."""
    assert slugs.parent_slug(slug) == expected


@pytest.mark.parametrize(
    ("slug", "expected"),
    [(A, []), (f"{A}/{B}", [A]), (f"{A}/{B}/{C}/{D}", [A, f"{A}/{B}", f"{A}/{B}/{C}"])],
)
def test_ancestor_slugs_lists_every_ancestor_root_first(slug, expected):
    """ancestor_slugs gives each ancestor's slug from the root down, not the comment itself."""
    assert slugs.ancestor_slugs(slug) == expected


def test_thread_key_is_the_first_full_slug_part():
    """thread_key of a reply is its root's full_slug; of a root, its own full_slug."""
    root = "2026.11.29.20.41.07.123456:k3x7q2ab"
    assert slugs.thread_key(root) == root
    assert slugs.thread_key(f"{root}/2026.11.29.20.41.08.000000:7mfp2d4c") == root
    grandchild = f"{root}/2026.11.29.20.41.08.000000:7mfp2d4c/2026.11.30.00.00.00.000000:{A}"
    assert slugs.thread_key(grandchild) == root


@pytest.mark.parametrize(
    ("slug", "expected"),
    [(C, "c-k3x7q2ab"), (f"{C}/{D}", "c-k3x7q2ab-7mfp2d4c"), (f"{A}/{B}/{C}", f"c-{A}-{B}-{C}")],
)
def test_anchor_is_c_dash_and_the_slug_with_dashes(slug, expected):
    """anchor prefixes `c-` and replaces every `/` with `-`."""
    assert slugs.anchor(slug) == expected


def test_full_slug_at_the_deepest_allowed_level_stays_under_1024_bytes():
    """A full_slug DEPTH_CEILING-1 levels deep is under MongoDB's old 1,024-byte index key limit."""
    slug, full = slugs.root_slugs(posted=WHEN, part=slugs.new_part())
    for _ in range(DEPTH_CEILING - 1):
        slug, full = reply_to((slug, full), posted=WHEN, part=slugs.new_part())
    assert slugs.depth(slug) == DEPTH_CEILING - 1
    assert slugs.is_slug_path(slug)
    assert len(full.encode("utf-8")) == DEPTH_CEILING * slugs.FULL_PART_LENGTH + (DEPTH_CEILING - 1)
    assert len(full.encode("utf-8")) < 1024


# --- is_slug_path ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        A,
        C,
        "abcdefgh",
        "234567ab",
        f"{C}/{D}",
        f"{A}/{B}/{C}/{D}",
        "/".join([C] * DEPTH_CEILING),
    ],
)
def test_is_slug_path_accepts_well_formed_paths(value):
    """One to DEPTH_CEILING parts of PART_LENGTH alphabet characters, joined by `/`, are accepted."""
    assert slugs.is_slug_path(value)


@pytest.mark.parametrize(
    "value",
    [
        # regular-expression and query metacharacters
        ".*",
        "........",
        "abcdefg.",
        "^abcdefg",
        "abcdefg$",
        "abcd|efg",
        "[a-z]{8}",
        "abcdef.*",
        "k3x7q2a\\",
        "(?:abc)",
        '{"$ne": null}',
        "$ne",
        # upper case and characters outside the alphabet (0, 1, 8, 9, punctuation, non-ASCII)
        "ABCDEFGH",
        "abcdefgH",
        "abcdefg0",
        "abcdefg1",
        "abcdefg8",
        "abcdefg9",
        "abcd-efg",
        "abcd_efg",
        "abcdefgé",
        "abcdefgı",
        "abcdefg٣",
        # wrong lengths
        "",
        "abcdefg",
        "abcdefghi",
        f"{C}/{D[:-1]}",
        f"{C}/{D}x",
        # empty parts, leading / trailing / doubled separators, whitespace
        "/",
        f"/{C}",
        f"{C}/",
        f"{C}//{D}",
        f"{C}/{D}/",
        f" {C}",
        f"{C} ",
        f"{C}\n",
        f"{C}\n/{D}",
        f"{C}\\{D}",
        # one level too many
        "/".join([C] * (DEPTH_CEILING + 1)),
        "/".join([C] * (DEPTH_CEILING + 5)),
    ],
)
def test_is_slug_path_refuses_malformed_values(value):
    """Metacharacters, upper case, wrong lengths, empty parts, a trailing slash and too many levels
    are refused."""
    assert not slugs.is_slug_path(value)


def _is_slug_path_oracle(value: str) -> bool:
    parts = value.split(SEPARATOR)
    return 1 <= len(parts) <= DEPTH_CEILING and all(
        len(part) == PART_LENGTH and all(ch in PART_ALPHABET for ch in part) for part in parts
    )


_near_parts = st.one_of(
    st.text(alphabet=PART_ALPHABET, min_size=PART_LENGTH, max_size=PART_LENGTH),
    st.text(alphabet=PART_ALPHABET + "A0189./*$^|\\ \n-é", min_size=0, max_size=PART_LENGTH + 1),
)


@settings(max_examples=200)
@given(parts=st.lists(_near_parts, min_size=1, max_size=DEPTH_CEILING + 2))
def test_is_slug_path_accepts_exactly_the_well_formed_paths(parts):
    """is_slug_path agrees with a plain split-and-check definition on near-valid values."""
    value = SEPARATOR.join(parts)
    assert slugs.is_slug_path(value) == _is_slug_path_oracle(value)


@settings(max_examples=100)
@given(value=st.text(max_size=40))
def test_is_slug_path_refuses_arbitrary_text_unless_well_formed(value):
    """On arbitrary text, is_slug_path is true only for well-formed paths."""
    assert slugs.is_slug_path(value) == _is_slug_path_oracle(value)


# --- subtree_regex and replies_regex --------------------------------------------------


def _family():
    """A root with two replies and a grandchild, plus look-alike neighbours."""
    t0 = WHEN
    root = slugs.root_slugs(posted=t0, part="k3x7q2ab")
    reply = reply_to(root, posted=t0, part="7mfp2d4c")
    # Same time, and its part starts with the same seven characters as `reply`'s.
    reply_sibling = reply_to(root, posted=t0, part="7mfp2d4d")
    grandchild = reply_to(reply, posted=t0, part="aaaaaaaa")
    # A top-level sibling of the root at the same microsecond with a close part.
    root_sibling = slugs.root_slugs(posted=t0, part="k3x7q2ac")
    return {
        "root": root[1],
        "reply": reply[1],
        "reply_sibling": reply_sibling[1],
        "grandchild": grandchild[1],
        "root_sibling": root_sibling[1],
    }


def test_subtree_regex_matches_the_comment_and_its_descendants_only():
    """subtree_regex of a reply matches it and its replies, not its parent or its look-alike sibling."""
    f = _family()
    pattern = slugs.subtree_regex(f["reply"])
    assert regex_matches(pattern, f["reply"])
    assert regex_matches(pattern, f["grandchild"])
    assert not regex_matches(pattern, f["reply_sibling"])
    assert not regex_matches(pattern, f["root"])
    assert not regex_matches(pattern, f["root_sibling"])


def test_subtree_regex_of_a_root_matches_its_whole_thread_only():
    """subtree_regex of a root matches every comment in its thread and nothing of the sibling thread."""
    f = _family()
    pattern = slugs.subtree_regex(f["root"])
    assert all(regex_matches(pattern, f[name]) for name in ("root", "reply", "reply_sibling", "grandchild"))
    assert not regex_matches(pattern, f["root_sibling"])


def test_subtree_regex_refuses_a_key_that_merely_extends_the_full_slug():
    """A value starting with the full_slug but going on without `/` does not match."""
    full = _family()["reply"]
    pattern = slugs.subtree_regex(full)
    assert not regex_matches(pattern, full + "x")
    assert not regex_matches(pattern, full + ":")
    assert not regex_matches(pattern, full + "0/" + full)


def test_subtree_regex_is_anchored_at_the_start():
    """A comment whose later part equals another's full_slug is not in that other's subtree."""
    f = _family()
    # A reply in another thread, posted at the same microsecond with the same part as the root.
    other_root = slugs.root_slugs(posted=WHEN - timedelta(days=1), part="zzzzzzzz")
    lookalike = reply_to(other_root, posted=WHEN, part="k3x7q2ab")[1]
    assert lookalike.endswith(f["root"])
    assert not regex_matches(slugs.subtree_regex(f["root"]), lookalike)
    assert not regex_matches(slugs.replies_regex(f["root"]), lookalike + "/" + f["reply"].split("/")[1])


def test_subtree_regex_treats_the_dots_of_the_time_literally():
    """The `.` separators of the time are escaped: a key with other characters there does not match."""
    full = _family()["root"]
    altered = full.replace(".", "x", 1)
    assert not regex_matches(slugs.subtree_regex(full), altered)
    assert not regex_matches(slugs.replies_regex(full), altered + "/" + full)


def test_replies_regex_matches_descendants_but_not_the_comment_itself():
    """replies_regex matches the replies at every depth below the comment, not the comment or its siblings."""
    f = _family()
    pattern = slugs.replies_regex(f["reply"])
    assert regex_matches(pattern, f["grandchild"])
    assert not regex_matches(pattern, f["reply"])
    assert not regex_matches(pattern, f["reply_sibling"])
    assert not regex_matches(pattern, f["root"])
    root_pattern = slugs.replies_regex(f["root"])
    assert all(regex_matches(root_pattern, f[name]) for name in ("reply", "reply_sibling", "grandchild"))
    assert not regex_matches(root_pattern, f["root"])
    assert not regex_matches(root_pattern, f["root_sibling"])


def test_regexes_have_a_literal_prefix_an_index_can_use():
    """Both patterns start with `^` followed by the escaped full_slug (a prefix an index bounds)."""
    full = _family()["reply"]
    assert slugs.subtree_regex(full) == "^" + re.escape(full) + "(?:/|$)"
    assert slugs.replies_regex(full) == "^" + re.escape(full + "/")


# --- random trees: sort orders and patterns -------------------------------------------


@dataclass(frozen=True)
class Node:
    index: int
    parent: int | None
    posted: datetime
    part: str
    slug: str
    full_slug: str


# Parts chosen to sort in an order unrelated to posting times; a small pool makes
# equal parts at different places in a tree (allowed: only whole slugs are unique).
PART_POOL = [
    "zzzzzzzz", "aaaaaaaa", "mmmmmmmm", "22222222", "77777777", "aaaaaaab",
    "zzzzzzzy", "k3x7q2ab", "k3x7q2ac", "qqqqqqqq", "bbbbbbbb", "55555555",
    "7mfp2d4c", "cccccccc",
]
BASE = datetime(2025, 12, 31, 23, 59, 58, tzinfo=UTC)
# Offsets that land several comments in one second, or one microsecond, and across
# second, minute, day and year boundaries.
SECONDS = [0, 0, 0, 1, 2, 61, 86_400, 86_400 * 365]
MICROSECONDS = [0, 0, 1, 9, 10, 999, 1000, 500_000, 999_999]
ZONES = [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))]
MAX_NODES = 12


@st.composite
def comment_trees(draw) -> list[Node]:
    """A random discussion: each comment replies to an earlier one or starts a thread,
    at a random time (in a random zone), with a part unique among its siblings."""
    count = draw(st.integers(1, MAX_NODES))
    nodes: list[Node] = []
    for i in range(count):
        parent = draw(st.one_of(st.none(), st.integers(0, i - 1))) if i else None
        instant = BASE + timedelta(
            seconds=draw(st.sampled_from(SECONDS)), microseconds=draw(st.sampled_from(MICROSECONDS))
        )
        posted = instant.astimezone(draw(st.sampled_from(ZONES)))
        taken = {n.part for n in nodes if n.parent == parent}
        part = draw(st.sampled_from([p for p in PART_POOL if p not in taken]))
        if parent is None:
            slug, full = slugs.root_slugs(posted=posted, part=part)
        else:
            p = nodes[parent]
            slug, full = reply_to((p.slug, p.full_slug), posted=posted, part=part)
        nodes.append(Node(i, parent, posted, part, slug, full))
    return nodes


def _descendants(nodes: list[Node], index: int) -> set[int]:
    """Indexes of the comments below `index` (children are created after parents)."""
    below: set[int] = set()
    for node in nodes:
        if node.parent is not None and (node.parent == index or node.parent in below):
            below.add(node.index)
    return below


def _root_of(nodes: list[Node], index: int) -> int:
    while nodes[index].parent is not None:
        index = nodes[index].parent
    return index


def _assert_threaded(nodes: list[Node], order: list[Node]):
    """`order` is depth first: every comment is followed by exactly its subtree,
    and siblings appear oldest first."""
    position = {node.index: pos for pos, node in enumerate(order)}
    for node in order:
        below = _descendants(nodes, node.index)
        start = position[node.index]
        block = {n.index for n in order[start + 1 : start + 1 + len(below)]}
        assert block == below, f"the replies under {node.slug} are not right after it"
    for parent in {n.parent for n in nodes}:
        siblings = sorted((n for n in nodes if n.parent == parent), key=lambda n: position[n.index])
        times = [n.posted for n in siblings]
        assert times == sorted(times), "siblings are not in time order"


@settings(max_examples=150)
@given(nodes=comment_trees())
def test_sorting_full_slugs_gives_depth_first_order_with_siblings_oldest_first(nodes):
    """Sorting by full_slug puts each reply after its parent, before the parent's next
    sibling, and siblings in posting order, even several in one second or microsecond."""
    by_full = {n.full_slug: n for n in nodes}
    assert len(by_full) == len(nodes)
    order = [by_full[f] for f in sorted(by_full)]
    _assert_threaded(nodes, order)


@settings(max_examples=150)
@given(nodes=comment_trees())
def test_newest_first_sort_puts_threads_newest_first_each_still_threaded(nodes):
    """Sorting by (thread_key desc, full_slug asc) lists threads newest first, each
    thread contiguous and in threaded order under its root."""
    # MongoDB's compound sort, emulated by two stable passes: minor key first.
    order = sorted(nodes, key=lambda n: n.full_slug)
    order = sorted(order, key=lambda n: slugs.thread_key(n.full_slug), reverse=True)

    roots = [n for n in order if n.parent is None]
    root_times = [r.posted for r in roots]
    assert root_times == sorted(root_times, reverse=True), "threads are not newest first"
    pos = 0
    for root in roots:
        members = [n for n in nodes if _root_of(nodes, n.index) == root.index]
        thread = order[pos : pos + len(members)]
        assert thread[0] is root
        assert {n.index for n in thread} == {n.index for n in members}, "a thread is split up"
        _assert_threaded(members, thread)
        pos += len(thread)
    assert pos == len(order)


@settings(max_examples=100)
@given(nodes=comment_trees())
def test_slug_helpers_agree_with_the_tree(nodes):
    """depth, parent_slug, ancestor_slugs, thread_key and is_slug_path describe each comment's place."""
    for node in nodes:
        ancestors = []
        up = node.parent
        while up is not None:
            ancestors.insert(0, nodes[up])
            up = nodes[up].parent
        assert slugs.depth(node.slug) == len(ancestors)
        assert slugs.parent_slug(node.slug) == (nodes[node.parent].slug if node.parent is not None else None)
        assert slugs.ancestor_slugs(node.slug) == [a.slug for a in ancestors]
        assert slugs.thread_key(node.full_slug) == nodes[_root_of(nodes, node.index)].full_slug
        assert slugs.is_slug_path(node.slug)


@settings(max_examples=100)
@given(nodes=comment_trees())
def test_regexes_select_exactly_the_subtree_and_the_replies(nodes):
    """For every pair of comments, subtree_regex matches the comment and its descendants,
    and replies_regex its descendants only."""
    for node in nodes:
        below = _descendants(nodes, node.index)
        subtree, replies = slugs.subtree_regex(node.full_slug), slugs.replies_regex(node.full_slug)
        for other in nodes:
            in_subtree = other.index == node.index or other.index in below
            assert regex_matches(subtree, other.full_slug) == in_subtree
            assert regex_matches(replies, other.full_slug) == (other.index in below)


# --- examples of the sort orders ------------------------------------------------------


def test_reply_sorts_directly_after_its_parent_and_before_the_parents_next_sibling():
    """A late reply to an early comment still sorts before that comment's next sibling."""
    first = slugs.root_slugs(posted=WHEN, part="zzzzzzzz")
    second = slugs.root_slugs(posted=WHEN + timedelta(seconds=1), part="aaaaaaaa")
    late_reply = reply_to(first, posted=WHEN + timedelta(days=3), part="aaaaaaaa")
    assert sorted([second[1], late_reply[1], first[1]]) == [first[1], late_reply[1], second[1]]


def test_two_replies_in_the_same_second_sort_by_microsecond_not_by_part():
    """Replies posted in the same second sort by their microseconds, whatever their random parts."""
    root = slugs.root_slugs(posted=WHEN, part=C)
    t = WHEN.replace(microsecond=0) + timedelta(seconds=5)
    earlier = reply_to(root, posted=t.replace(microsecond=9), part="zzzzzzzz")
    later = reply_to(root, posted=t.replace(microsecond=10), part="aaaaaaaa")
    assert sorted([later[1], earlier[1]]) == [earlier[1], later[1]]


def test_replies_in_the_same_millisecond_sort_by_microsecond():
    """Replies within one millisecond (which BSON dates cannot tell apart) still sort by time."""
    root = slugs.root_slugs(posted=WHEN, part=C)
    t = WHEN.replace(microsecond=123_000)
    earlier = reply_to(root, posted=t.replace(microsecond=123_001), part="zzzzzzzz")
    later = reply_to(root, posted=t.replace(microsecond=123_998), part="aaaaaaaa")
    assert sorted([later[1], earlier[1]]) == [earlier[1], later[1]]


def test_newest_view_puts_a_newer_thread_above_an_older_thread_with_replies():
    """Sorted by (thread desc, full_slug asc), the newer root comes first, the older keeps its reply."""
    old = slugs.root_slugs(posted=WHEN, part="aaaaaaaa")
    new = slugs.root_slugs(posted=WHEN + timedelta(microseconds=1), part="zzzzzzzy")
    old_reply = reply_to(old, posted=WHEN + timedelta(days=1), part="bbbbbbbb")
    docs = [old[1], old_reply[1], new[1]]
    order = sorted(sorted(docs), key=slugs.thread_key, reverse=True)
    assert order == [new[1], old[1], old_reply[1]]


def test_slug_of_strips_the_times_from_a_full_slug():
    """slug_of recovers the slug path that a full_slug was built from."""
    posted = datetime(2026, 3, 1, 9, 0, 0, 123456, tzinfo=timezone.utc)
    root, root_full = slugs.root_slugs(posted=posted, part="abcdefgh")
    child, child_full = slugs.child_slugs(parent_slug=root, parent_full_slug=root_full, posted=posted, part="k3x7q2ab")
    assert slugs.slug_of(root_full) == root
    assert slugs.slug_of(child_full) == child == "abcdefgh/k3x7q2ab"
