"""Disqus's XML export in: its threads and posts as the import engine's records
(comments/transfer/importing.py), read as a stream.

The export (`<disqus xmlns="http://disqus.com"
xmlns:dsq="http://disqus.com/disqus-internals">`) lists its `<category>` elements,
then every `<thread dsq:id>` (the page: `<id>` its identifier, `<link>`, `<title>`,
`<createdAt>`), then every `<post dsq:id>` (a comment: `<message>` its HTML, usually
CDATA; `<createdAt>` in UTC; `<isDeleted>`, `<isSpam>`, optionally `<isApproved>`;
`<author>` with `<name>`, `<email>`, `<username>`, `<isAnonymous>`; `<ipAddress>`;
`<thread dsq:id>` and, for a reply, `<parent dsq:id>`). A thread may say
`<isDeleted>true</isDeleted>`: it is skipped with its comments, and reported. Posts come in no promised
order: a reply may come before the comment it answers (the engine keeps it until
then).

Only the element being read is in memory, so a file of any size takes the same
memory, apart from the engine's thread map (the replies that wait for a parent wait
in memory only up to importing.WAITING_LIMIT, then in a scratch collection).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import BinaryIO, TextIO
from xml.etree.ElementTree import Element

from comments.records import APPROVED, DELETED, PENDING, SPAM
from comments.transfer import import_files, import_records, import_threads, importing
from comments.transfer.import_records import Refusal, SourceComment, SourceThread

SOURCE = "disqus"
NO_ID = "a {what} without a dsq:id"
NO_THREAD = "a post without its thread"
NO_TIME = "no createdAt"
BAD_TIME = "createdAt {value!r} is not a time"
NO_MESSAGE = "an empty message"
NOTHING_READ = "The file held no Disqus post (comment): nothing was imported. Is it a Disqus export?"


def _children(element: Element) -> dict[str, Element]:
    """The element's children by local name (the first of each name), read once."""
    found: dict[str, Element] = {}
    for child in element:
        found.setdefault(import_files.local(child.tag), child)
    return found


def _text(children: dict[str, Element], name: str) -> str:
    """The text of the child `name`, "" if it is missing."""
    element = children.get(name)
    return (element.text or "").strip() if element is not None else ""


def _dsq_id(element: Element | None) -> str:
    """An element's `dsq:id` attribute (any namespace), "" if it has none."""
    if element is None:
        return ""
    for name, value in element.attrib.items():
        if import_files.local(name) == "id":
            return value.strip()
    return ""


def _true(children: dict[str, Element], name: str) -> bool:
    return _text(children, name).lower() == "true"


def parse_time(value: str) -> datetime:
    """A Disqus time (`2012-01-03T20:02:34Z`, sometimes with an offset or none: UTC)."""
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)  # noqa: FURB162  (no offset: UTC)


def status_of(post: dict[str, Element]) -> str:
    """Our status for a Disqus post (its children by name): deleted and spam first,
    then pending when Disqus says it is not approved."""
    if _true(post, "isDeleted"):
        return DELETED
    if _true(post, "isSpam"):
        return SPAM
    if _text(post, "isApproved").lower() == "false":
        return PENDING
    return APPROVED


def thread_of(line: int, element: Element) -> SourceThread | Refusal:
    key = _dsq_id(element)
    if not key:
        return Refusal(reason=NO_ID.format(what="thread"), line=line, thread=True)
    children = _children(element)
    return SourceThread(source=SOURCE, key=key, line=line, link=_text(children, "link"),
                        identifier=_text(children, "id"), title=_text(children, "title"),
                        deleted=_true(children, "isDeleted"))


def comment_of(line: int, element: Element) -> SourceComment | Refusal:
    key = _dsq_id(element)
    if not key:
        return Refusal(reason=NO_ID.format(what="post"), line=line)
    children = _children(element)
    thread = _dsq_id(children.get("thread"))
    if not thread:
        return Refusal(reason=NO_THREAD, line=line, id=key)
    created = _text(children, "createdAt")
    if not created:
        return Refusal(reason=NO_TIME, line=line, id=key)
    try:
        posted = parse_time(created)
    except ValueError:
        return Refusal(reason=BAD_TIME.format(value=created[:40]), line=line, id=key)
    if import_records.utc_time(posted) is None:
        return Refusal(reason=import_records.TIME_OUT_OF_RANGE, line=line, id=key)
    status = status_of(children)
    message = children.get("message")
    html = (message.text or "") if message is not None else ""
    if not html.strip() and status != DELETED:
        return Refusal(reason=NO_MESSAGE, line=line, id=key)
    author = _children(children["author"]) if "author" in children else {}
    return SourceComment(
        source=SOURCE, id=key, thread=thread, parent=_dsq_id(children.get("parent")) or None,
        posted=posted, html=html, status=status,
        author_name=_text(author, "name") or _text(author, "username"),
        author_email=_text(author, "email"), ip=_text(children, "ipAddress"), line=line,
    )


def parse(stream: BinaryIO) -> Iterator[SourceThread | SourceComment | Refusal]:
    """The threads and posts of a Disqus export, in file order; BadSource (with the
    line) if the XML is malformed or declares entities."""
    for line, element in import_files.read_xml(stream, tags={"thread", "post"}):
        yield thread_of(line, element) if import_files.local(element.tag) == "thread" else comment_of(line, element)


def run(
    *, path: str, dry_run: bool = False, mapping_path: str | None = None, create_missing: bool = False,
    progress: bool = False, stdout: TextIO = sys.stdout, batch_size: int | None = None,
    trust_names: bool = False, verbose: bool = False,
) -> import_records.Report:
    """Import a Disqus export: match each thread to a post (or make a draft with
    `create_missing`), write its comments, print the summary to `stdout`. BadSource
    for a malformed file, after writing the comments read before the error;
    EmptySource, after the summary, for a file with no post.
    Commenters' names and addresses are cleaned as the comment form's (an author's
    name refused unless `trust_names`: comments/posting/commenters.py). `verbose`: a
    line per discussion written to in the summary. `batch_size`: comments per write (by
    default the comment store's own)."""
    mapping = import_threads.read_mapping(mapping_path) if mapping_path else {}
    importer = importing.Importer(source=SOURCE, dry_run=dry_run, batch_size=batch_size, trust_names=trust_names,
                                  verbose=verbose)
    posts = 0
    with import_files.open_source(path, progress=progress) as stream:
        try:
            for item in parse(stream):
                if isinstance(item, SourceThread):
                    importer.match_thread(item, mapping=mapping, create_missing=create_missing)
                else:
                    posts += not (isinstance(item, Refusal) and item.thread)
                    importer.add(item)
        except import_records.BadSource as exc:
            report = importer.finish(complete=False)
            stdout.write("\n".join(report.lines()) + "\n")
            raise exc.after(report) from None
    report = importer.finish()
    stdout.write("\n".join(report.lines()) + "\n")
    if not posts:
        raise import_records.EmptySource(NOTHING_READ)
    return report

