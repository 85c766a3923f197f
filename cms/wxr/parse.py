"""Reading a WordPress export (WXR): its channel (site, authors) and its items, each
with its comments, streamed one item at a time (see the package's docstring)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import BinaryIO
from xml.etree.ElementTree import Element

from comments.api import XML_LINE, normalise_email, read_xml

# What the export writes for a time it does not have (drafts, some old comments).
ZERO_DATE = "0000-00-00 00:00:00"
_DATE_FORMAT = "%Y-%m-%d %H:%M:%S"

# Namespaces as WordPress writes them; an export may write any of them with https://
# (WordPress.com's do), which names the same namespace here.
_NAMESPACES = {
    "http://purl.org/rss/1.0/modules/content/": "content",
    "http://purl.org/dc/elements/1.1/": "dc",
}
# WordPress numbers its export namespace by version: 1.0, 1.1, 1.2 so far.
_WP_NAMESPACE = re.compile(r"http://wordpress\.org/export/\d+(?:\.\d+)*/")
_EXCERPT_NAMESPACE = re.compile(r"http://wordpress\.org/export/\d+(?:\.\d+)*/excerpt/")


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
    line: int = 0  # where its <wp:comment> starts in the file
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
    author_ids: dict[str, str] = field(default_factory=dict)  # WordPress user id -> login
    author_emails: dict[str, str] = field(default_factory=dict)  # e-mail address (normalised) -> login


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
    code reads like the format's description whatever prefixes a file chose, and
    whether it writes its namespaces with http:// or https://."""
    if not name.startswith("{"):
        return name
    uri, _, local = name[1:].partition("}")
    uri = "http://" + uri.removeprefix("https://") if uri.startswith("https://") else uri
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
    tags = ("item", "author", "base_site_url")
    for line, element in read_xml(stream, tags=tags, lines_of=("comment",)):
        key = _key(element.tag)
        if key == "wp:base_site_url":
            channel.site = (element.text or "").strip()
        elif key == "wp:author":
            found = _fields(element)
            login = found.get("wp:author_login", "").strip()
            if login:
                channel.authors[login] = found.get("wp:author_display_name", "").strip() or login
                if found.get("wp:author_id", "").strip():
                    channel.author_ids[found["wp:author_id"].strip()] = login
                if email := normalise_email(found.get("wp:author_email", "")):
                    channel.author_emails.setdefault(email, login)
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
        line=int(element.get(XML_LINE) or item_line),
        user_id=found.get("wp:comment_user_id", "").strip(),
    )

