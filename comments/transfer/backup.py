"""Comments to and from JSON Lines: what `export_comments` writes and `import_comments`
reads back, for backups and for moving discussions between databases.

One line per comment: its stored document with every field, as MongoDB Extended JSON
v2 in relaxed mode (`bson.json_util`), so `mongoimport` and `mongoexport` read and
write the same form. ObjectIds are `{"$oid": "…"}`, datetimes `{"$date": "…Z"}` (UTC,
to the millisecond, as BSON stores them), everything else plain JSON:

    {"_id": {"$oid": "6751…"}, "discussion_id": {"$oid": "6750…"}, "parent_id": null,
     "slug": "k3x7q2ab", "full_slug": "2026.11.29.20.41.07.123456:k3x7q2ab",
     "posted": {"$date": "2026-11-29T20:41:07.123Z"}, "author": {…}, "text": "…", …}

Both directions stream: the export walks one cursor, the import inserts batches (one
ordered `insert_many` each, in a thread of its own while the next batch is read and
rendered), so memory stays flat whatever the number of comments. Importing keeps each comment's
`_id`, slugs and times, so pages, permalinks and cursors come back exactly; a comment
whose slug its discussion already has is skipped, so importing twice adds nothing.

A file is not trusted with what the site itself decides: each comment's `html` is
rendered again from its `text` (the file's is ignored), and `author.staff` (the Staff
badge) is dropped unless the operator says the file is the site's own export
(`keep_staff`, `import_comments --keep-staff`). Authors' names and addresses are cleaned
as the comment form's are (comments/posting/commenters.py): direction controls and invisible
characters go, a broken address stops the import at its line, and so does an anonymous
comment under a name that passes for one of this site's authors, unless the file is the
site's own export.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TextIO

from bson import ObjectId, json_util
from bson.errors import InvalidId

from comments.posting import commenters
from comments.stores import get_store
from comments.transfer import import_end
from comments.transfer.import_authors import Authors
from comments.transfer.import_writer import Writer
from infra.markup import render_comment

JSON_OPTIONS = json_util.JSONOptions(json_mode=json_util.JSONMode.RELAXED, tz_aware=True, tzinfo=timezone.utc)
BATCH_SIZE = 500
BAD_LINE = "Line {number} is not a comment: {reason}"
# The fields without which a document cannot be shown or found again.
REQUIRED = {"_id": ObjectId, "discussion_id": ObjectId, "slug": str, "full_slug": str, "posted": datetime}


class BadLine(ValueError):
    """A line of the input is not a comment document; the message names it."""


@dataclass(frozen=True)
class Imported:
    read: int
    inserted: int
    discussions: int

    @property
    def skipped(self) -> int:
        return self.read - self.inserted


def export_comments(
    *, out: TextIO, discussion_id: ObjectId | None = None, batch_size: int = BATCH_SIZE
) -> int:
    """Write every comment (of one discussion, or all) to `out`, one JSON object per
    line, in discussion and posting order, fetching `batch_size` at a time; return
    how many."""
    written = 0
    for document in get_store().iter_documents(discussion_id=discussion_id, batch_size=batch_size):
        out.write(json_util.dumps(document, json_options=JSON_OPTIONS) + "\n")
        written += 1
    return written


def parse_line(line: str, *, number: int) -> dict:
    """One exported line back into a document; BadLine if it is not one."""
    try:
        document = json_util.loads(line, json_options=JSON_OPTIONS)
    except (ValueError, TypeError, InvalidId, OverflowError) as exc:  # Overflow: a date past 9999 or before 1
        raise BadLine(BAD_LINE.format(number=number, reason=f"not Extended JSON ({exc})")) from exc
    if not isinstance(document, dict):
        raise BadLine(BAD_LINE.format(number=number, reason="not a JSON object"))
    for name, kind in REQUIRED.items():
        if not isinstance(document.get(name), kind):
            raise BadLine(BAD_LINE.format(number=number, reason=f"{name} missing or not a {kind.__name__}"))
    if not isinstance(document.get("text", ""), str):
        raise BadLine(BAD_LINE.format(number=number, reason="text not a str"))
    if not isinstance(document.get("author", {}), dict):
        raise BadLine(BAD_LINE.format(number=number, reason="author not an object"))
    return document


def trusted(document: dict, *, number: int, keep_staff: bool = False, authors: Authors | None = None) -> dict:
    """`document` as the site will store it: its `html` rendered from its `text`, its
    author's name and address cleaned (BadLine for one the site refuses; each author
    once with `authors`, the run's), and without `author.staff` unless `keep_staff`
    (the file is the site's own export)."""
    document["html"] = render_comment(document.get("text", ""))
    author = document.get("author")
    if isinstance(author, dict):
        if not keep_staff:
            author.pop("staff", None)
        name, email = author.get("name") or "", author.get("email") or ""
        if not isinstance(name, str) or not isinstance(email, str):
            raise BadLine(BAD_LINE.format(number=number, reason="author name or email not a str"))
        # A member's comment carries the member's own name (the form's rule too):
        # only an anonymous line is checked against the authors' names.
        cleaned = (authors or Authors(trust_names=keep_staff)).clean(name, email,
                                                                     by_source_author=author.get("id") is not None)
        if isinstance(cleaned, commenters.Refused):
            reason = str(cleaned).replace("--trust-names", "--keep-staff")
            raise BadLine(BAD_LINE.format(number=number, reason=reason)) from cleaned
        if "name" in author:
            author["name"] = cleaned.name
        if author.get("email"):
            author["email"] = cleaned.email
    return document


def import_comments(
    *, lines: Iterable[str], batch_size: int = BATCH_SIZE, keep_staff: bool = False
) -> Imported:
    """Insert the comments of an export, `batch_size` at a time, skipping those already
    there, then recompute the comment summary of each post they belong to. Bodies are
    rendered again from their text; staff badges are kept only with `keep_staff`.

    A bad line stops the import with BadLine; the batches before it are in, and
    running the import again skips them.
    """
    read = inserted = 0
    discussions: set[ObjectId] = set()
    batch: list[dict] = []
    authors = Authors(trust_names=keep_staff)  # each author cleaned once (the look-alike check is slow)
    # Each batch is inserted (one ordered insert_many) while the next is read and rendered.
    writer: Writer[list[dict], int] = Writer(lambda documents: get_store().insert_documents(documents=documents))
    try:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            document = trusted(parse_line(line, number=number), number=number, keep_staff=keep_staff,
                               authors=authors)
            batch.append(document)
            discussions.add(document["discussion_id"])
            read += 1
            if len(batch) >= batch_size:
                inserted += writer.submit(batch) or 0
                batch = []
        inserted += (writer.submit(batch) or 0) + (writer.wait() or 0)
    finally:
        writer.close()  # a bad line: the batch in flight goes in first
    # The restored comments, counted once per discussion and summarised, as an import's end does
    # (several discussions at once); their placeholders came with them.
    import_end.settle(sorted(discussions))
    return Imported(read=read, inserted=inserted, discussions=len(discussions))
