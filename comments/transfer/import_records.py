"""What a source's parser hands the importer (comments/transfer/importing.py), and what the
importer reports: a source's threads and comments, the elements it refuses, the end
summary, BadSource for a file that cannot be read on and EmptySource for one that
holds nothing to import. Pure: no I/O.

Times are kept in UTC (`utc_time`): a comment whose time cannot be is refused with
TIME_OUT_OF_RANGE, by the engine and by the parsers that read times themselves.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime

from comments.records import APPROVED

BAD_SOURCE = "Line {line}: {reason}"
TIME_OUT_OF_RANGE = "its time is out of range in UTC (years 1000 to 9999)"
# With --verbose: each discussion written to, and its comments stored (or already there).
DISCUSSION_LINE = "  discussion {discussion}: {count} comments stored"
MORE_ORPHANS = "  ... and {count} more orphans"
# Each refused record is named, where it is in the file and by its id, up to
# REFUSALS_SHOWN; the others are counted.
REFUSALS_SHOWN = 100
REFUSED_RECORD = "  refused {what}: {reason}"
MORE_REFUSALS = "  ... and {count} more refused"
DELETED_THREAD = "  deleted thread (skipped with its comments): {what}"
MORE_DELETED_THREADS = "  ... and {count} more deleted threads"
# What a run stopped by a malformed file wrote before the error, and how to go on.
WRITTEN_BEFORE = (
    "Written before it: {comments} comment(s) on {posts} post(s){created}; nothing after it was read. "
    "Run the same import again once the file is fixed: what was written is skipped as already "
    "imported (the comment_imports ledger) and the rest goes in."
)
POSTS_CREATED = ", {count} post(s) created"
NOTHING_WRITTEN = "Nothing was written."
NOTHING_WRITTEN_DRY = "Dry run: nothing was written."


class EmptySource(ValueError):
    """The file held nothing a format's importer reads (not its export, or written in
    a namespace it does not know): the run imported nothing, and says so loudly."""


class BadSource(ValueError):
    """The file cannot be read on; the message names the line and the reason, and,
    once the run has written what it read before (`after`), what that was."""

    def __init__(self, line: int, reason: str, *, written: str = ""):
        message = BAD_SOURCE.format(line=line, reason=reason)
        super().__init__(f"{message}. {written}" if written else message)
        self.line, self.reason = line, reason

    def after(self, report: Report, *, posts_created: int = 0) -> BadSource:
        """This error, saying what the run wrote before it (`report.written`)."""
        return BadSource(self.line, self.reason, written=report.written(posts_created=posts_created))


@dataclass(frozen=True)
class SourceThread:
    """A discussion of the source system: a Disqus thread, a WordPress post."""

    source: str  # "disqus", "wordpress": the namespace of its ids
    key: str  # the source's id of the thread, which its comments name
    line: int = 0
    deleted: bool = False  # deleted in the source: skipped with its comments
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
    # That author's account here (a user id), when the import found or made it: the
    # comment is stored as theirs.
    author_id: int | None = None
    # The body rendered (the Markdown kept as `text`, its `html`), once it is
    # (comments/transfer/import_render.py); None before.
    body: tuple[str, str] | None = None


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
    threads_deleted: int = 0
    deleted_threads: list[str] = field(default_factory=list)  # the first REFUSALS_SHOWN
    imported: int = 0
    already: int = 0
    refused: Counter = field(default_factory=Counter)  # reason -> how many
    refusals: list[str] = field(default_factory=list)  # the first REFUSALS_SHOWN, by line and id
    skipped: Counter = field(default_factory=Counter)  # reason -> how many (pingbacks...)
    orphans: list[str] = field(default_factory=list)  # the first importing.ORPHANS_SHOWN
    orphans_total: int = 0
    reattached: int = 0
    posts: int = 0  # posts whose summaries were refreshed
    verbose: bool = False  # a line per discussion in the summary
    by_discussion: Counter = field(default_factory=Counter)  # discussion id -> comments stored there

    def refuse(self, reason: str, *, line: int = 0, source_id: str = "") -> None:
        """Count a refused record under its reason, and name it (its line, its id in
        the source) among the first REFUSALS_SHOWN."""
        self.refused[reason] += 1
        if len(self.refusals) < REFUSALS_SHOWN:
            self.refusals.append(REFUSED_RECORD.format(what=self.record_at(line, source_id), reason=reason))

    def record_at(self, line: int, source_id: str) -> str:
        """A record of the source as the operator finds it: its id, then its line."""
        named = f"{self.source} comment {source_id}" if source_id else f"{self.source} record without an id"
        return f"{named} (line {line})" if line else named

    def delete_thread(self, thread: SourceThread) -> None:
        """Count a thread deleted in the source, named among the first REFUSALS_SHOWN."""
        self.threads_deleted += 1
        if len(self.deleted_threads) < REFUSALS_SHOWN:
            self.deleted_threads.append(DELETED_THREAD.format(what=f"{thread.describe()} (line {thread.line})"))

    def written(self, *, posts_created: int = 0) -> str:
        """What the run wrote, for an operator whose run stopped early."""
        if self.dry_run:
            return NOTHING_WRITTEN_DRY
        if not (self.imported or posts_created):
            return NOTHING_WRITTEN
        created = POSTS_CREATED.format(count=posts_created) if posts_created else ""
        return WRITTEN_BEFORE.format(comments=self.imported, posts=self.posts, created=created)

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
        out += self.refusals
        if sum(self.refused.values()) > len(self.refusals):
            out.append(MORE_REFUSALS.format(count=sum(self.refused.values()) - len(self.refusals)))
        out += [f"  skipped: {n} {reason}" for reason, n in self.skipped.most_common()]
        out += [f"  unmatched thread: {what}" for what in self.unmatched]
        out += self.deleted_threads
        if self.threads_deleted > len(self.deleted_threads):
            out.append(MORE_DELETED_THREADS.format(count=self.threads_deleted - len(self.deleted_threads)))
        out += [f"  orphan: {what}" for what in self.orphans]
        if self.orphans_total > len(self.orphans):
            out.append(MORE_ORPHANS.format(count=self.orphans_total - len(self.orphans)))
        if self.reattached:
            out.append(f"  {self.reattached} replies deeper than the site allows went under the deepest ancestor.")
        if self.verbose:
            out += [DISCUSSION_LINE.format(discussion=d, count=n) for d, n in sorted(self.by_discussion.items())]
        if self.dry_run:
            out.append("Dry run: nothing was written.")
        return out


def to_scratch(comment: SourceComment) -> dict:
    """`comment` as a scratch document's fields (comments/transfer/import_waiting.py)."""
    # The time as text: BSON would keep milliseconds and no zone.
    return {**dataclasses.asdict(comment), "posted": comment.posted.isoformat()}


def from_scratch(fields: dict) -> SourceComment:
    """A comment back from its scratch document's fields."""
    body = fields.get("body")
    return SourceComment(**{**fields, "posted": datetime.fromisoformat(fields["posted"]),
                            "body": (body[0], body[1]) if body else None})


def utc_time(moment: datetime) -> datetime | None:
    """An aware `moment` in UTC; None when it cannot be kept: its offset takes it past
    year 9999 or before year 1, or it falls before year 1000 (slugs sort times as
    text, four digits to a year)."""
    try:
        moment = moment.astimezone(UTC)
    except (OverflowError, ValueError):
        return None
    return moment if moment.year >= 1000 else None

