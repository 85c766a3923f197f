"""Deterministic demo content: authors, posts and threaded comments.

The same seed gives the same authors, posts, comment texts, thread shapes, times
and slugs, so demos and benchmarks are repeatable.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from pymongo.errors import DuplicateKeyError
from django.utils.text import slugify

from cms import posts
from cms.authors import create_author, summary_for
from cms.dashboard.permissions import EDITORS_GROUP
from comments import services, slugs
from comments.store import CommentAuthor

# The demo editor (in the Editors group); the others are authors.
EDITOR = "bruno"
AUTHORS = [
    ("ada", "Ada Lindqvist", "Writes about databases and the people who run them."),
    ("bruno", "Bruno Okafor", "Editor. Cares about clear sentences and fast pages."),
    ("chen", "Chen Mei", "Builds things on the web; reads the comments."),
]
TOPICS = [
    "indexes", "sharding", "threaded comments", "page speed", "moderation", "Markdown",
    "replica sets", "caching", "pagination", "server rendering", "forms", "time zones",
]
FORMS = [
    "What I learned about {}", "A field guide to {}", "Ten years of {}",
    "Why {} still matters", "Getting {} right", "Notes on {}",
]
WORDS = (
    "the a we it this that data page reader comment thread reply index query sort "
    "slug cluster shard cache form post editor time fast slow simple clear right "
    "wrong because when while after before always never maybe really quite very "
    "server browser model document field value order depth"
).split()
COMMENTERS = ["Maya", "Theo", "Priya", "Jonas", "Amara", "Luis", "Ines", "Kofi", "Sana", "Oskar"]
START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Seeded:
    authors: int
    posts: int
    comments: int


def _sentence(rng: random.Random, low: int = 6, high: int = 16) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    return " ".join(words).capitalize() + rng.choice([".", ".", ".", "?", "!"])


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randint(2, 5)))


def _post_content(rng: random.Random, topic: str) -> str:
    parts = [_paragraph(rng), f"## Why {topic}", _paragraph(rng)]
    if rng.random() < 0.5:
        parts.append("\n".join(f"- {_sentence(rng, 3, 7)}" for _ in range(3)))
    parts.append(_paragraph(rng))
    return "\n\n".join(parts)


def _comment_text(rng: random.Random) -> str:
    text = _sentence(rng)
    if rng.random() < 0.3:
        text += "\n" + _sentence(rng)
    if rng.random() < 0.1:
        text += "\n\n**Agreed** on the main point."
    return text


def _authors():
    """The demo authors (with unusable passwords: see README for logging in as one)."""
    users = []
    for username, name, bio in AUTHORS:
        user = get_user_model().objects.filter(username=username).first()
        users.append(user or create_author(username=username, display_name=name, bio=bio))
    editors, _ = Group.objects.get_or_create(name=EDITORS_GROUP)
    editors.user_set.add(*[user for user in users if user.get_username() == EDITOR])
    return users


def _comment_count(rng: random.Random, per_post: int | None) -> int:
    """A long tail: most posts get a few comments, some get many."""
    if per_post is not None:
        return per_post
    return min(int(rng.paretovariate(1.2) * 4) - 4, 120)


def seed_comments(*, post: posts.Post, count: int, rng: random.Random, start: datetime) -> int:
    """Add `count` threaded comments of varied depth and timing to `post`."""
    posted: list[str] = []
    moment = start
    for _ in range(count):
        # Mostly minutes apart, sometimes in the same second.
        moment += timedelta(seconds=rng.choice([0, 1, 30, 120, 600, 3600]) + rng.random())
        parent = None
        if posted and rng.random() < 0.65:
            # Recent comments draw most replies, which makes deep threads.
            parent = posted[-1 - min(int(rng.expovariate(0.5)), len(posted) - 1)]
        name = rng.choice(COMMENTERS)
        result = services.post_comment(
            post=post,
            text=_comment_text(rng),
            author=CommentAuthor(id=None, name=name, email=f"{name.lower()}@example.com"),
            parent_slug=parent,
            at=moment,
            new_part=lambda: "".join(rng.choice(slugs.PART_ALPHABET) for _ in range(slugs.PART_LENGTH)),
            summarise=False,
        )
        posted.append(result.comment.slug)
    services.refresh_summary(post_id=post.id)
    return count


def _create_post(*, slug: str, **fields) -> posts.Post:
    """Create a post, suffixing its slug if a post already has it (`--force` runs)."""
    for n in range(1, 100):
        try:
            return posts.create_post(slug=slug if n == 1 else f"{slug}-{n}", **fields)
        except DuplicateKeyError:
            continue
    raise RuntimeError(f"no free slug near {slug!r}")


def seed(*, num_posts: int = 12, comments_per_post: int | None = None, seed: int = 1) -> Seeded:
    """Create the demo authors, `num_posts` published posts and their comments."""
    rng = random.Random(seed)
    authors = _authors()
    total_comments = 0
    for i in range(num_posts):
        topic = TOPICS[i % len(TOPICS)]
        title = rng.choice(FORMS).format(topic)
        title = title[0].upper() + title[1:]
        published = START - timedelta(hours=40 * (num_posts - i) + rng.randint(0, 10))
        post = _create_post(
            title=title,
            slug=f"{slugify(title)[:60].strip('-')}-{i + 1}",
            content=_post_content(rng, topic),
            author=summary_for(authors[i % len(authors)]),
            tags=sorted(rng.sample(TOPICS, 2)),
            status=posts.PUBLISHED,
            published=published,
            created=published,
        )
        total_comments += seed_comments(
            post=post, count=_comment_count(rng, comments_per_post), rng=rng, start=published
        )
    return Seeded(authors=len(authors), posts=num_posts, comments=total_comments)
