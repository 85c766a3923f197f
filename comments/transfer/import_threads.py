"""Which discussion a source's thread goes to: an operator's `--map` file, the slug or
link the thread names, or a draft made for it (`--create-missing`), through the host
(comments/host.py). Used by the importer (comments/transfer/importing.py) and the parsers."""

from __future__ import annotations

import csv
import re
import unicodedata
from urllib.parse import unquote, urlsplit

from infra.folding import unaccent
from comments.host import Discussion, get_host
from comments.transfer.import_records import SourceThread

BAD_MAP_ROW = "{path}, line {line}: a mapping row is 'thread link or id,post slug'"
POST_SLUG = re.compile(r"^/posts/(?P<slug>[^/]+)/?$")


def read_mapping(path: str) -> dict[str, str]:
    """A `--map` CSV file: each row a thread's link or id, then a post slug."""
    mapping = {}
    with open(path, encoding="utf-8", newline="") as rows:
        for number, row in enumerate(csv.reader(rows), start=1):
            if not row or not "".join(row).strip():
                continue
            if len(row) != 2 or not row[0].strip() or not row[1].strip():
                raise ValueError(BAD_MAP_ROW.format(path=path, line=number))
            mapping[row[0].strip()] = row[1].strip().strip("/")
    return mapping


def link_path(link: str) -> str:
    """The path of a link as a reader reads it: percent-decoded (browsers and Disqus
    record `/posts/%E0%A4%B8…/` for `/posts/स…/`), in NFC."""
    return unicodedata.normalize("NFC", unquote(urlsplit(link.strip()).path)) if link else ""


def link_slug(link: str) -> str | None:
    """The post slug in a link to one of this site's posts (`/posts/<slug>/`)."""
    found = POST_SLUG.match(link_path(link)) if link else None
    return found["slug"] if found else None


def as_slug(text: str, *, limit: int = 80) -> str:
    """`text` as a post slug: lower case, Latin letters without diacritics, other
    scripts kept with their marks (Devanagari, ...), anything else a single hyphen;
    at most `limit` characters, never cutting a letter from its marks. "" if nothing
    is left."""
    kept = "".join(ch if unicodedata.category(ch)[0] in "LNM" else " "
                   for ch in unicodedata.normalize("NFC", unaccent(text).lower()))
    slug = "-".join(kept.split())
    while slug and unicodedata.category(slug[0])[0] == "M":
        slug = slug[1:]
    if len(slug) > limit:
        end = limit
        while end > 0 and unicodedata.category(slug[end])[0] == "M":
            end -= 1
        slug = slug[:end]
    return slug.strip("-")


def draft_slug(thread: SourceThread) -> str:
    """The slug of the draft made for a thread no post matches: its link's last path
    segment (percent-decoded, without a file extension), else its identifier or
    title, as a slug in any script; else `imported-<key>`."""
    for candidate in (link_slug(thread.link), thread.slug,
                      re.sub(r"\.[A-Za-z0-9]+$", "", link_path(thread.link).rstrip("/").rpartition("/")[2]),
                      thread.identifier, thread.title):
        if slug := as_slug(candidate or ""):
            return slug
    return f"imported-{as_slug(thread.key) or 'thread'}"


def match_post(thread: SourceThread, *, mapping: dict[str, str] | None = None) -> Discussion | None:
    """The post a thread belongs to: by the mapping (its link or its ids), by the
    slug it names, by its link's path (`/posts/<slug>/`), by its identifier taken as
    a slug, or by the slug a draft for it would have (one an earlier run created)."""
    mapping = mapping or {}
    for key in (thread.link, unquote(thread.link), thread.identifier, thread.key):
        if key and key in mapping:
            return get_host().get_by_slug(unicodedata.normalize("NFC", unquote(mapping[key])))
    for slug in (thread.slug, link_slug(thread.link), thread.identifier, draft_slug(thread)):
        if slug and (post := get_host().get_by_slug(slug)) is not None:
            return post
    return None


def create_draft(thread: SourceThread, *, dry_run: bool = False) -> Discussion:
    """A draft discussion (the host's: a draft post) for a thread nothing matches
    (`--create-missing`), titled as the thread; not stored on a dry run."""
    title, slug = thread.title.strip() or draft_slug(thread), draft_slug(thread)
    return get_host().create_draft(title=title, slug=slug, dry_run=dry_run)
