"""Importing comments from other systems: the engine the Disqus importer
(comments/transfer/disqus.py) and the WordPress one (cms/wxr/) share. A parser turns a
file into the records of comments/transfer/import_records.py; the engine matches threads to
posts (comments/transfer/import_threads.py) and writes comments faithfully, once, into
whichever comment store is in use.

The interface (stable; both importers build on it):

    importer = importing.Importer(source="disqus", dry_run=False)
    for item in parse(stream):                    # the source's parser
        if isinstance(item, import_records.SourceThread):
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
raises `error.after(report)`: the same error, saying what was written before it.
`import_files.read_xml(stream, tags=...)` is the streaming XML reader both parsers use:
it refuses entity declarations, external DTDs and external entities (nothing is ever
resolved) and hands out one small element at a time with its line.

What the engine guarantees:

- **Threading** as in the source: a reply goes under the parent it had (parents are
  written first; a reply read before its parent waits for it: in memory up to
  WAITING_LIMIT replies, beyond that in a scratch collection of the run's own,
  `comment_imports_waiting_<run>`, comments/transfer/import_waiting.py). One whose
  parent never comes, was refused, or is on another thread becomes top-level at the
  end and is reported as an orphan. A reply deeper than COMMENTS_MAX_DEPTH goes under
  the deepest allowed ancestor, as a posted reply would (reported).
- **Times** kept in UTC: `slug`/`full_slug` are built from the original time
  (comments/slugs.py), so the threaded and chronological orders are the original ones.
- **Statuses**: approved, pending, spam, deleted; a hidden comment with approved
  replies becomes a placeholder (comments/stores/summaries.py `repair_placeholders`).
- **Bodies**: the source's HTML is sanitised with the site's comment allow-lists
  (infra/markup.py) and turned into Markdown (links, emphasis, paragraphs, code;
  comments/transfer/import_text.py) as the comment's `text`, which edits well; `html` is
  `render_comment(text)`, both by worker processes a batch at a time, while this one
  reads on (comments/transfer/import_render.py: batches come back in order).
- **Moderation data**: author name, e-mail and IP are kept (`author.email`, `ip`);
  imported authors are anonymous commenters (`author.id` None). An author's web
  address (`author_url`) is not kept: comments have no field for it.
- **Every store**: comments are written as flat documents (`records.new_document`),
  a batch at a time, through `get_store().insert_documents` (the documents store's is
  one ordered `insert_many`), so each store keeps them its own way. A batch is stored
  by a thread of its own (comments/transfer/import_writer.py) while the next is parsed
  and rendered. Threads, parents and authors are resolved in memory (each author
  cleaned once, parents not in memory with one ledger query per batch). Placeholders,
  counters and the post's summary are brought up to date once per discussion at the end
  (`summaries.repair_placeholders`, counted by the `counters.recount` that follows it, then
  the summary, read from where it saw the newest; a few at once: comments/transfer/import_end.py),
  for the discussions a stopped run had written to too.
- **Once**: each comment stores `imported: {source, id}`, and its slug part is derived
  from that pair (`slugs.derived_part`), so a second copy of it is refused by the
  store's unique slug index whatever happens. The collection `comment_imports`
  (comments/transfer/import_ledger.py) maps `"<source>:<id>"` (its `_id`) to where the
  comment went: a second run skips what is there (counted as already imported) and finds
  the parents of late replies without scanning any store; a run stopped (killed) at any
  point is completed by the next. `dry_run` reads everything and writes nothing.

Memory: the engine holds the thread map, one batch being built, import_render.AHEAD
per worker being rendered, one being stored, at most WAITING_LIMIT of the replies
waiting for a parent (the others wait in the scratch collection), KNOWN_LIMIT recent
comments (older parents are looked up in `comment_imports`, and a batch's parents are
held while it is placed), import_authors.AUTHORS_HELD cleaned authors, up to
PLACEHOLDER_SLUGS_HELD slugs of hidden comments per discussion (past it, repaired then)
and the first ORPHANS_SHOWN orphans; a dry run keeps every source id it has seen (no
ledger) and writes nothing but, past WAITING_LIMIT, the scratch collection (dropped too).
"""

from __future__ import annotations

from collections import OrderedDict, deque
from functools import partial
from datetime import UTC

from bson import ObjectId

from comments import conf, slugs
from comments.posting import commenters
from comments.stores import get_store, summaries
from comments.transfer.import_authors import Authors
from comments.transfer.import_ledger import Placed, imported_id, ledger_key, look_up, record
from comments.transfer.import_records import (
    TIME_OUT_OF_RANGE, Refusal, Report, SourceComment, SourceThread, from_scratch, to_scratch, utc_time,
)
from comments.records import HIDDEN, STATUSES, CommentAuthor, new_document
from comments.transfer import import_end, import_render
from comments.transfer.import_render import Renderer, body_of
from comments.transfer.import_threads import create_draft, match_post
from comments.transfer.import_waiting import WaitingReplies
from comments.transfer.import_writer import Placement, Stored, Writer, store_batch
from infra.frozen import evolved

BATCH_SIZE = 500
# Recent comments kept as possible parents (older ones are looked up in the ledger).
KNOWN_LIMIT = 20_000
# Replies waiting for their parent kept in memory (whole, with their bodies); past it,
# they wait in a scratch collection of the run's own (comments/transfer/import_waiting.py).
WAITING_LIMIT = 2_000
PLACEHOLDER_SLUGS_HELD = 5_000  # hidden comments' slugs held per discussion; past it, repaired then
ANONYMOUS = "Anonymous"
ORPHANS_SHOWN = 100  # orphans named one by one in the report; the others are counted

# The formats `import_comments --format` reads besides JSON Lines: name -> the dotted
# path of a `run(*, path, dry_run, create_missing, progress, stdout, batch_size, ...)`
# (and `verbose`, passed only when asked for), and the options only that format takes.
# A host adds its own (the blog: WordPress).
FORMATS: dict[str, tuple[str, tuple[str, ...]]] = {"disqus": ("comments.transfer.disqus.run", ("mapping_path",))}


def register_format(name: str, run: str, *, options: tuple[str, ...] = ()) -> None:
    """Let `import_comments --format name` call `run` (a dotted path, imported when used)."""
    FORMATS[name] = (run, options)


UNKNOWN_THREAD = "its thread {thread!r} is not in the file"
THREAD_SKIPPED = "its thread matched no post"
THREAD_DELETED = "its thread is deleted in the source"
BAD_STATUS = "unknown status {status!r}"
NAIVE_TIME = "its time has no time zone"
SLUG_TAKEN = "another comment already has its slug"
ORPHAN = "{source} comment {id} (line {line}): its parent {parent} {why}; imported at the top level"
ORPHAN_MISSING = "is not in the file (or was refused)"
ORPHAN_ELSEWHERE = "is on another thread"


class Importer:
    """Writes the comments of one source (see the module docstring)."""

    def __init__(self, *, source: str, dry_run: bool = False, batch_size: int | None = None,
                 trust_names: bool = False, waiting_limit: int = WAITING_LIMIT, verbose: bool = False,
                 render_workers: int | None = None):
        self.source, self.dry_run, self.batch_size = source, dry_run, batch_size or get_store().import_batch
        self.report = Report(source=source, dry_run=dry_run, verbose=verbose)
        self.threads: dict[str, ObjectId | None] = {}
        self.pending: list[SourceComment] = []
        self.waiting = WaitingReplies(limit=waiting_limit, dump=to_scratch, load=from_scratch)  # read before their parent
        self.known: OrderedDict[str, Placed] = OrderedDict()
        self.deleted: set[str] = set()  # the keys of the threads deleted in the source
        self.touched: set[ObjectId] = set()  # the discussions written to
        self.changed: dict[ObjectId, set[str]] = {}  # hidden comments' slugs, for the end
        self.authors = Authors(trust_names=trust_names)  # each cleaned once
        self.max_depth = conf.get().max_depth
        self.writer: Writer[list[Placement], Stored] = Writer(partial(store_batch, source))
        self.renderer = Renderer(workers=import_render.RENDER_WORKERS if render_workers is None else render_workers)

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
        draft (`create_draft`) when none matches, else its comments are skipped. A
        thread deleted in the source is skipped with its comments, and reported."""
        if thread.deleted:
            self.threads[thread.key] = None
            self.deleted.add(thread.key)
            self.report.delete_thread(thread)
            return
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
            self.refuse(item.reason, line=item.line, source_id=item.id)
            return
        reason = self._problem(item)
        if reason in (THREAD_SKIPPED, THREAD_DELETED):
            self.skip(reason)
        elif reason:
            self.refuse(reason, line=item.line, source_id=item.id)
        else:
            who = self.authors.clean(item.author_name, item.author_email, by_source_author=item.by_source_author)
            if isinstance(who, commenters.Refused):
                self.refuse(str(who), line=item.line, source_id=item.id)
                return
            self.pending.append(evolved(item, author_name=who.name, author_email=who.email))
            if len(self.pending) >= self.batch_size:
                self.flush()

    def refuse(self, reason: str, *, line: int = 0, source_id: str = "") -> None:
        """A comment that cannot be imported, for `reason`: counted by reason and named
        by its line and id (the first import_records.REFUSALS_SHOWN)."""
        self.report.refuse(reason, line=line, source_id=source_id)

    def skip(self, reason: str) -> None:
        """A comment left out on purpose (a pingback, a thread with no post)."""
        self.report.skipped[reason] += 1

    def _problem(self, comment: SourceComment) -> str | None:
        if comment.thread not in self.threads:
            return UNKNOWN_THREAD.format(thread=comment.thread)
        if self.threads[comment.thread] is None:
            return THREAD_DELETED if comment.thread in self.deleted else THREAD_SKIPPED
        if comment.status not in STATUSES:
            return BAD_STATUS.format(status=comment.status)
        if comment.posted.tzinfo is None:
            return NAIVE_TIME
        if utc_time(comment.posted) is None:
            return TIME_OUT_OF_RANGE
        return None

    # Writing a batch.

    def flush(self) -> None:
        """Hand the comments taken so far to be rendered; write those rendered whose
        parent is known (the others wait), in order. An error ends the render workers."""
        batch, self.pending = self.pending, []
        try:
            for ready in self.renderer.submit(batch) if batch else ():
                self._place(ready)
        except BaseException:
            self.renderer.close()
            raise

    def _place(self, batch: list[SourceComment]) -> None:
        stored = self._look_up([c.id for c in batch])
        fresh = []
        for comment in batch:
            if comment.id in stored:
                self.report.already += 1
                self._remember(comment.id, stored[comment.id])
                self._touch(stored[comment.id], comment.status)  # a run stopped before its end: finish that too
            else:
                fresh.append(comment)
        fresh += self.waiting.take(comment.id for comment in batch if comment.id in stored)
        ids = {c.id for c in fresh}
        # Held for this batch: placing it makes `known` forget its oldest, maybe one of them.
        parents = {c.parent: self.known[c.parent] for c in fresh if c.parent and c.parent in self.known}
        unknown = [c.parent for c in fresh if c.parent and c.parent not in ids and c.parent not in parents]
        for parent_id, placed in self._look_up(unknown).items():
            self._remember(parent_id, placed)
            parents[parent_id] = placed
        self._write(fresh, parents=parents)

    def _write(self, comments: list[SourceComment], *, orphans: bool = False, parents: dict | None = None) -> None:
        """Place each comment under its parent (in `parents`, placed here or remembered),
        parents first, and store them. A reply whose parent is not placed yet waits for
        it; with `orphans`, the comments given go to the top level when their parent is
        nowhere. Stored a batch at a time; then the replies waiting for what was placed."""
        queue, documents, placed = deque(comments), [], []
        self.max_depth = conf.get().max_depth  # read once a batch, not once a reply
        here: dict[str, Placed] = dict(parents or {})
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

    def _document(self, comment: SourceComment, parent: Placed | None) -> tuple[dict, Placed]:
        """The flat document of `comment` under `parent`, and where it is placed
        (remembered)."""
        discussion_id = self.threads[comment.thread]
        assert discussion_id is not None, "add() skips the comments of a thread with no discussion"
        if comment.parent and (parent is None or parent.discussion_id != discussion_id):
            why = ORPHAN_MISSING if parent is None else ORPHAN_ELSEWHERE
            self.report.orphans_total += 1
            if len(self.report.orphans) < ORPHANS_SHOWN:
                self.report.orphans.append(ORPHAN.format(source=self.source, id=comment.id, line=comment.line,
                                                         parent=comment.parent, why=why))
            parent = None
        posted = comment.posted.astimezone(UTC)
        part = slugs.derived_part(ledger_key(self.source, comment.id))
        if parent is not None:  # a reply deeper than the site allows goes under the deepest ancestor
            allowed = parent.within_depth(self.max_depth)
            self.report.reattached += allowed is not parent
            parent = allowed
        if parent is None:
            slug, full_slug = slugs.root_slugs(posted=posted, part=part)
        else:
            slug, full_slug = slugs.child_slugs(parent_slug=parent.slug, parent_full_slug=parent.full_slug,
                                                posted=posted, part=part)
        text, html = body_of(comment)
        author = CommentAuthor(id=comment.author_id, name=comment.author_name.strip() or ANONYMOUS,
                               email=comment.author_email.strip())
        document = new_document(
            discussion_id=discussion_id, parent=None, slug=slug, full_slug=full_slug,
            posted=posted.replace(microsecond=posted.microsecond // 1000 * 1000), author=author, text=text,
            html=html, form_key=None, status=comment.status, ip=comment.ip.strip() or None,
        )
        document["_id"] = imported_id(source=self.source, source_id=comment.id, posted=posted)
        document["parent_id"] = parent.comment_id if parent else None
        document["imported"] = {"source": self.source, "id": comment.id}
        ids = (parent.ids if parent else ()) + (document["_id"],)
        hidden = comment.status in HIDDEN or bool(parent and parent.hidden)
        where = Placed(discussion_id, ids, slug, full_slug, hidden)
        self._remember(comment.id, where)
        return document, where

    def _store(self, placed: list[Placement]) -> None:
        """Hand the batch to the writer (not on a dry run), which stores and records it
        while the next batch is read; apply the outcome of the batch before it."""
        if self.dry_run or not placed:
            self.report.imported += len(placed) if self.dry_run else 0
            return
        self._apply(self.writer.submit(placed))

    def _apply(self, outcome: Stored | None) -> None:
        """Count a stored batch, refuse what was not stored (its slug is taken), and note
        the discussions and hidden comments it touched for the end."""
        if outcome is None:
            return
        missing = outcome.missing
        self.report.imported += outcome.inserted
        self.report.already += len(outcome.placed) - outcome.inserted - len(missing)
        for comment, document, where in outcome.placed:
            if document["_id"] in missing:
                self.refuse(SLUG_TAKEN, line=comment.line, source_id=comment.id)
                self.known.pop(comment.id, None)
            else:
                self._touch(where, comment.status)
                self.report.by_discussion[where.discussion_id] += 1

    def _touch(self, where: Placed, status: str) -> None:
        """A comment of this run is in its discussion: the discussion's counters and summary
        are refreshed at the end, and, if it is shown under a hidden comment, the
        placeholders above it (a few thousand slugs held per discussion at most). A hidden
        comment is a placeholder only with an approved reply, which names it so."""
        if self.dry_run:
            return
        self.touched.add(where.discussion_id)
        if where.hidden and status not in HIDDEN:
            held = self.changed.setdefault(where.discussion_id, set())
            held.add(where.slug)
            if len(held) >= PLACEHOLDER_SLUGS_HELD:
                self._repair_placeholders(where.discussion_id)

    def _repair_placeholders(self, discussion_id: ObjectId) -> None:
        held = sorted(self.changed.pop(discussion_id, ()))
        for part in (held[start:start + BATCH_SIZE] for start in range(0, len(held), BATCH_SIZE)):
            summaries.repair_placeholders(discussion_id=discussion_id, slugs_changed=part, recounted=True)

    # Remembering where comments went.

    def _remember(self, source_id: str, placed: Placed) -> None:
        self.known[source_id] = placed
        self.known.move_to_end(source_id)
        if not self.dry_run and len(self.known) > KNOWN_LIMIT:
            self.known.popitem(last=False)

    def _look_up(self, source_ids: list[str]) -> dict[str, Placed]:
        """Where the ledger says these source comments went (those it knows)."""
        return look_up(source=self.source, source_ids=source_ids) if source_ids else {}

    # The end.

    def finish(self, *, complete: bool = True) -> Report:
        """Write what is left; when the whole file was read (`complete`), the replies
        whose parent never came go to the top level (orphans, reported). Then, once
        per discussion written to, its placeholders, counters and summary."""
        try:
            self.flush()
            for ready in self.renderer.drain():
                self._place(ready)
            while complete and (roots := self.waiting.orphan_roots()):
                self._write(roots, orphans=True)
            self._apply(self.writer.wait())
        finally:
            self.renderer.close()
            self.writer.close()
            self.waiting.drop()
        import_end.settle(sorted(self.touched), repair=self._repair_placeholders)  # comments/transfer/import_end.py
        self.report.posts = len(self.touched)
        return self.report
