"""WordPress's export (WXR) in: its posts with their comments, or only the comments
onto posts already here (`import_comments --format wordpress`).

WXR is RSS 2.0 with WordPress's own namespace: the channel names the site
(`wp:base_site_url`) and lists its authors (`wp:author`), then has one `<item>` per
post, page, attachment and so on, each holding its fields (`wp:post_type`,
`wp:post_name`, `wp:status`, `content:encoded`, `dc:creator`,
`<category domain="post_tag|category">`) and its comments (`wp:comment`: id, author,
e-mail, URL, IP, `date_gmt`, content, `approved`, parent, type).

The file is streamed through the import engine's XML reader (comments/import_files.py
`read_xml`): one item at a time, each dropped once handed on, so memory is that of
the largest post with its comments, not of the file; no entity is ever resolved (a
file that declares one, or names an external DTD, is refused). Each item's comments
are handed to the engine together once the item is read, so a malformed file stops
with its line and reason, having written only whole posts.

What is imported, and why:
- Only items of type `post`. Pages are a site's fixed pages (about, contact):
  Slugline has no such thing, and as posts they would join the front page, the
  feeds and the sitemap. Attachments, menu items and revisions are not content.
  Every item left out is counted by type.
- A post keeps its slug (`wp:post_name`, made URL-safe when it is not; a post
  already here with that slug is the same post, so it is never created twice), its
  status (published, scheduled, else a draft; trashed posts are left out), times,
  tags (WordPress tags and categories, not its default "Uncategorized"), excerpt and
  author (found by login among Slugline's authors, else created from the export's
  author list: a profile without a password or dashboard access).
- A post's body becomes Markdown (`html_to_markdown`), since the body is what its
  author edits next; what Markdown cannot say (tables, figures) stays HTML, which
  the post renderer sanitises like any HTML in a post.
- Comments go through the engine: statuses 1/0/spam/trash become
  approved/pending/spam/deleted; pingbacks and trackbacks are skipped and counted;
  times are UTC from `date_gmt`, or, where the export has the zero date there, the
  local `date` moved by the post's own offset from UTC (reported).
"""

from __future__ import annotations

import html as html_lib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from typing import BinaryIO, TextIO
from urllib.parse import unquote, urlsplit
from xml.etree.ElementTree import Element

from bson import ObjectId
from django.contrib.auth import get_user_model

from cms import authors, posts
from cms.comments_host import IMPORT_AUTHOR
from cms.posts import EXCERPT_MAX_LENGTH, MAX_TAGS, SLUG_MAX_LENGTH, TAG_MAX_LENGTH, TAG_PUNCTUATION, is_tag
from cms.slugs import FALLBACK as FALLBACK_SLUG
from cms.slugs import slug_from_title
from comments import import_files, import_records, importing, names
from comments.records import APPROVED, DELETED, PENDING, SPAM
from infra.html_text import html_text
from infra.markup import NESTING_LIMIT

SOURCE = "wordpress"
# What the export writes for a time it does not have (drafts, some old comments).
ZERO_DATE = "0000-00-00 00:00:00"
_DATE_FORMAT = "%Y-%m-%d %H:%M:%S"

_NAMESPACES = {
    "http://purl.org/rss/1.0/modules/content/": "content",
    "http://purl.org/dc/elements/1.1/": "dc",
}
# WordPress numbers its export namespace by version: 1.0, 1.1, 1.2 so far.
_WP_NAMESPACE = re.compile(r"http://wordpress\.org/export/\d+(?:\.\d+)*/")
_EXCERPT_NAMESPACE = re.compile(r"http://wordpress\.org/export/\d+(?:\.\d+)*/excerpt/")

# `wp:comment_approved` to our statuses ("post-trashed": its post was trashed).
STATUSES = {
    "1": APPROVED,
    "approve": APPROVED,
    "0": PENDING,
    "hold": PENDING,
    "spam": SPAM,
    "trash": DELETED,
    "post-trashed": DELETED,
}
# `wp:status` of a post to ours; anything else (pending review, private) is a draft.
POST_STATUSES = {"publish": posts.PUBLISHED, "future": posts.SCHEDULED}
SKIPPED_POST_STATUSES = ("trash", "auto-draft")
LINKBACKS = {"pingback": "pingbacks", "trackback": "trackbacks"}
COMMENT_TYPES = ("", "comment")

NO_ID = "no wp:comment_id"
NO_DATE = "no date"
UNKNOWN_TYPE = "comment type {type!r}"
UNKNOWN_APPROVAL = "unknown wp:comment_approved {value!r}"
ITEM_SKIPPED = "{type} items"
TRASHED = "posts in the trash"
LOCAL_TIME = "{what} (line {line}): no GMT time; its local time {local} was taken {how}"
BY_OFFSET = "with its post's offset from UTC ({offset})"
AS_UTC = "as UTC (its post gives no offset)"
SLUG_MADE = "post {id} (line {line}): slug {slug!r} made from {source!r}"
TAGS_DROPPED = "post {slug!r}: tags left out ({reason}): {tags}"
AUTHOR_CREATED = "author {username!r} created (no password, no dashboard access)"
AUTHOR_TAKEN = (
    "author {login!r}: that username and wp-{login} are readers' accounts; posts signed as imported"
)
NOTES_SHOWN = 20
MORE_NOTES = "... and {more} more {kind}"
NO_POSTS = "The file held no WordPress items: is it a WordPress export (WXR)?"


# --- What the file holds ---------------------------------------------------------------


@dataclass(frozen=True)
class WxrComment:
    """One `wp:comment` as the export has it (times as naive datetimes)."""

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
    line: int = 0
    user_id: str = ""  # the WordPress user who wrote it ("0" or "": a visitor)


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
    tags: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    comments: tuple[WxrComment, ...] = field(default=())

    @property
    def utc_offset(self) -> timedelta | None:
        """The site's offset from UTC when the post was written, if both times say it."""
        if self.date_gmt is None or self.date_local is None:
            return None
        return self.date_local - self.date_gmt


@dataclass
class Channel:
    """What the export says of the site before its items."""

    site: str = ""
    authors: dict[str, str] = field(default_factory=dict)  # login -> display name
    author_ids: dict[str, str] = field(default_factory=dict)  # WordPress user id -> display name


def parse_date(value: str) -> datetime | None:
    """A WXR time ("2024-03-05 14:02:11") as a naive datetime; None for the export's
    zero date, for nothing, and for what is not a time."""
    value = value.strip()
    if not value or value == ZERO_DATE:
        return None
    try:
        return datetime.strptime(value, _DATE_FORMAT)
    except ValueError:
        return None


# --- Reading the file ------------------------------------------------------------------


def _key(name: str) -> str:
    """ElementTree's "{uri}local" as "prefix:local" with the prefixes WXR uses, so the
    code reads like the format's description whatever prefixes a file chose."""
    if not name.startswith("{"):
        return name
    uri, _, local = name[1:].partition("}")
    if uri in _NAMESPACES:
        return f"{_NAMESPACES[uri]}:{local}"
    if _EXCERPT_NAMESPACE.fullmatch(uri):
        return f"excerpt:{local}"
    if _WP_NAMESPACE.fullmatch(uri):
        return f"wp:{local}"
    return name


def _fields(element: Element) -> dict[str, str]:
    """The text of each child of `element` by its key (the first of each name)."""
    found: dict[str, str] = {}
    for child in element:
        found.setdefault(_key(child.tag), child.text or "")
    return found


def iter_items(stream: BinaryIO, channel: Channel | None = None) -> Iterator[WxrItem]:
    """The export's items in file order, each with its comments. `channel` (if given)
    is filled in with the site and its authors as they are read, which is before the
    items in an export; an item's author name comes from that list."""
    channel = channel if channel is not None else Channel()
    for line, element in import_files.read_xml(stream, tags=("item", "author", "base_site_url")):
        key = _key(element.tag)
        if key == "wp:base_site_url":
            channel.site = (element.text or "").strip()
        elif key == "wp:author":
            found = _fields(element)
            login = found.get("wp:author_login", "").strip()
            if login:
                channel.authors[login] = found.get("wp:author_display_name", "").strip() or login
                if found.get("wp:author_id", "").strip():
                    channel.author_ids[found["wp:author_id"].strip()] = channel.authors[login]
        elif key == "item":
            yield _item(line, element, channel.authors)
        element.clear()


def _item(line: int, element: Element, names: dict[str, str]) -> WxrItem:
    found = _fields(element)
    categories = [c for c in element if c.tag == "category"]
    creator = found.get("dc:creator", "").strip()
    terms = [(c.get("domain"), c.get("nicename"), (c.text or "").strip()) for c in categories]
    return WxrItem(
        line=line,
        post_id=found.get("wp:post_id", "").strip(),
        post_type=found.get("wp:post_type", "").strip(),
        title=found.get("title", "").strip(),
        post_name=found.get("wp:post_name", "").strip(),
        status=found.get("wp:status", "").strip(),
        content=found.get("content:encoded", ""),
        excerpt=found.get("excerpt:encoded", ""),
        creator=creator,
        creator_name=names.get(creator, creator),
        date_gmt=parse_date(found.get("wp:post_date_gmt", "")),
        date_local=parse_date(found.get("wp:post_date", "")),
        tags=tuple(name for domain, _, name in terms if domain == "post_tag" and name),
        # WordPress files every post without a category under "Uncategorized".
        categories=tuple(
            name for domain, slug, name in terms if domain == "category" and slug != "uncategorized" and name
        ),
        comments=tuple(_comment(line, c) for c in element if _key(c.tag) == "wp:comment"),
    )


def _comment(item_line: int, element: Element) -> WxrComment:
    found = _fields(element)
    parent = found.get("wp:comment_parent", "").strip()
    return WxrComment(
        id=found.get("wp:comment_id", "").strip(),
        parent_id=parent if parent and parent != "0" else None,
        author_name=found.get("wp:comment_author", "").strip(),
        author_email=found.get("wp:comment_author_email", "").strip(),
        author_url=found.get("wp:comment_author_url", "").strip(),
        ip=found.get("wp:comment_author_IP", "").strip(),
        date_gmt=parse_date(found.get("wp:comment_date_gmt", "")),
        date_local=parse_date(found.get("wp:comment_date", "")),
        content=found.get("wp:comment_content", ""),
        approved=found.get("wp:comment_approved", "").strip(),
        type=found.get("wp:comment_type", "").strip(),
        line=item_line,
        user_id=found.get("wp:comment_user_id", "").strip(),
    )


# --- Post bodies: WordPress HTML to Markdown -----------------------------------------------
# A post's body is what its author edits next, so it becomes Markdown where Markdown
# can say it (paragraphs, line breaks, emphasis, links, images, headings, lists, quotes,
# code) and stays HTML where it cannot (tables, figures, embeds): our post renderer
# keeps raw HTML and sanitises it, so nothing is lost and nothing unsafe gets through.

# Classic-editor posts are stored without <p>: WordPress adds them when it shows the
# post (wpautop). Block-editor posts carry their markup and these comments.
_BLOCK_EDITOR = "<!-- wp:"
_BLOCK_TAGS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "dd",
        "details",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    ]
)
_STARTS_WITH_BLOCK = re.compile(rf"\s*<(?:{'|'.join(sorted(_BLOCK_TAGS))})\b", re.IGNORECASE)
_BLANK_LINES = re.compile(r"\n[ \t]*\n")
_PRE = re.compile(r"<pre\b.*?</pre>", re.IGNORECASE | re.DOTALL)
# WordPress's own shortcodes around content: their tags go, what they wrap stays.
_SHORTCODE = re.compile(r"\[/?(?:caption|wp_caption|gallery|embed|audio|video|playlist)\b[^\]]*\]")
_VOID = frozenset(
    ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]
)
_DROPPED = frozenset(
    [
        "script",
        "style",
        "noscript",
        "template",
        "iframe",
        "object",
        "form",
        "input",
        "button",
        "select",
        "textarea",
    ]
)
_EMPHASIS = {"strong": "**", "b": "**", "em": "*", "i": "*"}
# Inline elements Markdown has no syntax for but our sanitiser keeps: kept as tags.
_INLINE_HTML = frozenset(["sup", "sub", "del", "abbr"])
# Block elements kept whole as HTML (an HTML block: it must hold no blank line).
_RAW_BLOCKS = frozenset(["table", "figure", "dl", "details"])
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>&|])")
# What would start a heading, list or rule at the start of a line: escaped there.
_LINE_START_SPECIAL = re.compile(r"^(\d*)([#+=.)-])", re.MULTILINE)
_EDGE_BREAKS = re.compile(r"^(?:\\\n)+|(?:\\\n)+$")


def autop(html: str) -> str:
    """What WordPress's wpautop does to a classic post or a comment, in short: blank
    lines separate paragraphs, a single line break is a <br>; blocks that already are
    HTML blocks, and <pre> contents, are left as they are."""
    kept: list[str] = []

    def keep(match: re.Match) -> str:
        kept.append(match.group(0))
        return f"\x00{len(kept) - 1}\x00"

    text = _PRE.sub(keep, html.replace("\r\n", "\n").replace("\r", "\n"))
    blocks = []
    for chunk in _BLANK_LINES.split(text.strip()):
        if not chunk.strip():
            continue
        if _STARTS_WITH_BLOCK.match(chunk) or re.fullmatch(r"\s*\x00\d+\x00\s*", chunk):
            blocks.append(chunk.strip())
        else:
            blocks.append("<p>" + chunk.strip().replace("\n", "<br>\n") + "</p>")
    return re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], "\n\n".join(blocks))


class _Element:
    __slots__ = ("attrs", "children", "tag")

    def __init__(self, tag: str, attrs: dict[str, str]):
        self.tag, self.attrs = tag, attrs
        self.children: list[_Element | str] = []


class _Tree(HTMLParser):
    """HTML as a tree of _Element and text, forgiving as browsers are about end tags.
    Elements nested deeper than the post renderer shows (NESTING_LIMIT) are dropped,
    their text kept: the tree is walked recursively, so it must stay shallow."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = _Element("", {})
        self._open = [self.root]

    def handle_starttag(self, tag, attrs):
        element = _Element(tag, {k: v or "" for k, v in attrs})
        if tag in ("p", "li") and self._open[-1].tag == tag:
            self._open.pop()
        if len(self._open) > NESTING_LIMIT:
            return
        self._open[-1].children.append(element)
        if tag not in _VOID:
            self._open.append(element)

    def handle_startendtag(self, tag, attrs):
        if len(self._open) <= NESTING_LIMIT:
            self._open[-1].children.append(_Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag):
        for depth in range(len(self._open) - 1, 0, -1):
            if self._open[depth].tag == tag:
                del self._open[depth:]
                return

    def handle_data(self, data):
        self._open[-1].children.append(data)


def html_to_markdown(html: str) -> str:
    """A WordPress post body as Markdown that renders as the post did."""
    html = _SHORTCODE.sub("", html)
    if _BLOCK_EDITOR not in html:
        html = autop(html)
    tree = _Tree()
    tree.feed(html)
    tree.close()
    return "\n\n".join(_blocks(tree.root.children)).strip() + "\n"


def _is_block(node) -> bool:
    return isinstance(node, _Element) and (node.tag in _BLOCK_TAGS or node.tag in _RAW_BLOCKS)


def _blocks(children) -> list[str]:
    """Markdown blocks for a run of nodes: inline runs become paragraphs."""
    blocks: list[str] = []
    run: list = []

    def close_run():
        text = _paragraph(run)
        if text:
            blocks.append(text)
        run.clear()

    for node in children:
        if _is_block(node):
            close_run()
            block = _block(node)
            if block:
                blocks.append(block)
        else:
            run.append(node)
    close_run()
    return blocks


def _paragraph(nodes) -> str:
    text = "".join(_inline(n) for n in nodes)
    text = "\n".join(line.strip(" ") for line in text.split("\n")).strip(" ")
    text = _EDGE_BREAKS.sub("", text).strip()
    return _LINE_START_SPECIAL.sub(_escape_line_start, text)


def _escape_line_start(match: re.Match) -> str:
    digits, mark = match.groups()
    if digits and mark not in ".)":
        return match.group(0)
    return f"{digits}\\{mark}"


def _block(node: _Element) -> str:
    tag = node.tag
    if tag in _RAW_BLOCKS:
        return _BLANK_LINES.sub("\n", _raw(node)).strip()
    if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
        text = " ".join(_paragraph(node.children).split())
        return f"{'#' * int(tag[1])} {text}" if text else ""
    if tag == "hr":
        return "* * *"
    if tag == "pre":
        code = _text(node).strip("\n")
        fence = "`" * max(3, _longest_run(code, "`") + 1)
        return f"{fence}\n{code}\n{fence}"
    if tag == "blockquote":
        inner = "\n\n".join(_blocks(node.children))
        return "\n".join(f"> {line}".rstrip() for line in inner.split("\n")) if inner else ""
    if tag in ("ul", "ol"):
        return _list(node)
    return "\n\n".join(_blocks(node.children))


def _list(node: _Element) -> str:
    items = []
    number = int(node.attrs.get("start") or 1) if node.attrs.get("start", "1").isdigit() else 1
    for child in node.children:
        if not isinstance(child, _Element):
            continue
        marker = f"{number}. " if node.tag == "ol" else "- "
        number += 1
        body = "\n\n".join(_blocks(child.children if child.tag == "li" else [child])) or ""
        indent = " " * len(marker)
        lines = body.split("\n")
        items.append(marker + lines[0] + "".join(f"\n{indent}{line}" if line else "\n" for line in lines[1:]))
    return "\n".join(items)


def _inline(node) -> str:
    if isinstance(node, str):
        return _MARKDOWN_SPECIAL.sub(r"\\\1", re.sub(r"\s+", " ", node))
    tag = node.tag
    if tag in _DROPPED:
        return ""
    if tag == "br":
        return "\\\n"
    if tag == "img":
        src = node.attrs.get("src", "")
        return f"![{_escape(node.attrs.get('alt', ''))}]({_destination(src)})" if src else ""
    inner = "".join(_inline(n) for n in node.children)
    if tag in _EMPHASIS:
        return _wrap(inner, _EMPHASIS[tag])
    if tag == "code":
        code = _text(node)
        fence = "`" * (_longest_run(code, "`") + 1)
        pad = " " if code.startswith("`") or code.endswith("`") else ""
        return f"{fence}{pad}{code}{pad}{fence}" if code else ""
    if tag == "a":
        href = node.attrs.get("href", "").strip()
        return f"[{inner}]({_destination(href)})" if href and inner.strip() else inner
    if tag in _INLINE_HTML:
        return f"<{tag}>{inner}</{tag}>" if inner else ""
    if _is_block(node):
        return "\n\n".join(_blocks([node]))
    return inner


def _wrap(inner: str, marker: str) -> str:
    """`inner` between emphasis markers, its outer spaces outside them (`** a**` is
    not emphasis in Markdown)."""
    core = inner.strip()
    if not core:
        return inner
    lead = inner[: len(inner) - len(inner.lstrip())]
    trail = inner[len(inner.rstrip()) :]
    return f"{lead}{marker}{core}{marker}{trail}"


def _escape(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _destination(url: str) -> str:
    url = url.strip()
    if re.search(r"[\s()<>]", url):
        return "<" + url.replace("<", "%3C").replace(">", "%3E") + ">"
    return url


def _longest_run(text: str, char: str) -> int:
    return max((len(m) for m in re.findall(f"{re.escape(char)}+", text)), default=0)


def _text(node) -> str:
    if isinstance(node, str):
        return node
    if node.tag == "br":
        return "\n"
    return "".join(_text(n) for n in node.children)


def _raw(node) -> str:
    """The element as HTML again (for what stays HTML)."""
    if isinstance(node, str):
        return html_lib.escape(node, quote=False)
    if node.tag in _DROPPED:
        return ""
    attrs = "".join(f' {k}="{html_lib.escape(v)}"' for k, v in node.attrs.items())
    if node.tag in _VOID:
        return f"<{node.tag}{attrs}>"
    return f"<{node.tag}{attrs}>{''.join(_raw(n) for n in node.children)}</{node.tag}>"


# --- Importing -------------------------------------------------------------------------


@dataclass
class Outcome:
    """A run's end summary: the engine's report and what this importer adds to it."""

    report: import_records.Report
    posts_created: int = 0
    posts_matched: int = 0
    items_skipped: Counter = field(default_factory=Counter)  # "page items" -> how many
    authors_created: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # How many notes of each kind there were; past NOTES_SHOWN of a kind, only counted.
    noted: Counter = field(default_factory=Counter)

    def note(self, kind: str, text: str) -> None:
        """Something the operator should know; a big export's thousands of notes of one
        kind are counted rather than all kept and printed."""
        self.noted[kind] += 1
        if self.noted[kind] <= NOTES_SHOWN:
            self.notes.append(text)

    def lines(self) -> list[str]:
        would = "would be " if self.report.dry_run else ""
        out = [f"Posts: {self.posts_created} {would}created, {self.posts_matched} already here."]
        out += [f"  skipped: {n} {what}" for what, n in sorted(self.items_skipped.items())]
        out += [f"  {AUTHOR_CREATED.format(username=name)}" for name in self.authors_created]
        out += [f"  {note}" for note in self.notes]
        out += [
            f"  {MORE_NOTES.format(more=n - NOTES_SHOWN, kind=kind)}"
            for kind, n in self.noted.items()
            if n > NOTES_SHOWN
        ]
        return out + self.report.lines()


def source_name(site: str) -> str:
    """The namespace of a site's comment ids: WordPress numbers comments per site, so
    two blogs' comment 7 must not be taken for one ("wordpress@notes.example.org").
    No colon: the engine's ledger keys are "<source>:<id>", read up to the first one."""
    host = (urlsplit(site).hostname or "").removeprefix("www.")
    host = re.sub(r"[^a-z0-9.-]+", "-", host)
    return f"{SOURCE}@{host}" if host else SOURCE


def post_slug(item: WxrItem) -> tuple[str, str | None]:
    """The slug a WordPress post has here, and what it was made from when that is not
    its `wp:post_name` as it stands (None then). A name that is already a slug as we
    make them (Devanagari as written, even percent-encoded) is kept; one with accents
    on Latin letters or characters our addresses do not take is made a slug; a post
    without a name (a draft) gets one from its title and WordPress id."""
    name = unicodedata.normalize("NFC", unquote(item.post_name))
    made = slug_from_title(name, limit=SLUG_MAX_LENGTH) if name.strip() else ""
    if name and made == name:  # already one of our slugs (Latin in ASCII, other scripts as written)
        return name, None
    if made and made != FALLBACK_SLUG:
        return made, item.post_name
    base = slug_from_title(item.title, limit=SLUG_MAX_LENGTH - 12)
    return f"{base}-{re.sub(r'[^0-9a-zA-Z]', '', item.post_id) or 'x'}", item.post_name or item.title


def post_tags(item: WxrItem) -> tuple[tuple[str, ...], list[str]]:
    """The post's tags here (its tags, then its categories, once each in any case,
    made to fit the dashboard's rules), and the ones left out."""
    kept: list[str] = []
    left_out: list[str] = []
    for name in (*item.tags, *item.categories):
        tag = " ".join(
            "".join(ch if unicodedata.category(ch)[0] in "LNM" or ch in TAG_PUNCTUATION else " " for ch in name).split()
        )[:TAG_MAX_LENGTH].strip()
        if not is_tag(tag) or len(kept) >= MAX_TAGS:
            left_out.append(name)
        elif tag.casefold() not in {k.casefold() for k in kept}:
            kept.append(tag)
    return tuple(kept), left_out


def utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC)


def comment_time(comment: WxrComment, item: WxrItem) -> tuple[datetime | None, str | None]:
    """When the comment was posted (UTC), and a note when that came from its local
    time: `date_gmt` if the export has it, else the local `date` less the post's own
    offset from UTC, else the local date taken as UTC."""
    if comment.date_gmt is not None:
        return utc(comment.date_gmt), None
    if comment.date_local is None:
        return None, None
    offset = item.utc_offset
    how = AS_UTC if offset is None else BY_OFFSET.format(offset=_offset(offset))
    note = LOCAL_TIME.format(what=f"comment {comment.id}", line=item.line, local=comment.date_local, how=how)
    try:
        return utc(comment.date_local - (offset or timedelta(0))), note
    except OverflowError:  # the offset takes it past year 9999 or before year 1
        return None, None


def _offset(offset: timedelta) -> str:
    minutes = int(offset.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def source_comment(
    comment: WxrComment, item: WxrItem, *, source: str, thread: str, outcome: Outcome,
    author_ids: dict[str, str] | None = None,
) -> import_records.SourceComment | import_records.Refusal | str:
    """What the engine is handed for one `wp:comment`: a SourceComment, a Refusal, or
    the name of what it is when it is skipped on purpose (pingbacks, trackbacks).
    `author_ids`: the export's authors (WordPress user id -> display name); a comment
    one of them wrote under their own name keeps it (an author's name is refused
    otherwise: comments/commenters.py)."""
    if comment.type in LINKBACKS:
        return LINKBACKS[comment.type]
    if comment.type not in COMMENT_TYPES:
        return import_records.Refusal(UNKNOWN_TYPE.format(type=comment.type), line=item.line, id=comment.id)
    if not comment.id:
        return import_records.Refusal(NO_ID, line=item.line)
    if comment.approved not in STATUSES:
        return import_records.Refusal(
            UNKNOWN_APPROVAL.format(value=comment.approved), line=item.line, id=comment.id
        )
    posted, note = comment_time(comment, item)
    if posted is None and (comment.date_gmt or comment.date_local):
        return import_records.Refusal(import_records.TIME_OUT_OF_RANGE, line=item.line, id=comment.id)
    if posted is None:
        return import_records.Refusal(NO_DATE, line=item.line, id=comment.id)
    if import_records.utc_time(posted) is None:
        return import_records.Refusal(import_records.TIME_OUT_OF_RANGE, line=item.line, id=comment.id)
    if note:
        outcome.note("comments timed by their local time", note)
    return import_records.SourceComment(
        source=source,
        id=comment.id,
        thread=thread,
        parent=comment.parent_id,
        posted=posted,
        # WordPress stores comments as typed and adds paragraphs when it shows them (the
        # engine sanitises the HTML and keeps a body nested too deep as its text).
        html=autop(comment.content),
        status=STATUSES[comment.approved],
        author_name=comment.author_name,
        author_email=comment.author_email,
        author_url=comment.author_url,
        ip=comment.ip,
        line=item.line,
        by_source_author=_by_export_author(comment, author_ids or {}),
    )


def _by_export_author(comment: WxrComment, author_ids: dict[str, str]) -> bool:
    """Whether one of the export's authors wrote `comment` under their own name."""
    name = author_ids.get(comment.user_id) if comment.user_id not in ("", "0") else None
    return name is not None and names.words(comment.author_name) == names.words(name)


class WordPressImport:
    """One run over an export: posts created or matched, comments to the engine."""

    def __init__(
        self,
        *,
        dry_run: bool,
        comments_only: bool,
        create_missing: bool,
        batch_size: int = importing.BATCH_SIZE,
        trust_names: bool = False,
    ):
        self.dry_run, self.comments_only, self.create_missing = dry_run, comments_only, create_missing
        self.batch_size = batch_size
        self.trust_names = trust_names
        self.channel = Channel()
        self.importer: importing.Importer | None = None
        self.outcome: Outcome | None = None
        self.slugs: dict[str, str] = {}  # slug -> the WordPress post id it came from
        self.authors: dict[str, posts.AuthorSummary] = {}

    def engine(self) -> importing.Importer:
        """The engine, made at the first item (the site's name comes before it)."""
        if self.importer is None:
            self.importer = importing.Importer(
                source=source_name(self.channel.site), dry_run=self.dry_run, batch_size=self.batch_size,
                trust_names=self.trust_names,
            )
            self.outcome = Outcome(report=self.importer.report)
        return self.importer

    def read(self, stream: BinaryIO) -> Outcome:
        try:
            for item in iter_items(stream, self.channel):
                self.take(item)
        except import_records.BadSource:
            if self.importer is not None:
                self.importer.finish(complete=False)
            raise
        engine = self.engine()
        engine.finish()
        if not (
            self.outcome.posts_created
            or self.outcome.posts_matched
            or self.outcome.items_skipped
            or engine.report.threads_skipped
        ):
            self.outcome.note("warnings", NO_POSTS)
        return self.outcome

    def take(self, item: WxrItem) -> None:
        """One item: its post found or made, then all its comments handed to the engine,
        which writes them in batches. Items are handed over whole, so a fault later in
        the file (the engine then writes what it was given) leaves only whole posts."""
        engine, outcome = self.engine(), self.outcome
        if item.post_type != "post" or item.status in SKIPPED_POST_STATUSES:
            what = (
                TRASHED if item.status == "trash" else ITEM_SKIPPED.format(type=item.post_type or "untyped")
            )
            outcome.items_skipped[what] += 1
            for _ in item.comments:
                engine.skip(f"on {what}")
            return
        slug = self._slug(item)
        thread = import_records.SourceThread(
            source=engine.source, key=item.post_id or slug, line=item.line, slug=slug, title=item.title
        )
        post = posts.get_by_slug(slug)
        created = False
        if post is not None:
            outcome.posts_matched += 1
        elif not self.comments_only or self.create_missing:
            post, created = self._create(item, slug), True
            outcome.posts_created += 1
        engine.add_thread(thread, post_id=post.id if post else None, created=created)
        for comment in item.comments:
            handed = source_comment(comment, item, source=engine.source, thread=thread.key, outcome=outcome,
                                    author_ids=self.channel.author_ids)
            if isinstance(handed, str):
                engine.skip(handed)
            else:
                engine.add(handed)

    def _slug(self, item: WxrItem) -> str:
        slug, made_from = post_slug(item)
        if self.slugs.setdefault(slug, item.post_id) != item.post_id:
            made_from, slug = slug, f"{slug[: SLUG_MAX_LENGTH - 12]}-{item.post_id}"
        if made_from is not None:
            self.outcome.note(
                "slugs made", SLUG_MADE.format(id=item.post_id, line=item.line, slug=slug, source=made_from)
            )
        return slug

    def _create(self, item: WxrItem, slug: str) -> posts.Post:
        status = POST_STATUSES.get(item.status, posts.DRAFT)
        when = utc(item.date_gmt) if item.date_gmt else (utc(item.date_local) if item.date_local else None)
        tags, left_out = post_tags(item)
        if left_out:
            self.outcome.note(
                "posts with tags left out",
                TAGS_DROPPED.format(
                    slug=slug,
                    reason=f"at most {MAX_TAGS}, letters, digits, spaces and .+#-",
                    tags=", ".join(left_out),
                ),
            )
        fields = {
            "title": item.title or slug,
            "slug": slug,
            "content": html_to_markdown(item.content),
            "author": self._author(item),
            "tags": tags,
            "status": status,
            "created": when,
            "published": when if status != posts.DRAFT else None,
            "excerpt": posts.shorten(html_text(item.excerpt), limit=EXCERPT_MAX_LENGTH),
        }
        if self.dry_run:
            return posts.Post(
                id=ObjectId(),
                content_html="",
                created=when or datetime.now(UTC),
                **{k: v for k, v in fields.items() if k not in ("created", "tags")},
            )
        return posts.create_post(**fields)

    def _author(self, item: WxrItem) -> posts.AuthorSummary:
        """The post's author here, by login: the Slugline author with that username,
        else one made from the export's author list (not staff, no password: an editor
        may give them access later). A reader's account is never made an author: when
        the login is a reader's, the author is `wp-<login>`. The engine's import
        author when the item names none."""
        login = re.sub(r"[^\w.@+-]+", "-", item.creator).strip("-")[:140]
        if not login:
            return IMPORT_AUTHOR
        if login not in self.authors:
            self.authors[login] = self._find_or_create_author(login, item.creator_name or login)
            names.forget()  # their name is reserved for the comments that follow
        return self.authors[login]

    def _find_or_create_author(self, login: str, name: str) -> posts.AuthorSummary:
        for username in (login, f"wp-{login}"):
            user = authors.find_author(username=username)
            if user is not None:
                return authors.summary_for(user)
            if not get_user_model().objects.filter(username=username).exists():
                break
        else:
            self.outcome.note("warnings", AUTHOR_TAKEN.format(login=login))
            return IMPORT_AUTHOR
        self.outcome.authors_created.append(username)
        if self.dry_run:
            return posts.AuthorSummary(id=0, username=username, name=name)
        return authors.summary_for(
            authors.create_author(username=username, display_name=name, is_staff=False)
        )


def run(
    *,
    path: str,
    dry_run: bool = False,
    comments_only: bool = False,
    create_missing: bool = False,
    stdout: TextIO | None = None,
    progress: bool = True,
    batch_size: int = importing.BATCH_SIZE,
    trust_names: bool = False,
) -> Outcome:
    """`import_comments --format wordpress PATH`: import the export's posts with their
    comments (or, `comments_only`, only comments onto the posts here with the same
    slugs, creating the missing posts with `create_missing`), with a progress bar of
    the file read, then write the end summary to `stdout`. import_records.BadSource for a
    malformed file, after writing the whole posts before the fault. Commenters' names
    and addresses are cleaned as the comment form's (an author's name refused unless
    `trust_names`: comments/commenters.py)."""
    job = WordPressImport(
        dry_run=dry_run, comments_only=comments_only, create_missing=create_missing, batch_size=batch_size,
        trust_names=trust_names,
    )
    with import_files.open_source(path, progress=progress) as stream:
        outcome = job.read(stream)
    if stdout is not None:
        for line in outcome.lines():
            stdout.write(line + "\n")
    return outcome
