"""Benchmark: the readers' queries of posts on a blog of many posts, as the site sent
them before (the published filter beside the slug or the author, the index left to
the planner; the newest posts in one query) and now (`cms.posts.reading`: a post by
its slug alone, the filter applied to it in Python; an author's posts through
`author_created`, named; the lists newest first, the home page's, an author's and a
tag's, in windows of their date, infra/page_windows.py, with the hint the first read
leaves).

Makes --posts posts in a scratch database (copies of one post made by
`posts.create_post`: a tenth drafts, a twentieth scheduled, --authors authors, three
of --tags tags each), makes the table's statistics current on the dev database
(`devdb.statistics.analyze`: a production table has them long since), then runs each
query --repeat times, the two sides alternating, and prints each side's median and
fastest time, the index the server reads it from (`explain`) and whether both gave
the same posts; then the readers' other queries of posts (the home page's count, a
tag's count), unchanged, timed alone.

    MONGODB_URI=mongodb://127.0.0.1:<port>/ .venv/bin/python bench/post_queries.py --posts 5000

The scratch database is dropped at the end. Say which server the figures came from
whenever you quote them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

from bson import ObjectId

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import compare, load_average, timed  # noqa: E402


def blog_documents(model: dict, *, count: int, authors: int, tags: int, rng: random.Random,
                   now: datetime) -> list[dict]:
    """`count` copies of the stored post `model` as a blog holds them: post-N, a
    tenth drafts (N % 10 == 1), a twentieth scheduled N hours ahead (N % 20 == 2), the
    others published N hours ago; each by one of `authors` authors (author-K) with three
    of `tags` tags (tag-T)."""
    from cms.posts.store import DRAFT, PUBLISHED

    documents = []
    for n in range(count):
        status = DRAFT if n % 10 == 1 else PUBLISHED
        published = None if status == DRAFT else now + timedelta(hours=n if n % 20 == 2 else -n)
        author = rng.randrange(authors)
        documents.append({
            **model, "_id": ObjectId(), "slug": f"post-{n}", "status": status, "published": published,
            "created": now - timedelta(hours=n), "tags": rng.sample([f"tag-{t}" for t in range(tags)], 3),
            "author": {**model["author"], "id": author + 1, "username": f"author-{author}"},
        })
    return documents


def cases(db, count: int) -> dict[str, tuple[Callable[[], list], Callable[[], list]]]:
    """Each query: (as the site sent it before, the site's call now), both giving slugs
    (or a count)."""
    from cms import posts
    from cms.posts.reading import NEWEST_PUBLISHED, published_filter
    from cms.posts.store import NEWEST_CREATED, POST_FIELDS

    slug, author, tag = f"post-{count // 2}", "author-7", "tag-17"
    slugs = [f"post-{n}" for n in (count // 4, count // 2, count // 2 + 1, count // 2 + 2)]

    def listed(where: dict, order: list, skip: int = 0) -> Callable[[], list]:
        """A page of ten in one query, as the lists were read before."""
        return lambda: [d["slug"] for d in db.posts.find({**where, **published_filter()}, POST_FIELDS)
                        .sort(order).skip(skip).limit(10)]

    def slugs_of(call: Callable[[], list]) -> Callable[[], list]:
        return lambda: [post.slug for post in call()]

    def home(page: int) -> tuple[Callable[[], list], Callable[[], list]]:
        return (listed({}, NEWEST_PUBLISHED, skip=(page - 1) * 10),
                slugs_of(lambda: posts.published_page(page=page, per_page=10)))

    return {
        "a post by its slug": (
            lambda: [d["slug"] for d in db.posts.find({"slug": slug, **published_filter()}, POST_FIELDS)
                     .limit(1)],
            slugs_of(lambda: filter(None, [posts.get_published(slug)]))),
        "posts by slug (API)": (
            lambda: sorted(d["slug"] for d in db.posts.find({"slug": {"$in": slugs}, **published_filter()},
                                                            POST_FIELDS)),
            lambda: sorted(post.slug for post in posts.find_published_by_slugs(slugs))),
        "an author's page": (
            listed({"author.username": author}, NEWEST_CREATED),
            slugs_of(lambda: posts.author_published_page(username=author, skip=0, limit=10))),
        "an author's count": (
            lambda: [db.posts.count_documents({"author.username": author, **published_filter()})],
            lambda: [posts.count_author_published(username=author)]),
        "a tag's page": (
            listed({"tags": tag}, NEWEST_PUBLISHED),
            slugs_of(lambda: posts.tag_published_page(tag=tag, skip=0, limit=10))),
        "the home page": home(1),
        "the home page, page 10": home(10),
        "the home page, page 50": home(50),
    }


def unchanged() -> dict[str, Callable[[], list]]:
    """The other readers' queries, the same before and now: timed alone."""
    from cms import posts

    return {
        "a tag's count": lambda: [posts.count_tag_published(tag="tag-17")],
        "the home page's count": lambda: [posts.count_published()],
    }


def index_read(db, sent, call: Callable[[], list]) -> str:
    """The indexes the server reads the posts queries `call` sends from (`sent`: a
    registered tests.command_log.CommandCounter)."""
    from tests.plans import explain, indexes_used, sent_queries

    return ",".join(sorted(set().union(*(indexes_used(explain(db, command))
                                         for command in sent_queries(sent, call, "posts")))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--posts", type=int, default=5000)
    parser.add_argument("--authors", type=int, default=30)
    parser.add_argument("--tags", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=41)
    parser.add_argument("--seed", type=int, default=39)
    args = parser.parse_args()
    from tests.command_log import registered

    sent = registered()  # before the client is made: a client sees the listeners registered before it
    from bench import django_setup

    django_setup.setup()
    from django.conf import settings

    from cms import posts
    from cms.posts.store import AuthorSummary, ensure_indexes
    from devdb.statistics import analyze
    from infra import mongo

    settings.MONGODB_NAME = f"slugline_bench_{uuid.uuid4().hex[:8]}"
    mongo.reset_client()
    db = mongo.get_db()
    try:
        ensure_indexes(db)
        made = posts.create_post(title="A post", slug="model", content="A paragraph of the post.\n\n" * 8,
                                 author=AuthorSummary(id=1, username="author-0", name="An Author"),
                                 status=posts.PUBLISHED, published=datetime.now(timezone.utc))
        model = db.posts.find_one_and_delete({"_id": made.id})
        documents = blog_documents(model, count=args.posts, authors=args.authors, tags=args.tags,
                                   rng=random.Random(args.seed), now=datetime.now(timezone.utc))
        for start in range(0, len(documents), 1000):
            db.posts.insert_many(documents[start:start + 1000])
        analyzed = analyze(db.client.address, db.name, "posts")
        statistics_note = "made current" if analyzed else "as the server keeps them"
        print(f"{args.posts:,} posts; statistics {statistics_note}; "
              f"load average {load_average()}")
        print(f"{'query':<22}{'before ms':>10}{'(fastest)':>11}{'now ms':>9}{'(fastest)':>11}  "
              f"{'index before':<32}{'index now':<18}same")
        for name, (before, now) in cases(db, args.posts).items():
            c = compare(before, now, args.repeat)
            print(f"{name:<22}{c.before_ms:>10.2f}{c.before_fastest_ms:>11.2f}{c.now_ms:>9.2f}"
                  f"{c.now_fastest_ms:>11.2f}  {index_read(db, sent, before):<32}{index_read(db, sent, now):<18}"
                  f"{'yes' if c.same else 'NO'} ({c.found})")
        for name, call in unchanged().items():
            alone = timed(call, args.repeat)
            print(f"{name:<22}{'':>21}{statistics.median(alone) * 1000:>9.2f}{min(alone) * 1000:>11.2f}  "
                  f"{'':<32}{index_read(db, sent, call):<18}(unchanged)")
        print(f"load average after: {load_average()}")
    finally:
        mongo.get_client().drop_database(settings.MONGODB_NAME)


if __name__ == "__main__":
    main()
