"""The pure tree helpers of the embedded store (comments/stores/embedded.py, whose
docstring describes the document): a comment's chain (the slugs from the root down
to it), the update paths and arrayFilters that reach it, the query conditions that
find it at any depth, walking a discussion's tree depth first, packing and unpacking
its nodes, and planning where imported comments graft onto it. No I/O: each takes
and gives plain values."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import bson
from bson import ObjectId

from comments import slugs
from comments.records import Comment

REPLIES = "replies"
# What one pushed node adds besides its own BSON: the element's type byte and its
# array index as a key (up to 7 digits and a NUL), rounded up.
ELEMENT_BYTES = 16
# The slugs from the root down to a comment ((): the discussion's own array).
Chain = tuple[str, ...]


def chain_of(slug: str) -> Chain:
    """Where a comment sits when it sits where its slug says: its ancestors' slugs
    and its own, root first ('a/b' gives ('a', 'a/b'))."""
    return (*slugs.ancestor_slugs(slug), slug)


def chain_field(chain: Chain, name: str, tag: str = "c") -> str:
    """The update path of the field `name` of the comment at the end of `chain`,
    one arrayFilters identifier per depth: ('a', 'a/b') and 'status' give
    'replies.$[c0].replies.$[c1].status'; the empty chain names the discussion's own
    field. `tag` starts the identifiers (several chains in one update: one each)."""
    return "".join(f"{REPLIES}.$[{tag}{depth}]." for depth in range(len(chain))) + name


def chain_filters(chain: Chain, tag: str = "c") -> list[dict] | None:
    """The arrayFilters of chain_field: each identifier picks its slug."""
    return [{f"{tag}{depth}.slug": slug} for depth, slug in enumerate(chain)] or None


def chain_exists(chain: Chain, **condition: Any) -> dict:
    """A query matching a discussion where `chain` exists, each node in its parent's
    `replies`, and its last node also meets `condition` (fields of that node)."""
    if not chain:
        return {}
    wanted: dict[str, Any] = {"slug": chain[-1], **condition}
    for slug in reversed(chain[:-1]):
        wanted = {"slug": slug, REPLIES: {"$elemMatch": wanted}}
    return {REPLIES: {"$elemMatch": wanted}}


def flatten(replies: list[dict], chain: Chain = ()) -> Iterator[tuple[Chain, dict]]:
    """Every comment node of a tree with its chain, depth first (a node before its
    replies, each level in array order)."""
    for node in replies:
        here = (*chain, str(node.get("slug")))
        yield here, node
        yield from flatten(node.get(REPLIES) or [], here)


def any_depth(field: str, condition: Any, *, depth: int = slugs.DEPTH_CEILING) -> dict:
    """A query matching discussions with a comment, at any depth up to `depth`
    levels, whose `field` meets `condition`: one dotted path per depth, since a path
    through nested arrays names exactly one depth."""
    return {"$or": [{".".join([REPLIES] * level + [field]): condition} for level in range(1, depth + 1)]}


def at_every_depth(*fields: str) -> dict:
    """A projection of these node fields at every depth (and the `replies` arrays
    that hold them)."""
    return {".".join([REPLIES] * level + [field]): 1 for level in range(1, slugs.DEPTH_CEILING + 1)
            for field in fields}


def unpack(discussion: dict | None) -> list[Comment]:
    """The comments of a discussion document, depth first."""
    if not discussion:
        return []
    return [to_comment(node, discussion["_id"]) for _, node in flatten(discussion.get(REPLIES) or [])]


def to_comment(node: dict, discussion_id: ObjectId) -> Comment:
    """A node as a Comment; on a projected node the fields left out get their defaults
    (`text` empty)."""
    return Comment.from_doc({"text": "", **node, "discussion_id": discussion_id})


def to_node(document: dict) -> dict:
    """A flat comment document (the documents store's) as a node with no replies yet."""
    node = {key: value for key, value in document.items() if key not in ("discussion_id", REPLIES)}
    node[REPLIES] = []
    return node


def to_document(node: dict, discussion_id: ObjectId) -> dict:
    """A node as the documents store's flat document: `discussion_id` after `_id`,
    no `replies`."""
    rest = {key: value for key, value in node.items() if key not in ("_id", REPLIES)}
    return {"_id": node["_id"], "discussion_id": discussion_id, **rest}


def added_bytes(nodes: Iterable[dict]) -> int:
    """How much pushing these nodes (with their replies) adds to a document, at most."""
    return sum(len(bson.encode(node)) + ELEMENT_BYTES for node in nodes)


def graft(replies: list[dict], documents: Iterable[dict], *,
          assumed: bool = False) -> tuple[dict[Chain, list[dict]], int]:
    """Plan adding flat comment documents to a tree: which new subtrees go under which
    existing comment (by its chain; the empty chain: top level), and how many
    comments they hold.

    Parents go before children (by depth, then posting order) and a new reply is
    nested in its new parent, so each subtree is one `$push`. A document whose slug
    or `_id` the tree (or an earlier document) has is skipped. One whose parent is
    nowhere goes to the top level: it keeps its slugs, so it still sorts in place,
    and is not lost. With `assumed`, a parent the tree does not hold is taken to sit
    where its slug says (a plan made without reading the tree, which the write's
    filter checks).
    """
    existing = {node["slug"]: chain for chain, node in flatten(replies)}
    ids = {node["_id"] for _, node in flatten(replies)}
    new: dict[str, dict] = {}
    grafts: dict[Chain, list[dict]] = {}
    ordered = sorted(documents, key=lambda d: (slugs.depth(d["slug"]), d["posted"], str(d["_id"])))
    for document in ordered:
        slug = document["slug"]
        if slug in existing or slug in new or document["_id"] in ids:
            continue
        node = to_node(document)
        parent = slugs.parent_slug(slug)
        if parent in new:
            new[parent][REPLIES].append(node)
        else:
            where = existing.get(parent, chain_of(parent) if assumed else ()) if parent else ()
            grafts.setdefault(where, []).append(node)
        new[slug] = node
        ids.add(node["_id"])
    return grafts, len(new)


def deepest(nodes: Iterable[dict]) -> int:
    """How many levels down a comment with one of these nodes' slugs or ids can sit
    in a tree: no deeper than its slug says, since every write puts a comment under
    its parent where that sits, or at the top level."""
    return max((slugs.depth(node["slug"]) + 1 for node in nodes), default=1)


def in_rounds(grafts: dict[Chain, list[dict]]) -> list[dict[Chain, list[dict]]]:
    """The grafts split into updates that each push under at most one comment of each
    top-level subtree, and new top-level comments alone: two paths of one update that
    meet in one top-level comment are refused by MongoDB (an ancestor's and its
    descendant's) or one of them silently dropped by DocumentDB 0.106, and the
    discussion's own array conflicts with every path below it."""
    rounds: list[dict[Chain, list[dict]]] = [{(): grafts[()]}] if () in grafts else []
    under: dict[str, list[Chain]] = {}
    for chain in grafts:
        if chain:
            under.setdefault(chain[0], []).append(chain)
    for k in range(max((len(chains) for chains in under.values()), default=0)):
        rounds.append({chains[k]: grafts[chains[k]] for chains in under.values() if k < len(chains)})
    return rounds


def push_update(discussion_id: ObjectId, grafts: dict[Chain, list[dict]], *, limit: int,
                depth: int | None = None, form_key: str | None = None,
                ) -> tuple[dict, dict, list[Mapping[str, Any]] | None]:
    """One update (filter, change, arrayFilters) pushing each chain's new subtrees under
    it (one round of in_rounds, or a reader's one chain), refused unless every chain
    exists, no node down to `depth` levels (by default as deep as they could sit:
    `deepest`) has one of their slugs or ids, nor any node `form_key`, and the
    document stays under `limit` bytes."""
    new = [node for nodes in grafts.values() for _, node in flatten(nodes)]
    depth = deepest(new) if depth is None else depth
    taken = any_depth("slug", {"$in": [n["slug"] for n in new]}, depth=depth)["$or"]
    taken += any_depth("_id", {"$in": [n["_id"] for n in new]}, depth=depth)["$or"]
    if form_key:
        taken += any_depth("form_key", form_key)["$or"]
    room = limit - added_bytes(node for nodes in grafts.values() for node in nodes)
    query: dict[str, Any] = {"_id": discussion_id, "$nor": taken,
                             "$expr": {"$lte": [{"$bsonSize": "$$ROOT"}, room]}}
    tags = {chain: f"c{k}d" for k, chain in enumerate(grafts)}
    exists = [chain_exists(chain) for chain in grafts if chain]
    if exists:
        query["$and"] = exists
    change = {"$push": {chain_field(chain, REPLIES, tags[chain]): {"$each": nodes}
                        for chain, nodes in grafts.items()}}
    filters: list[Mapping[str, Any]] = [f for chain in grafts
                                        for f in chain_filters(chain, tags[chain]) or []]
    return query, change, filters or None
