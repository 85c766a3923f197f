"""Importing comments from other systems: the engine the Disqus importer
(comments/disqus.py) and the WordPress one (cms/wxr.py) share. A parser turns a
file into the records below; the engine matches threads to posts and writes comments
faithfully, once, into whichever comment store is in use.

The interface (stable; both importers build on it):

    importer = importing.Importer(source="disqus", dry_run=False)
    for item in parse(stream):                    # the source's parser
        if isinstance(item, importing.SourceThread):
            importer.match_thread(item, mapping=mapping, create_missing=create_missing)
            # (or importer.add_thread(item, post_id=...) when the source finds its posts)
        else:
            importer.add(item)                    # a SourceComment or a Refusal
        # optionally importer.flush() at the end of each thread of the source
    report = importer.finish()                    # a Report; print report.lines()

On a malformed file the parser raises BadSource (its message names the line and the
reason); the caller then calls `importer.finish(complete=False)`, which writes the
complete comments read before the error and leaves the replies still waiting for a
parent to the next run (nothing past the last complete element is written), and
re-raises. `read_xml(stream, tags=...)` is the streaming XML reader both parsers
use: it refuses entity declarations, external DTDs and external entities (nothing is
ever resolved) and hands out one small element at a time with its line.

What the engine guarantees:

- **Threading** as in the source: a reply goes under the parent it had (parents are
  written first; a reply read before its parent waits for it: in memory up to
  WAITING_LIMIT replies, beyond that in a scratch collection of the run's own,
  `comment_imports_waiting_<run>`, comments/import_waiting.py). One whose
  parent never comes, was refused, or is on another thread becomes top-level at the
  end and is reported as an orphan. A reply deeper than COMMENTS_MAX_DEPTH goes under
  the deepest allowed ancestor, as a posted reply would (reported).
- **Times** kept in UTC: `slug`/`full_slug` are built from the original time
  (comments/slugs.py), so the threaded and chronological orders are the original ones.
- **Statuses**: approved, pending, spam, deleted; a hidden comment with approved
  replies becomes a placeholder (comments/summaries.py `repair_placeholders`).
- **Bodies**: the source's HTML is sanitised with the site's comment allow-lists
  (infra/markup.py) and turned into Markdown (links, emphasis, paragraphs, code) as the
  comment's `text`, which edits well; `html` is `render_comment(text)`.
- **Moderation data**: author name, e-mail and IP are kept (`author.email`, `ip`);
  imported authors are anonymous commenters (`author.id` None). An author's web
  address (`author_url`) is not kept: comments have no field for it.
- **Every store**: comments are written as flat documents (`records.new_document`)
  through `get_store().insert_documents`, so each store keeps them its own way; post
  summaries are refreshed at the end (`summaries.refresh_summary`).
- **Once**: each comment stores `imported: {source, id}`, and its slug part is derived
  from that pair (`slugs.derived_part`), so a second copy of it is refused by the
  store's unique slug index whatever happens. The collection `comment_imports` (owned
  here) maps `"<source>:<id>"` (its `_id`: no extra index) to where the comment went:
  a second run skips what is there (counted as already imported) and finds the
  parents of late replies without scanning any store; a run stopped half-way is
  completed by the next. `dry_run` reads everything and writes nothing.

Memory stays bounded whatever the size of the file: the engine holds the thread map,
one batch, at most WAITING_LIMIT of the replies waiting for a parent (the others wait
in the scratch collection), a cache of recent comments (older parents are looked up in
`comment_imports`) and the first ORPHANS_SHOWN orphans it reports (the others are
counted); a dry run also keeps every source id it has seen, a few dozen bytes each,
since it has no ledger to look them up in. A dry run writes nothing but, past
WAITING_LIMIT waiting replies, the scratch collection, which it drops too.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import html as html_module
import os
import re
import unicodedata
import xml.parsers.expat
from collections import Counter, OrderedDict, deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import BinaryIO
from urllib.parse import unquote, urlsplit
from xml.etree.ElementTree import Element, TreeBuilder

import nh3
from bson import ObjectId
from markdownify import markdownify
from pymongo import UpdateOne
from tqdm import tqdm

from comments import commenters, conf, counters, slugs, summaries
from comments.folding import unaccent
from comments.host import Discussion, get_host
from comments.import_waiting import WaitingReplies
from comments.records import APPROVED, HIDDEN, STATUSES, CommentAuthor, new_document
from comments.stores import get_store
from infra import markup
from infra.markup import render_comment
from infra.mongo import get_db

BATCH_SIZE = 500
# Recent comments kept in memory as possible parents (a few hundred bytes each); older
# ones are looked up in the ledger.
KNOWN_LIMIT = 20_000
# Replies waiting for their parent kept in memory (whole, with their bodies); past it,
# they wait in a scratch collection of the run's own (comments/import_waiting.py).
WAITING_LIMIT = 2_000
# Orphans named one by one in the report; the others are counted.
ORPHANS_SHOWN = 100
XML_CHUNK = 64 * 1024
ANONYMOUS = "Anonymous"

# The formats `import_comments --format` reads besides JSON Lines: name -> the dotted
# path of a `run(*, path, dry_run, create_missing, progress, stdout, batch_size, ...)`,
# and the options only that format takes. A host adds its own (the blog: WordPress).
FORMATS: dict[str, tuple[str, tuple[str, ...]]] = {"disqus": ("comments.disqus.run", ("mapping_path",))}


def register_format(name: str, run: str, *, options: tuple[str, ...] = ()) -> None:
    """Let `import_comments --format name` call `run` (a dotted path, imported when used)."""
    FORMATS[name] = (run, options)


BAD_SOURCE = "Line {line}: {reason}"
ENTITY_REFUSED = "entity declarations are refused (entity {name!r}); nothing was resolved"
EXTERNAL_REFUSED = "external DTDs and entities are refused ({what}); nothing was fetched"
BAD_MAP_ROW = "{path}, line {line}: a mapping row is 'thread link or id,post slug'"
UNKNOWN_THREAD = "its thread {thread!r} is not in the file"
THREAD_SKIPPED = "its thread matched no post"
BAD_STATUS = "unknown status {status!r}"
NAIVE_TIME = "its time has no time zone"
TIME_OUT_OF_RANGE = "its time is out of range in UTC (years 1000 to 9999)"
SLUG_TAKEN = "another comment already has its slug"
ORPHAN = "{source} comment {id} (line {line}): its parent {parent} {why}; imported at the top level"
ORPHAN_MISSING = "is not in the file (or was refused)"
ORPHAN_ELSEWHERE = "is on another thread"
MORE_ORPHANS = "  ... and {count} more orphans"
POST_SLUG = re.compile(r"^/posts/(?P<slug>[^/]+)/?$")


class BadSource(ValueError):
    """The file cannot be read on; the message names the line and the reason."""

    def __init__(self, line: int, reason: str):
        super().__init__(BAD_SOURCE.format(line=line, reason=reason))
        self.line, self.reason = line, reason


# --- Records ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SourceThread:
    """A discussion of the source system: a Disqus thread, a WordPress post."""

    source: str  # "disqus", "wordpress": the namespace of its ids
    key: str  # the source's id of the thread, which its comments name
    line: int = 0
    link: str = ""  # its page's address, if the source has one
    identifier: str = ""  # Disqus' own identifier of the page
    slug: str = ""  # the post slug it names, if the source knows it (WordPress)
    title: str = ""

    def describe(self) -> str:
        return self.link or self.identifier or self.slug or f"{self.source} thread {self.key}"


@dataclass(frozen=True)
class SourceComment:
    """One comment of the source, as the engine writes it."""

    source: str
    id: str
    thread: str  # SourceThread.key
    parent: str | None  # the source id of the comment it replies to
    posted: datetime  # aware, any zone (stored in UTC)
    html: str  # the body as the source holds it (HTML)
    status: str = APPROVED  # one of comments.records.STATUSES
    author_name: str = ""
    author_email: str = ""
    author_url: str = ""
    ip: str = ""
    line: int = 0
    # The source says one of its own authors wrote it under their name (WordPress's
    # comment_user_id): that name is let through though it is one of the site's authors'.
    by_source_author: bool = False


@dataclass(frozen=True)
class Refusal:
    """An element of the source that cannot be imported, and why (counted, reported)."""

    reason: str
    line: int = 0
    id: str = ""
    thread: bool = False  # a thread (its comments then name an unknown thread)


@dataclass
class Report:
    """What a run did (or, dry, would do): the end summary."""

    source: str
    dry_run: bool = False
    threads_matched: int = 0
    threads_created: int = 0
    threads_skipped: int = 0
    unmatched: list[str] = field(default_factory=list)
    imported: int = 0
    already: int = 0
    refused: Counter = field(default_factory=Counter)  # reason -> how many
    skipped: Counter = field(default_factory=Counter)  # reason -> how many (pingbacks...)
    orphans: list[str] = field(default_factory=list)  # the first ORPHANS_SHOWN
    orphans_total: int = 0
    reattached: int = 0
    posts: int = 0  # posts whose summaries were refreshed

    def lines(self) -> list[str]:
        """The end summary, line by line."""
        would = "would be " if self.dry_run else ""
        out = [
            (f"Threads/posts: {self.threads_matched} matched, {self.threads_created} {would}created, "
             f"{self.threads_skipped} skipped."),
            (f"Comments: {self.imported} {would}imported, {self.already} skipped as already imported, "
             f"{sum(self.refused.values())} refused, {sum(self.skipped.values())} skipped."),
        ]
        out += [f"  refused: {n} {reason}" for reason, n in self.refused.most_common()]
        out += [f"  skipped: {n} {reason}" for reason, n in self.skipped.most_common()]
        out += [f"  unmatched thread: {what}" for what in self.unmatched]
        out += [f"  orphan: {what}" for what in self.orphans]
        if self.orphans_total > len(self.orphans):
            out.append(MORE_ORPHANS.format(count=self.orphans_total - len(self.orphans)))
        if self.reattached:
            out.append(f"  {self.reattached} replies deeper than the site allows went under the deepest ancestor.")
        if self.dry_run:
            out.append("Dry run: nothing was written.")
        return out


def utc_time(moment: datetime) -> datetime | None:
    """An aware `moment` in UTC; None when it cannot be kept: its offset takes it past
    year 9999 or before year 1, or it falls before year 1000 (slugs sort times as
    text, four digits to a year)."""
    try:
        moment = moment.astimezone(UTC)
    except (OverflowError, ValueError):
        return None
    return moment if moment.year >= 1000 else None


# --- Bodies ----------------------------------------------------------------------------


def comment_text(html: str) -> str:
    """A source's HTML body as the Markdown a comment keeps: sanitised by the site's
    comment allow-lists first (scripts and styles go with their content), then
    written as Markdown, with every character Markdown would read as markup escaped."""
    clean = nh3.clean(html or "", tags=markup.COMMENT_TAGS, attributes=markup.ALLOWED_ATTRIBUTES, link_rel=None)
    if markup.nesting_depth(clean) > markup.NESTING_LIMIT:
        # Deeper than a comment may nest (and than markdownify, which recurses, can
        # walk): its text alone, as the site shows such a comment.
        clean = nh3.clean(clean, tags=set())
        return re.sub(r"\n{3,}", "\n\n", html_module.unescape(clean)).strip()
    text = markdownify(clean, heading_style="ATX", bullets="-", escape_misc=True, code_language="")
    return re.sub(r"\n{3,}", "\n\n", text).strip()


# --- Threads and posts -----------------------------------------------------------------


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


# --- Reading XML safely ----------------------------------------------------------------


def _refuse_entity(name, *args):
    raise ValueError(ENTITY_REFUSED.format(name=name))


def _refuse_external(*args):
    raise ValueError(EXTERNAL_REFUSED.format(what="an external entity"))


def _refuse_external_dtd(name, system_id, public_id, has_internal_subset):
    if system_id or public_id:
        raise ValueError(EXTERNAL_REFUSED.format(what=f"DTD {system_id or public_id!r}"))


def _name(expat_name: str) -> str:
    """expat's `uri}local` as ElementTree's `{uri}local`."""
    return "{" + expat_name if "}" in expat_name else expat_name


def local(name: str) -> str:
    """An element or attribute name without its namespace."""
    return name.rpartition("}")[2]


def read_xml(stream: BinaryIO, *, tags: Iterable[str]) -> Iterator[tuple[int, Element]]:
    """(line, element) for each outermost element whose local name is in `tags`, as
    the file is read, `XML_CHUNK` bytes at a time; nothing else is kept. Names keep
    their namespace (`{uri}local`). BadSource, with the line, for malformed XML, an
    entity declaration, an external DTD or entity: none is ever resolved."""
    wanted = set(tags)
    parser = xml.parsers.expat.ParserCreate(namespace_separator="}")
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.buffer_text = True
    parser.EntityDeclHandler = _refuse_entity
    parser.UnparsedEntityDeclHandler = _refuse_entity
    parser.ExternalEntityRefHandler = _refuse_external
    parser.StartDoctypeDeclHandler = _refuse_external_dtd
    done: list[tuple[int, Element]] = []
    builder: TreeBuilder | None = None
    depth = start_line = 0

    def start(name, attributes):
        nonlocal builder, depth, start_line
        if builder is None:
            if local(name) not in wanted:
                return
            builder, start_line = TreeBuilder(), parser.CurrentLineNumber
        depth += 1
        builder.start(_name(name), {_name(k): v for k, v in attributes.items()})

    def end(name):
        nonlocal builder, depth
        if builder is None:
            return
        builder.end(_name(name))
        depth -= 1
        if depth == 0:
            done.append((start_line, builder.close()))
            builder = None

    def text(data):
        if builder is not None:
            builder.data(data)

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, text
    while True:
        chunk = stream.read(XML_CHUNK)
        try:
            parser.Parse(chunk, not chunk)
        except xml.parsers.expat.ExpatError as exc:
            yield from done
            raise BadSource(exc.lineno, xml.parsers.expat.ErrorString(exc.code)) from None
        except ValueError as exc:
            yield from done
            raise BadSource(parser.CurrentLineNumber, str(exc)) from None
        yield from done
        done.clear()
        if not chunk:
            return


@contextmanager
def open_source(path: str, *, progress: bool = False) -> Iterator[BinaryIO]:
    """The file at `path`, opened to be read in binary; with `progress`, a progress
    bar (tqdm, on standard error) follows the bytes read."""
    with open(path, "rb") as raw:
        if not progress:
            yield raw
            return
        with tqdm.wrapattr(raw, "read", total=os.path.getsize(path), desc=os.path.basename(path)) as watched:
            yield watched


# --- Writing ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Placed:
    """Where a source comment is (or, dry, would be): what its replies need."""

    discussion_id: ObjectId
    ids: tuple[ObjectId, ...]  # the comment's own id last, its ancestors' before, root first
    slug: str
    full_slug: str
    hidden: bool = False  # it or one of its ancestors is hidden (pending, spam, deleted)

    @property
    def comment_id(self) -> ObjectId:
        return self.ids[-1]


def ledger():
    """The collection `comment_imports`: where each imported comment went."""
    return get_db().comment_imports


def _ledger_key(source: str, source_id: str) -> str:
    return f"{source}:{source_id}"


def imported_id(*, source: str, source_id: str, posted: datetime) -> ObjectId:
    """The `_id` an imported comment gets: the same on every run, ordered by its time
    like any ObjectId (its first four bytes are the time, the rest a hash of its
    source and id)."""
    seconds = int(posted.timestamp()) & 0xFFFFFFFF
    digest = hashlib.blake2b(_ledger_key(source, source_id).encode(), digest_size=8).digest()
    return ObjectId(seconds.to_bytes(4, "big") + digest)


def _to_scratch(comment: SourceComment) -> dict:
    # The time as text: BSON would keep milliseconds and no zone.
    return {**dataclasses.asdict(comment), "posted": comment.posted.isoformat()}


def _from_scratch(fields: dict) -> SourceComment:
    return SourceComment(**{**fields, "posted": datetime.fromisoformat(fields["posted"])})


class Importer:
    """Writes the comments of one source (see the module docstring)."""

    def __init__(self, *, source: str, dry_run: bool = False, batch_size: int = BATCH_SIZE,
                 trust_names: bool = False, waiting_limit: int = WAITING_LIMIT):
        self.source, self.dry_run, self.batch_size = source, dry_run, batch_size
        # Authors' names are taken from the file only when the operator trusts it.
        self.trust_names = trust_names
        self.report = Report(source=source, dry_run=dry_run)
        self.threads: dict[str, ObjectId | None] = {}
        self.pending: list[SourceComment] = []
        self.waiting = WaitingReplies(limit=waiting_limit, dump=_to_scratch, load=_from_scratch)  # replies read before their parent
        self.known: OrderedDict[str, _Placed] = OrderedDict()
        self.touched: set[ObjectId] = set()

    # What the parsers hand in.

    def add_thread(self, thread: SourceThread, *, post_id: ObjectId | None, created: bool = False) -> None:
        """Record which post a thread's comments go to (None: none, they are skipped)."""
        self.threads[thread.key] = post_id
        if post_id is None:
            self.report.threads_skipped += 1
            self.report.unmatched.append(f"{thread.describe()} (line {thread.line})")
        elif created:
            self.report.threads_created += 1
        else:
            self.report.threads_matched += 1

    def match_thread(self, thread: SourceThread, *, mapping: dict[str, str] | None = None,
                     create_missing: bool = False) -> None:
        """Record the post `match_post` finds for a thread; with `create_missing`, a
        draft (`create_draft`) when none matches, else its comments are skipped."""
        post = match_post(thread, mapping=mapping)
        if post is None and create_missing:
            self.add_thread(thread, post_id=create_draft(thread, dry_run=self.dry_run).id, created=True)
        else:
            self.add_thread(thread, post_id=post.id if post else None)

    def add(self, item: SourceComment | Refusal) -> None:
        """Take a comment (written with its batch) or a refusal (counted)."""
        if isinstance(item, Refusal) and item.thread:
            self.report.threads_skipped += 1
            self.report.unmatched.append(f"line {item.line}: {item.reason}")
            return
        if isinstance(item, Refusal):
            self.refuse(item.reason)
            return
        reason = self._problem(item)
        if reason == THREAD_SKIPPED:
            self.skip(reason)
        elif reason:
            self.refuse(reason)
        else:
            try:  # the name and address cleaned as the comment form's are
                who = commenters.clean_imported(name=item.author_name, email=item.author_email,
                                                trust_names=self.trust_names or item.by_source_author)
            except commenters.Refused as exc:
                self.refuse(str(exc))
                return
            self.pending.append(replace(item, author_name=who.name, author_email=who.email))
            if len(self.pending) >= self.batch_size:
                self.flush()

    def refuse(self, reason: str) -> None:
        """A comment that cannot be imported, for `reason` (counted by reason)."""
        self.report.refused[reason] += 1

    def skip(self, reason: str) -> None:
        """A comment left out on purpose (a pingback, a thread with no post)."""
        self.report.skipped[reason] += 1

    def _problem(self, comment: SourceComment) -> str | None:
        if comment.thread not in self.threads:
            return UNKNOWN_THREAD.format(thread=comment.thread)
        if self.threads[comment.thread] is None:
            return THREAD_SKIPPED
        if comment.status not in STATUSES:
            return BAD_STATUS.format(status=comment.status)
        if comment.posted.tzinfo is None:
            return NAIVE_TIME
        if utc_time(comment.posted) is None:
            return TIME_OUT_OF_RANGE
        return None

    # Writing a batch.

    def flush(self) -> None:
        """Write the comments taken so far whose parent is known; the others wait."""
        batch, self.pending = self.pending, []
        if not batch:
            return
        stored = self._look_up([c.id for c in batch])
        fresh = []
        for comment in batch:
            if comment.id in stored:
                self.report.already += 1
                self._remember(comment.id, stored[comment.id])
            else:
                fresh.append(comment)
        fresh += self.waiting.take(comment.id for comment in batch if comment.id in stored)
        ids = {c.id for c in fresh}
        unknown = [c.parent for c in fresh if c.parent and c.parent not in ids and c.parent not in self.known]
        for parent_id, placed in self._look_up(unknown).items():
            self._remember(parent_id, placed)
        self._write(fresh)

    def _write(self, comments: list[SourceComment], *, orphans: bool = False) -> None:
        """Place each comment under its parent, parents first, and store them. A reply
        whose parent is not placed yet waits for it; with `orphans`, the comments
        given go to the top level when their parent is nowhere. Stored a batch at a
        time; the replies waiting for what was placed follow once the queue is empty."""
        queue, documents, here, placed = deque(comments), [], {}, []
        while queue:
            comment = queue.popleft()
            parent = (here.get(comment.parent) or self.known.get(comment.parent)) if comment.parent else None
            if comment.parent and parent is None and not orphans:
                self.waiting.add(comment)
            else:
                document, here[comment.id] = self._document(comment, parent)
                documents.append((comment, document, here[comment.id]))
                placed.append(comment.id)
            if len(documents) >= self.batch_size:
                self._store(documents)
                documents = []
            if not queue and placed:
                queue.extend(self.waiting.take(placed))
                placed = []
        self._store(documents)

    def _document(self, comment: SourceComment, parent: _Placed | None) -> tuple[dict, _Placed]:
        """The flat document of `comment` under `parent`, and where it is placed
        (remembered)."""
        discussion_id = self.threads[comment.thread]
        if comment.parent and (parent is None or parent.discussion_id != discussion_id):
            why = ORPHAN_MISSING if parent is None else ORPHAN_ELSEWHERE
            self.report.orphans_total += 1
            if len(self.report.orphans) < ORPHANS_SHOWN:
                self.report.orphans.append(ORPHAN.format(source=self.source, id=comment.id, line=comment.line,
                                                         parent=comment.parent, why=why))
            parent = None
        posted = comment.posted.astimezone(UTC)
        part = slugs.derived_part(_ledger_key(self.source, comment.id))
        parent = self._within_depth(parent) if parent else None
        if parent is None:
            slug, full_slug = slugs.root_slugs(posted=posted, part=part)
        else:
            slug, full_slug = slugs.child_slugs(parent_slug=parent.slug, parent_full_slug=parent.full_slug,
                                                posted=posted, part=part)
        text = comment_text(comment.html)
        author = CommentAuthor(id=None, name=comment.author_name.strip() or ANONYMOUS,
                               email=comment.author_email.strip())
        document = new_document(
            discussion_id=discussion_id, parent=None, slug=slug, full_slug=full_slug,
            posted=posted.replace(microsecond=posted.microsecond // 1000 * 1000), author=author, text=text,
            html=render_comment(text), form_key=None, status=comment.status, ip=comment.ip.strip() or None,
        )
        document["_id"] = imported_id(source=self.source, source_id=comment.id, posted=posted)
        document["parent_id"] = parent.comment_id if parent else None
        document["imported"] = {"source": self.source, "id": comment.id}
        ids = (parent.ids if parent else ()) + (document["_id"],)
        hidden = comment.status in HIDDEN or bool(parent and parent.hidden)
        where = _Placed(discussion_id, ids, slug, full_slug, hidden)
        self._remember(comment.id, where)
        return document, where

    def _within_depth(self, parent: _Placed) -> _Placed | None:
        """`parent`, or its ancestor at the deepest level a reply may have (None: the
        site takes no replies)."""
        limit = conf.get().max_depth
        if slugs.depth(parent.slug) < limit:
            return parent
        self.report.reattached += 1
        if limit == 0:
            return None
        cut = slugs.SEPARATOR.join
        return _Placed(parent.discussion_id, parent.ids[:limit], cut(parent.slug.split(slugs.SEPARATOR)[:limit]),
                       cut(parent.full_slug.split(slugs.SEPARATOR)[:limit]), parent.hidden)

    def _store(self, placed: list[tuple[SourceComment, dict, _Placed]]) -> None:
        """Store the documents (not on a dry run), record them in the ledger, and
        repair the placeholders they may change. One insert for the batch; only when
        some did not go in (a run stopped before recording them stored them, or their
        slug is taken) are they looked for."""
        if self.dry_run or not placed:
            self.report.imported += len(placed) if self.dry_run else 0
            return
        inserted = get_store().insert_documents(documents=[document for _, document, _ in placed])
        missing = self._missing([document["_id"] for _, document, _ in placed]) if inserted < len(placed) else set()
        self.report.imported += inserted
        self.report.already += len(placed) - inserted - len(missing)
        entries, changed = [], {}
        for comment, document, where in placed:
            if document["_id"] in missing:
                self.refuse(SLUG_TAKEN)
                self.known.pop(comment.id, None)
                continue
            entries.append(UpdateOne({"_id": _ledger_key(self.source, comment.id)}, {"$set": {
                "discussion_id": where.discussion_id, "ids": list(where.ids), "slug": where.slug,
                "full_slug": where.full_slug, "hidden": where.hidden,
            }}, upsert=True))
            if where.hidden:  # it, or a comment above it, is hidden: placeholders may change
                changed.setdefault(where.discussion_id, []).append(where.slug)
            self.touched.add(where.discussion_id)
        if entries:
            ledger().bulk_write(entries, ordered=False)
        for discussion_id, changed_slugs in changed.items():
            summaries.repair_placeholders(discussion_id=discussion_id, slugs_changed=changed_slugs)

    @staticmethod
    def _missing(ids: list[ObjectId]) -> set[ObjectId]:
        """Which of these comments the store does not hold."""
        return set(ids) - {comment.id for comment in get_store().find_by_ids(ids=ids)}

    # Remembering where comments went.

    def _remember(self, source_id: str, placed: _Placed) -> None:
        self.known[source_id] = placed
        self.known.move_to_end(source_id)
        if not self.dry_run and len(self.known) > KNOWN_LIMIT:
            self.known.popitem(last=False)

    def _look_up(self, source_ids: list[str]) -> dict[str, _Placed]:
        """Where the ledger says these source comments went (those it knows)."""
        wanted = sorted(set(source_ids))
        if not wanted:
            return {}
        found = {}
        for start in range(0, len(wanted), BATCH_SIZE):
            keys = [_ledger_key(self.source, i) for i in wanted[start:start + BATCH_SIZE]]
            for entry in ledger().find({"_id": {"$in": keys}}):
                source_id = entry["_id"].removeprefix(f"{self.source}:")
                found[source_id] = _Placed(entry["discussion_id"], tuple(entry["ids"]), entry["slug"],
                                           entry["full_slug"], entry.get("hidden", True))
        return found

    # The end.

    def finish(self, *, complete: bool = True) -> Report:
        """Write what is left; when the whole file was read (`complete`), the replies
        whose parent never came go to the top level (orphans, reported). Then refresh
        the summary of every post written to."""
        try:
            self.flush()
            while complete and (roots := self.waiting.orphan_roots()):
                self._write(roots, orphans=True)
        finally:
            self.waiting.drop()
        for discussion_id in sorted(self.touched):
            counters.recount(discussion_id)  # The imported comments, counted once per discussion.
            summaries.refresh_summary(post_id=discussion_id)
        self.report.posts = len(self.touched)
        return self.report
