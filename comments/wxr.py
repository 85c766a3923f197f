"""WordPress's export (WXR) in: its posts with their comments, or only the comments
onto posts already here (`import_comments --format wordpress`).

WXR is RSS 2.0 with WordPress's own namespace: the channel lists the blog's authors
(`wp:author`), then one `<item>` per post, page, attachment and so on, each holding
its fields (`wp:post_type`, `wp:post_name`, `wp:status`, `content:encoded`,
`dc:creator`, `<category domain="post_tag|category">`) and its comments
(`wp:comment`: id, author, e-mail, URL, IP, `date_gmt`, content, `approved`, parent,
type).

The file is read as a stream with expat, a chunk at a time: only the item being read
is held (a post and its comments), and each is dropped once handed on, so a 1 GB
export needs the memory of its largest post, not of the file. Entities are never
resolved: a file that declares any entity, or names an external DTD, is refused
before anything of it is used (no XXE, no billion laughs); an entity it uses
without declaring is an XML error. A malformed file stops with its line and reason;
the items before it have been handed on whole.

What is imported, and why:
- Only items of type `post`. Pages are the blog's fixed pages (about, contact):
  Slugline has no such thing, and as posts they would join the front page, the
  feeds and the sitemap. Attachments, menu items and revisions are not content.
- A post keeps its slug (`wp:post_name`, made URL-safe when it is not), status
  (published, scheduled, or a draft for the rest; trashed posts are skipped), times,
  tags (WordPress tags and categories, but not its default "Uncategorized"),
  excerpt and author (found by login among Slugline's authors, else created from
  the export's author list as an author without a password or dashboard access).
- A post's body becomes Markdown (see `html_to_markdown`): it is what the editor
  edits, so a person can go on working on it; what Markdown cannot say (tables,
  figures) stays as HTML, which our post renderer sanitises.
- Comments: statuses 1/0/spam/trash become approved/pending/spam/deleted; pingbacks
  and trackbacks are skipped and counted; times are UTC from `date_gmt`, or the
  local `date` moved by the post's own offset when `date_gmt` is zero (reported).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import BinaryIO
from xml.parsers import expat

CHUNK_BYTES = 64 * 1024

BAD_XML = "Line {line}: {reason}"
ENTITY_REFUSED = "the file declares the entity “{name}”; entities are never expanded, so it is refused"
EXTERNAL_DTD_REFUSED = "the file names an external DTD ({system_id}); it is never loaded, so it is refused"
NOT_WXR = "not a WordPress export: its root element is <{tag}>, not <rss>"

_NAMESPACES = {
    "http://purl.org/rss/1.0/modules/content/": "content",
    "http://purl.org/dc/elements/1.1/": "dc",
}
# WordPress numbers its export namespace by version: 1.0, 1.1, 1.2 so far.
_WP_NAMESPACE = re.compile(r"http://wordpress\.org/export/\d+(?:\.\d+)*/")
_EXCERPT_NAMESPACE = re.compile(r"http://wordpress\.org/export/\d+(?:\.\d+)*/excerpt/")

# What the export writes for a time it does not have (drafts, some old comments).
ZERO_DATE = "0000-00-00 00:00:00"
_DATE_FORMAT = "%Y-%m-%d %H:%M:%S"


class BadExport(ValueError):
    """The file cannot be read as a WordPress export; the message names the line."""

    def __init__(self, message: str, *, line: int):
        super().__init__(message)
        self.line = line


# --- What the file holds ---------------------------------------------------------------


@dataclass(frozen=True)
class WxrComment:
    """One `wp:comment` as the export has it (times already as datetimes)."""

    id: str
    parent_id: str | None
    author_name: str
    author_email: str
    author_url: str
    ip: str
    date_gmt: datetime | None
    date_local: datetime | None
    content: str
    approved: str
    type: str
    line: int


@dataclass(frozen=True)
class WxrItem:
    """One `<item>`: a post (or page, attachment, ...) and its comments."""

    line: int
    post_id: str
    post_type: str
    title: str
    post_name: str
    status: str
    content: str
    excerpt: str
    creator: str
    creator_name: str
    date_gmt: datetime | None
    date_local: datetime | None
    tags: tuple[str, ...]
    categories: tuple[str, ...]
    comments: tuple[WxrComment, ...] = field(default=())


def parse_date(value: str) -> datetime | None:
    """A WXR time ("2024-03-05 14:02:11") as a naive datetime; None when it is the
    export's zero date, empty, or not a time at all."""
    value = value.strip()
    if not value or value == ZERO_DATE:
        return None
    try:
        return datetime.strptime(value, _DATE_FORMAT)
    except ValueError:
        return None


# --- Streaming the file ------------------------------------------------------------------


class _Node:
    """An element of an item being read: its name, attributes, text and children."""

    __slots__ = ("name", "attrs", "text", "children", "line")

    def __init__(self, name: str, attrs: dict, line: int):
        self.name, self.attrs, self.line = name, attrs, line
        self.text: list[str] = []
        self.children: list[_Node] = []

    def value(self) -> str:
        return "".join(self.text)

    def child(self, name: str) -> _Node | None:
        return next((c for c in self.children if c.name == name), None)

    def find(self, name: str) -> str:
        """The text of the first child called `name`, or "" without one."""
        found = self.child(name)
        return found.value() if found is not None else ""


def _name(expat_name: str) -> str:
    """expat's "namespace local" as "prefix:local" with the prefixes WXR uses, so the
    code reads like the format's documentation whatever prefixes the file chose."""
    uri, _, local = expat_name.rpartition(" ")
    if not uri:
        return local
    if uri in _NAMESPACES:
        return f"{_NAMESPACES[uri]}:{local}"
    if _EXCERPT_NAMESPACE.fullmatch(uri):
        return f"excerpt:{local}"
    if _WP_NAMESPACE.fullmatch(uri):
        return f"wp:{local}"
    return f"{{{uri}}}{local}"


class _Reader:
    """expat, refusing entities, handing out each `<item>` (and channel `wp:author`)
    as a small tree once its end tag is read."""

    CAPTURED = ("item", "wp:author")

    def __init__(self):
        parser = expat.ParserCreate(namespace_separator=" ")
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        parser.buffer_text = True
        parser.StartDoctypeDeclHandler = self._doctype
        parser.EntityDeclHandler = self._entity
        parser.UnparsedEntityDeclHandler = self._unparsed_entity
        parser.ExternalEntityRefHandler = self._external_entity
        parser.StartElementHandler = self._start
        parser.EndElementHandler = self._end
        parser.CharacterDataHandler = self._text
        self.parser = parser
        self.done: list[_Node] = []
        self._stack: list[_Node | None] = []
        self._root_seen = False

    def _refuse(self, reason: str):
        raise BadExport(BAD_XML.format(line=self.parser.CurrentLineNumber, reason=reason),
                        line=self.parser.CurrentLineNumber)

    def _doctype(self, name, system_id, public_id, has_internal_subset):
        if system_id or public_id:
            self._refuse(EXTERNAL_DTD_REFUSED.format(system_id=system_id or public_id))

    def _entity(self, name, is_parameter, value, base, system_id, public_id, notation):
        self._refuse(ENTITY_REFUSED.format(name=name))

    def _unparsed_entity(self, name, base, system_id, public_id, notation):
        self._refuse(ENTITY_REFUSED.format(name=name))

    def _external_entity(self, context, base, system_id, public_id):
        self._refuse(EXTERNAL_DTD_REFUSED.format(system_id=system_id or public_id))

    def _start(self, expat_name, attrs):
        name = _name(expat_name)
        if not self._root_seen:
            self._root_seen = True
            if name != "rss":
                self._refuse(NOT_WXR.format(tag=name))
        parent = self._stack[-1] if self._stack else None
        if parent is None and name not in self.CAPTURED:
            self._stack.append(None)
            return
        node = _Node(name, {_name(k): v for k, v in attrs.items()}, self.parser.CurrentLineNumber)
        if parent is not None:
            parent.children.append(node)
        self._stack.append(node)

    def _end(self, expat_name):
        node = self._stack.pop()
        if node is not None and (not self._stack or self._stack[-1] is None):
            self.done.append(node)

    def _text(self, data):
        node = self._stack[-1] if self._stack else None
        if node is not None:
            node.text.append(data)

    def feed(self, data: bytes, *, final: bool = False) -> list[_Node]:
        """Parse `data`; the captured elements it completed. BadExport on bad XML,
        after handing out (in `self.done`) those completed before the fault."""
        try:
            self.parser.Parse(data, final)
        except expat.ExpatError as exc:
            reason = expat.errors.messages.get(exc.code, str(exc))
            raise BadExport(BAD_XML.format(line=exc.lineno, reason=reason), line=exc.lineno) from None
        done, self.done = self.done, []
        return done


def _nodes(stream: BinaryIO) -> Iterator[_Node]:
    """Every captured element of the file, in order, each handed out once complete."""
    reader = _Reader()
    while True:
        chunk = stream.read(CHUNK_BYTES)
        try:
            done = reader.feed(chunk, final=not chunk)
        except BadExport:
            yield from reader.done
            raise
        yield from done
        if not chunk:
            return


def iter_items(stream: BinaryIO) -> Iterator[WxrItem]:
    """The export's items in file order, each with its comments; the author names
    come from the channel's `wp:author` list (the login when it has none)."""
    names: dict[str, str] = {}
    for node in _nodes(stream):
        if node.name == "wp:author":
            login = node.find("wp:author_login").strip()
            if login:
                names[login] = node.find("wp:author_display_name").strip() or login
            continue
        item = _item(node, names)
        node.children.clear()
        yield item


def _item(node: _Node, names: dict[str, str]) -> WxrItem:
    categories = [c for c in node.children if c.name == "category"]
    creator = node.find("dc:creator").strip()
    return WxrItem(
        line=node.line,
        post_id=node.find("wp:post_id").strip(),
        post_type=node.find("wp:post_type").strip(),
        title=node.find("title").strip(),
        post_name=node.find("wp:post_name").strip(),
        status=node.find("wp:status").strip(),
        content=node.find("content:encoded"),
        excerpt=node.find("excerpt:encoded"),
        creator=creator,
        creator_name=names.get(creator, creator),
        date_gmt=parse_date(node.find("wp:post_date_gmt")),
        date_local=parse_date(node.find("wp:post_date")),
        tags=tuple(c.value().strip() for c in categories if c.attrs.get("domain") == "post_tag"),
        categories=tuple(
            c.value().strip() for c in categories
            if c.attrs.get("domain") == "category" and c.attrs.get("nicename") != "uncategorized"
        ),
        comments=tuple(_comment(c) for c in node.children if c.name == "wp:comment"),
    )


def _comment(node: _Node) -> WxrComment:
    parent = node.find("wp:comment_parent").strip()
    return WxrComment(
        id=node.find("wp:comment_id").strip(),
        parent_id=parent if parent and parent != "0" else None,
        author_name=node.find("wp:comment_author").strip(),
        author_email=node.find("wp:comment_author_email").strip(),
        author_url=node.find("wp:comment_author_url").strip(),
        ip=node.find("wp:comment_author_IP").strip(),
        date_gmt=parse_date(node.find("wp:comment_date_gmt")),
        date_local=parse_date(node.find("wp:comment_date")),
        content=node.find("wp:comment_content"),
        approved=node.find("wp:comment_approved").strip(),
        type=node.find("wp:comment_type").strip(),
        line=node.line,
    )
