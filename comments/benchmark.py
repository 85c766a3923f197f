"""The three comment stores side by side (`python manage.py comments_bench`).

Builds the same comments in each store, in a scratch database of its own: D
discussions with a long-tailed number of comments (the largest has --max-comments,
the i-th about max / i^tail, at least one), threaded as readers thread them (most
replies go to recent comments; depth capped by COMMENTS_MAX_DEPTH). Then, store by
store, it times what the site does with them, through the store interface the site
uses (comments.stores.get_store(), and comments/reading/listers.py for whole pages):

  post a reply     find the parent by its slug, insert the reply
  threaded page 1  listers.list_comments: the tally and the first page
  deep page        the same, page N (default 100, or the last page)
  permalink        find one comment by its slug
  sub-thread       a root comment and all its replies
  count            a discussion's approved comments

Each operation runs --repeat times on the largest discussion (posting spreads over
the discussions) and is reported as median and p95 time, MongoDB commands, and bytes
read (the BSON size of the server's replies, counted by pymongo's command monitoring;
encoding them again to count is inside the timed work, a few ms per MB).

The figures come from whatever server MONGODB_URI names: without it, the dev database
(FerretDB v2 on PostgreSQL with DocumentDB). Say which server the table came from
whenever you quote it.
"""

from __future__ import annotations

import random
import statistics
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from bson import ObjectId
from django.conf import settings
from pymongo import monitoring

from comments import conf, slugs
from comments.reading import listers
from comments.records import APPROVED, Comment, CommentAuthor, new_document
from comments.stores import CommentStore, counters, get_store, store_switch
from infra import conf as infra_conf, mongo
from infra.metering import Meter, median_and_p95_ms

OPERATIONS = ("post a reply", "threaded page 1", "deep page", "permalink", "sub-thread", "count")
NAMES = ("Ada", "Bo", "Chen", "Dara", "Eli", "Fen", "Gus", "Hana")
WORDS = "the a store page thread reply comment bucket shard index query document tree".split()


METER = Meter(count_bytes=True)
monitoring.register(METER)


@dataclass
class Row:
    times: list[float] = field(default_factory=list)
    commands: list[int] = field(default_factory=list)
    bytes: list[int] = field(default_factory=list)

    def add(self, seconds: float, commands: int, read: int) -> None:
        self.times.append(seconds)
        self.commands.append(commands)
        self.bytes.append(read)

    def median_ms(self) -> float:
        return median_and_p95_ms(self.times)[0]

    def p95_ms(self) -> float:
        return median_and_p95_ms(self.times)[1]


def sizes(*, discussions: int, max_comments: int, tail: float) -> list[int]:
    """A long tail: the i-th discussion has about max_comments / i^tail comments."""
    return [max(1, round(max_comments / (i ** tail))) for i in range(1, discussions + 1)]


def discussion_documents(*, discussion_id: ObjectId, count: int, rng: random.Random, start: datetime) -> list[dict]:
    """`count` flat comment documents of one discussion, threaded, oldest first."""
    docs: list[dict] = []
    moment = start
    max_depth = conf.get().max_depth
    for _ in range(count):
        moment += timedelta(seconds=rng.choice([0, 1, 30, 120, 600]) + rng.random())
        part = "".join(rng.choice(slugs.PART_ALPHABET) for _ in range(slugs.PART_LENGTH))
        parent = None
        if docs and rng.random() < 0.65:
            parent = docs[-1 - min(int(rng.expovariate(0.3)), len(docs) - 1)]
            if slugs.depth(parent["slug"]) + 1 >= max_depth:
                parent = None
        if parent:
            slug, full_slug = slugs.child_slugs(parent_slug=parent["slug"], parent_full_slug=parent["full_slug"],
                                                posted=moment, part=part)
        else:
            slug, full_slug = slugs.root_slugs(posted=moment, part=part)
        name = rng.choice(NAMES)
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 60)))
        docs.append(new_document(
            discussion_id=discussion_id, parent=Comment.from_doc(parent) if parent else None, slug=slug,
            full_slug=full_slug, posted=moment, author=CommentAuthor(id=None, name=name, email=f"{name}@example.com"),
            text=text, html=f"<p>{text}</p>", form_key=None, status=APPROVED, ip="192.0.2.1",
        ))
    return docs


def insert_discussion(store: CommentStore, *, discussion_id: ObjectId, count: int, rng: random.Random, start: datetime) -> int:
    """Insert `count` comments of one new discussion into `store`, in
    batches of 1,000 (the documents every store imports); how many went in.
    On DocumentDB each insert's check of the unique `{discussion_id, slug}` index
    grows with the discussion, and no order, batch or primitive that keeps that index
    avoids it (docs/performance.md, "Loading a big discussion"). Counted once at the
    end, as an import is (`counters.recount`), when `store` is the one in use."""
    inserted = insert_batches(store, discussion_documents(discussion_id=discussion_id, count=count, rng=rng,
                                                          start=start))
    if store.name == get_store().name:
        counters.recount(discussion_id, store=store)
    return inserted


def insert_batches(store: CommentStore, docs: list[dict], size: int = 1000) -> int:
    """Insert flat comment documents into `store`, `size` at a time (the
    server refuses very large write batches); how many went in."""
    return sum(store.insert_documents(documents=docs[i:i + size]) for i in range(0, len(docs), size))


def build(*, name: str, data: dict[ObjectId, list[dict]]) -> float:
    """Put the same comments into store `name`; returns the seconds it took."""
    store = get_store(name)
    store.ensure_indexes(mongo.get_db())
    began = time.perf_counter()
    for docs in data.values():
        insert_batches(store, docs)
    return time.perf_counter() - began


def measure(action: Callable[[], object], row: Row) -> None:
    METER.start()
    began = time.perf_counter()
    try:
        action()
    finally:
        METER.stop()
    row.add(time.perf_counter() - began, METER.commands, METER.bytes)


def run_store(
    *, name: str, data: dict[ObjectId, list[dict]], repeat: int, deep_page: int, rng: random.Random,
) -> dict[str, Row]:
    """Time every operation on store `name` (the site's store for the while)."""
    settings.COMMENTS_STORE = name
    settings.COMMENTS_STORE_RECHECK_SECONDS = 24 * 3600  # read once, here, not inside a timed operation
    store_switch.forget()
    store = get_store()
    largest = max(data, key=lambda d: len(data[d]))
    docs = data[largest]
    roots = [d for d in docs if "/" not in d["slug"]]
    busiest_root = max(roots, key=lambda r: sum(d["slug"].startswith(r["slug"] + "/") for d in docs))
    settings_now = conf.get()  # read once, here, not inside a timed operation
    last_page = max(1, -(-len(docs) // settings_now.per_page))
    page = str(min(deep_page, last_page))
    rows = {operation: Row() for operation in OPERATIONS}
    ids = list(data)
    for n in range(repeat):
        where = rng.choice(ids)
        parent_slug = rng.choice(data[where])["slug"]
        when = datetime.now(timezone.utc) + timedelta(microseconds=n)

        def post_reply() -> None:
            parent = store.find_by_slug(discussion_id=where, slug=parent_slug)
            if parent is None:
                raise LookupError(f"the seeded comment {parent_slug} of {where} is missing")
            part = slugs.new_part()
            if slugs.depth(parent.slug) + 1 >= settings_now.max_depth:
                slug, full_slug = slugs.root_slugs(posted=when, part=part)
                under: Comment | None = None
            else:
                slug, full_slug = slugs.child_slugs(parent_slug=parent.slug, parent_full_slug=parent.full_slug,
                                                    posted=when, part=part)
                under = parent
            store.insert_comment(discussion_id=where, parent=under, slug=slug, full_slug=full_slug,
                                 posted=when,
                                 author=CommentAuthor(id=None, name="Bench", email="bench@example.com"),
                                 text="A reply.", html="<p>A reply.</p>")

        measure(post_reply, rows["post a reply"])
        measure(lambda: listers.list_comments(discussion_id=largest, view="threaded"),
                rows["threaded page 1"])
        measure(lambda: listers.list_comments(discussion_id=largest, view="threaded", page=page),
                rows["deep page"])
        slug = rng.choice(docs)["slug"]
        measure(lambda: store.find_by_slug(discussion_id=largest, slug=slug), rows["permalink"])
        root = Comment.from_doc(busiest_root)
        measure(lambda: store.find_subthread(comment=root), rows["sub-thread"])
        measure(lambda: store.count_approved(discussion_id=largest), rows["count"])
    return rows


def table(results: dict[str, dict[str, Row]]) -> str:
    names = list(results)
    head = f"| operation | {' | '.join(names)} |"
    lines = [
        "median ms / p95 ms / MongoDB commands / KiB read, per operation",
        "",
        head,
        "|---|" + "---|" * len(names),
    ]
    for operation in OPERATIONS:
        cells = []
        for name in names:
            row = results[name][operation]
            cells.append(
                f"{row.median_ms():.1f} / {row.p95_ms():.1f} / {statistics.median(row.commands):g} / "
                f"{statistics.median(row.bytes) / 1024:.1f}"
            )
        lines.append(f"| {operation} | {' | '.join(cells)} |")
    return "\n".join(lines)


def server_name() -> str:
    """What answered: MongoDB's version, and FerretDB's where FerretDB serves it."""
    facts = mongo.server_facts()
    ferretdb = (facts.get("ferretdb") or {}).get("version") or facts.get("ferretdbVersion")
    mongodb = f"MongoDB {facts.get('version', '?')}"
    return f"FerretDB {ferretdb} on PostgreSQL with DocumentDB (reports {mongodb})" if ferretdb else mongodb


def main(
    *, discussions: int, max_comments: int, tail: float, repeat: int, deep_page: int, seed: int,
    stores: list[str], out: Callable[[str], None],
) -> dict[str, dict[str, Row]]:
    """Build the data in a scratch database, time each store, print the table."""
    rng = random.Random(seed)
    counts = sizes(discussions=discussions, max_comments=max_comments, tail=tail)
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    data = {}
    for n in counts:
        discussion_id = ObjectId()
        data[discussion_id] = discussion_documents(discussion_id=discussion_id, count=n, rng=rng, start=start)
    saved_name, saved_store, recheck = (
        getattr(settings, "MONGODB_NAME", ""), conf.get().store, conf.get().store_recheck_seconds)
    settings.MONGODB_NAME = f"slugline_bench_{uuid.uuid4().hex[:8]}"
    out(f"Server: {server_name()}; scratch database {settings.MONGODB_NAME}")
    out(f"{discussions} discussions, {sum(counts)} comments per store (largest {max(counts)}, median "
        f"{int(statistics.median(counts))}), {repeat} runs of each operation on the largest; "
        f"deep page = page {deep_page} of {conf.get().per_page}")
    results = {}
    try:
        for name in stores:
            seconds = build(name=name, data=data)
            out(f"  built {name} in {seconds:.1f} s")
            results[name] = run_store(name=name, data=data, repeat=repeat, deep_page=deep_page,
                                      rng=random.Random(seed))
    finally:
        mongo.get_client().drop_database(infra_conf.db_name())
        settings.MONGODB_NAME, settings.COMMENTS_STORE = saved_name, saved_store
        settings.COMMENTS_STORE_RECHECK_SECONDS = recheck
        store_switch.forget()
    out("")
    out(table(results))
    return results
