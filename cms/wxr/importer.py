"""Importing a WordPress export: its posts created or matched, their comments handed
to the comments app's import engine (comments.api's `Importer`), and the run's end summary (see the
package's docstring for what is imported, and why)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import BinaryIO, TextIO
from urllib.parse import urlsplit

from bson import ObjectId
from django.contrib.auth import get_user_model

from cms import authors, posts
from cms.comments_host import IMPORT_AUTHOR
from cms.posts import EXCERPT_MAX_LENGTH, MAX_TAGS, SLUG_MAX_LENGTH
from cms.wxr.content import html_to_markdown, post_slug, post_tags
from cms.wxr.parse import Channel, WxrItem, iter_items
from cms.wxr.records import source_comment, utc
from comments.api import (
    BadSource, EmptySource, ImportReport, Importer, SourceThread, forget_reserved_names,
    open_import_file,
)
from infra.html_text import html_text

SOURCE = "wordpress"

# `wp:status` of a post to ours; anything else (pending review, private) is a draft.
POST_STATUSES = {"publish": posts.PUBLISHED, "future": posts.SCHEDULED}
SKIPPED_POST_STATUSES = ("trash", "auto-draft")
ITEM_SKIPPED = "{type} items"
TRASHED = "posts in the trash"
SLUG_MADE = "post {id} (line {line}): slug {slug!r} made from {source!r}"
TAGS_DROPPED = "post {slug!r}: tags left out ({reason}): {tags}"
AUTHOR_CREATED = "author {username!r} created (no password, no dashboard access)"
AUTHOR_TAKEN = (
    "author {login!r}: that username and wp-{login} are readers' accounts; posts signed as imported"
)
NOTES_SHOWN = 20
MORE_NOTES = "... and {more} more {kind}"
NO_POSTS = (
    "The file held no WordPress posts{skipped}: nothing was imported. Is it a WordPress export "
    "(WXR), in WordPress's namespace (http:// or https://wordpress.org/export/1.x/)?"
)


@dataclass
class Outcome:
    """A run's end summary: the engine's report and what this importer adds to it."""

    report: ImportReport
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


class WordPressImport:
    """One run over an export: posts created or matched, comments to the engine."""

    def __init__(
        self,
        *,
        dry_run: bool,
        comments_only: bool,
        create_missing: bool,
        batch_size: int | None = None,
        trust_names: bool = False,
        verbose: bool = False,
    ):
        self.verbose = verbose
        self.dry_run, self.comments_only, self.create_missing = dry_run, comments_only, create_missing
        self.batch_size = batch_size
        self.trust_names = trust_names
        self.channel = Channel()
        self.importer: Importer | None = None
        self.outcome: Outcome | None = None
        self.slugs: dict[str, str] = {}  # slug -> the WordPress post id it came from
        self.authors: dict[str, posts.AuthorSummary] = {}
        self.posts_read = 0  # items of type post taken (trashed ones too)

    def engine(self) -> Importer:
        """The engine, made at the first item (the site's name comes before it)."""
        if self.importer is None:
            self.importer = Importer(
                source=source_name(self.channel.site), dry_run=self.dry_run, batch_size=self.batch_size,
                trust_names=self.trust_names, verbose=self.verbose,
            )
            self.outcome = Outcome(report=self.importer.report)
        return self.importer

    def read(self, stream: BinaryIO) -> Outcome:
        try:
            for item in iter_items(stream, self.channel):
                self.take(item)
        except BadSource as exc:
            report = self.engine().finish(complete=False)
            raise exc.after(report, posts_created=self.outcome.posts_created) from None
        self.engine().finish()
        return self.outcome

    def nothing_read(self) -> str | None:
        """NO_POSTS, with what was skipped, when the file held no post (nothing was
        imported: a WordPress.com export in a namespace not known would otherwise end
        quietly as "skipped: 186 untyped items"); else None."""
        if self.posts_read:
            return None
        skipped = ", ".join(f"{n} {what}" for what, n in sorted(self.outcome.items_skipped.items()))
        return NO_POSTS.format(skipped=f" (skipped: {skipped})" if skipped else "")

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
            self.posts_read += item.post_type == "post"
            return
        self.posts_read += 1
        slug = self._slug(item)
        thread = SourceThread(
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
                                    channel=self.channel, accounts=self.authors)
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
            forget_reserved_names()  # their name is reserved for the comments that follow
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
    batch_size: int | None = None,
    trust_names: bool = False,
    verbose: bool = False,
) -> Outcome:
    """`import_comments --format wordpress PATH`: import the export's posts with their
    comments (or, `comments_only`, only comments onto the posts here with the same
    slugs, creating the missing posts with `create_missing`), with a progress bar of
    the file read, then write the end summary to `stdout`. BadSource for a
    malformed file, after writing the whole posts before the fault and the summary (its
    message says what was written); EmptySource, after the summary, for a file that
    held no post. Commenters' names
    and addresses are cleaned as the comment form's (an author's name refused unless
    `trust_names`: comments/posting/commenters.py). `verbose`: a line per discussion
    written to."""
    job = WordPressImport(
        dry_run=dry_run, comments_only=comments_only, create_missing=create_missing, batch_size=batch_size,
        trust_names=trust_names, verbose=verbose,
    )
    with open_import_file(path, progress=progress) as stream:
        try:
            outcome = job.read(stream)
        except BadSource:
            _write(job.outcome, stdout)  # what the run let in before the fault
            raise
    _write(outcome, stdout)
    if (empty := job.nothing_read()) is not None:
        raise EmptySource(empty)
    return outcome


def _write(outcome: Outcome | None, stdout: TextIO | None) -> None:
    if stdout is not None and outcome is not None:
        for line in outcome.lines():
            stdout.write(line + "\n")
