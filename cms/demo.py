"""Demo content: the demo authors, posts about what this site is about, and
discussions that read like people talking, in each of the site's languages (their texts are content in cms.demo_content, one
module per language; this module turns them into a site).

The posts and most comments are written out; long discussions are filled from a
bank of remarks and replies in the post's language, each used at most once per
discussion until the bank runs dry. Everything but the clock is deterministic for a seed: which posts and in
what order, the texts, thread shapes, commenters, slugs and every time *relative to
the moment of seeding*. Posts are spread over the last eight months, discussions over
the months after each post, and a few are still going: their latest comments are
minutes old. Nothing is dated in the future.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from pymongo.errors import DuplicateKeyError

from cms import posts
from cms.authors import create_author, summary_for
from cms.demo_content import Article, Commenter, Voice, english, hindi, indonesian, vietnamese
from cms.roles import EDITORS_GROUP
from comments import api as comments_api

# The demo editor (in the Editors group); the others are authors.
EDITOR = "bruno"
AUTHORS = [
    *english.AUTHORS,
    *vietnamese.AUTHORS,
    *hindi.AUTHORS,
    *indonesian.AUTHORS,
]
# Posts are published over this many days before the moment of seeding.
POSTS_SPAN_DAYS = 240
# Comments per post when not given: a long tail (some posts get none, a few get
# enough for several pages); each seed deals it out to different posts.
LONG_TAIL = (0, 0, 1, 2, 3, 4, 5, 6, 8, 9, 11, 13, 16, 22, 30, 58, 80)
# The same for posts in the other languages, which have fewer readers here: none is
# empty (each has written exchanges to show) and none outgrows its language's bank.
SHORT_TAIL = (4, 6, 8, 11, 14, 19, 27)
# Discussions of at least this many comments include one long back-and-forth.
DEBATE_FROM = 25
# How many of the newest discussions (and the longest one) are still going.
LIVELY = 2


@dataclass(frozen=True)
class Seeded:
    authors: int
    posts: int
    comments: int


@dataclass(frozen=True)
class Line:
    """One planned comment: who says what, in answer to which earlier line (index).
    Others may chime in when it is `open` (not a question, a thanks or the last word
    of an exchange) and not itself the end of a run of `chimes` from the bank."""

    parent: int | None
    speaker: Commenter
    text: str
    open: bool = True
    chimes: int = 0



# --- Discussions ----------------------------------------------------------------------


def speaker_and_text(line: str) -> tuple[str, str]:
    """("A", "text") from a line of an exchange, "A: text"."""
    speaker, _, text = line.partition(": ")
    return speaker, text


def bank(language: str | None = None) -> frozenset[str]:
    """Every comment text the demo can post in `language` (default: in any language);
    a reply may add "@Name " in front."""
    voices = [VOICES[language]] if language else list(VOICES.values())
    exchanges = [*(debate for voice in voices for debate in voice.debates),
                 *(talk for article in ARTICLES for talk in article.talk
                   if language in (None, article.language))]
    lines = {speaker_and_text(line)[1] for exchange in exchanges for line in exchange}
    pools = [pool for voice in voices for pool in (*voice.replies.values(), voice.remarks)]
    return frozenset(lines | {text for pool in pools for text in pool})


class _Bank:
    """One discussion's draws from its voice's remarks and replies, without
    replacement; a discussion longer than the bank starts it over."""

    def __init__(self, rng: random.Random, voice: Voice):
        self.rng, self.voice = rng, voice
        self.pools = {**voice.replies, "remark": voice.remarks}
        self.left = {kind: rng.sample(pool, len(pool)) for kind, pool in self.pools.items()}

    def take(self, kind: str) -> str:
        """A text of `kind`, or of another kind of reply when that one ran out."""
        replies = self.voice.replies
        kinds = [kind] + [k for k in replies if kind in replies and k not in (kind, "thanks")]
        if not any(self.left[k] for k in kinds):
            for k in kinds:
                self.left[k] = self.rng.sample(self.pools[k], len(self.pools[k]))
        return next(self.left[k].pop() for k in kinds if self.left[k])


@dataclass
class _Exchange:
    lines: list[str]
    speakers: dict[str, Commenter]
    parent: int | None = None
    said: int = 0

    @property
    def done(self) -> bool:
        return self.said == len(self.lines)


def _start_exchange(
    exchange: tuple[str, ...], rng: random.Random, host: Commenter | None, cast: tuple[Commenter, ...]
) -> _Exchange:
    people = rng.sample(cast, 4)
    speakers = {"A": people[0], "B": people[1], "C": people[2], "@": host or people[3]}
    return _Exchange(lines=list(exchange), speakers=speakers)


def _reply_to(plan: list[Line], rng: random.Random) -> int | None:
    """An earlier open comment to chime in on, recent ones most often (which makes
    deep threads); the bank's replies answer no questions."""
    for _ in range(6):
        index = len(plan) - 1 - min(int(rng.expovariate(0.35)), len(plan) - 1)
        if plan[index].open and plan[index].chimes < 2 and not plan[index].text.endswith("?"):
            return index
    return None


def _someone(rng: random.Random, used: set, *, cast: tuple[Commenter, ...], parent: int | None,
             text: str, besides: Commenter | None = None) -> Commenter:
    """A commenter of `cast` (not `besides`) who has not said `text` under `parent` yet:
    the same words by the same person in the same place would be taken for a double post."""
    others = [c for c in cast if c != besides]
    speaker = rng.choice(others)
    for _ in range(8):
        if (speaker, parent, text) not in used:
            break
        speaker = rng.choice(others)
    return speaker


def _bank_reply(plan: list[Line], bank_: _Bank, rng: random.Random, used: set) -> Line | None:
    """A reply from the bank to an earlier comment: thanks for an answer (from whoever
    asked), or agreement, a doubt or a follow-up question (from someone else)."""
    parent = _reply_to(plan, rng)
    if parent is None:
        return None
    above = plan[parent]
    asked = plan[above.parent] if above.parent is not None else None
    thanks = (asked is not None and asked.text.endswith("?") and asked.speaker != above.speaker
              and ("thanks", parent) not in used and rng.random() < 0.6)
    if thanks:
        used.add(("thanks", parent))
        speaker, text = asked.speaker, bank_.take("thanks")
    else:
        text = bank_.take(rng.choices(["agree", "follow_up", "doubt"], weights=[40, 30, 30])[0])
        speaker = _someone(rng, used, cast=bank_.voice.commenters, parent=parent, text=text,
                           besides=above.speaker)
    if rng.random() < 0.2:
        text = f"@{above.speaker.first_name} {text}"
    return Line(parent=parent, speaker=speaker, text=text, open=not thanks, chimes=above.chimes + 1)


def plan_discussion(
    *,
    count: int,
    rng: random.Random,
    talk: tuple[tuple[str, ...], ...] = (),
    host: Commenter | None = None,
    voice: Voice | None = None,
) -> list[Line]:
    """`count` comments in posting order: the post's exchanges (`talk`, and in long
    discussions a debate) interleaved with remarks and replies from the bank of
    `voice` (default English), said by its commenters. `host` speaks the post
    author's lines."""
    voice = voice or english.VOICE
    waiting = list(talk)
    rng.shuffle(waiting)
    if count >= DEBATE_FROM:
        waiting.insert(rng.randrange(len(waiting) + 1), rng.choice(voice.debates))
    bank_, running, plan, used = _Bank(rng, voice), [], [], set()
    while len(plan) < count:
        roll = rng.random()
        line = None
        if running and roll < 0.5:
            exchange = rng.choice(running)
            speaker, text = speaker_and_text(exchange.lines[exchange.said])
            line = Line(parent=exchange.parent, speaker=exchange.speakers[speaker], text=text,
                        open=exchange.said + 1 < len(exchange.lines))
            exchange.parent, exchange.said = len(plan), exchange.said + 1
            if exchange.done:
                running.remove(exchange)
        elif waiting and (roll < 0.8 or not plan):
            running.append(_start_exchange(waiting.pop(), rng, host, voice.commenters))
            continue
        elif plan and roll < 0.93:
            line = _bank_reply(plan, bank_, rng, used)
        if line is None:
            text = bank_.take("remark")
            speaker = _someone(rng, used, cast=voice.commenters, parent=None, text=text)
            line = Line(parent=None, speaker=speaker, text=text, open=text not in voice.praise)
        used.add((line.speaker, line.parent, line.text))
        plan.append(line)
    return plan


def comment_times(
    *, count: int, rng: random.Random, start: datetime, end: datetime, recent: int = 0
) -> list[datetime]:
    """`count` ascending times after `start`, most soon after it and fewer as time goes
    on, the last at most `end`; the last `recent` of them within the hour before `end`, the
    very last at `end`. Offsets are whole milliseconds, as MongoDB keeps them. A start
    less than `count` seconds before `end` (a post created just now) spreads them over
    `count` seconds instead, past `end`."""
    span = max(end - start, timedelta(seconds=count))
    span_ms = int(span / timedelta(milliseconds=1))
    recent = min(recent, count)
    offsets = [int(span_ms * rng.random() ** 2.5) for _ in range(count - recent)]
    hour_ms = min(3_600_000, span_ms)
    offsets += [span_ms - int(hour_ms * rng.random()) for _ in range(recent - 1)] + [span_ms] * (recent > 0)
    return [start + timedelta(milliseconds=offset) for offset in sorted(offsets)]


def seed_comments(
    *,
    post: posts.Post,
    count: int,
    rng: random.Random,
    start: datetime,
    end: datetime | None = None,
    talk: tuple[tuple[str, ...], ...] = (),
    host: Commenter | None = None,
    recent: int = 0,
    voice: Voice | None = None,
) -> int:
    """Add `count` threaded comments to `post`, posted between `start` and `end` (now),
    in the language of `voice` (default English); see plan_discussion and comment_times."""
    voice = voice or english.VOICE
    end = end or datetime.now(timezone.utc).replace(microsecond=0)
    close_after_days = comments_api.close_after_days()
    if close_after_days > 0 and post.published is not None:
        # The discussion happens while it is open (comments close with age).
        closes = post.published + timedelta(days=close_after_days) - timedelta(minutes=1)
        end = max(start + timedelta(minutes=count + 1), min(end, closes))
    plan = plan_discussion(count=count, rng=rng, talk=talk, host=host, voice=voice)
    times = comment_times(count=count, rng=rng, start=start, end=end, recent=recent)
    posted: list[str] = []
    for line, moment in zip(plan, times):
        speaker = line.speaker
        for _ in range(10):
            result = comments_api.post_comment(
                post=post,
                text=line.text,
                author=speaker.as_author(),
                parent_slug=None if line.parent is None else posted[line.parent],
                at=moment,
                new_part=lambda: comments_api.seeded_slug_part(rng),
                summarise=False,
            )
            # Only a discussion longer than the bank repeats a text; said again by the
            # same person minutes later, the service takes it for a double post.
            if not result.duplicate:
                break
            speaker = rng.choice(voice.commenters)
        posted.append(result.comment.slug)
    comments_api.refresh_summary(discussion_id=post.id)
    return count


# --- Posts ----------------------------------------------------------------------------


def _authors():
    """The demo authors (with unusable passwords: see README for logging in as one)."""
    users = []
    for username, name, bio in AUTHORS:
        user = get_user_model().objects.filter(username=username).first()
        users.append(user or create_author(username=username, display_name=name, bio=bio))
    editors, _ = Group.objects.get_or_create(name=EDITORS_GROUP)
    editors.user_set.add(*[user for user in users if user.get_username() == EDITOR])
    return users


def _create_post(*, slug: str, **fields) -> posts.Post:
    """Create a post, suffixing its slug if a post already has it (`--force` runs)."""
    for n in range(1, 100):
        try:
            return posts.create_post(slug=slug if n == 1 else f"{slug}-{n}", **fields)
        except DuplicateKeyError:
            continue
    raise RuntimeError(f"no free slug near {slug!r}")


def _deal(rng: random.Random, items: tuple, n: int) -> list:
    """`n` of `items` in a seeded order, going round again when `n` is larger."""
    dealt: list = []
    while len(dealt) < n:
        dealt += rng.sample(items, len(items))
    return dealt[:n]


@dataclass(eq=False)
class _PostPlan:
    article: Article
    published: datetime
    count: int
    end: datetime  # of its discussion
    recent: int = 0


def _plan_posts(rng: random.Random, num_posts: int, per_post: int | None, now: datetime) -> list[_PostPlan]:
    """Oldest first, spread over POSTS_SPAN_DAYS: each post's article, publication time,
    comment count and the end of its discussion. The newest discussions and the
    longest one are still going (their last comment is minutes old); the others went
    quiet some time ago."""
    articles = _deal(rng, ARTICLES, num_posts)
    if per_post is not None:
        counts = [per_post] * num_posts
    else:
        tails = {language: iter(_deal(rng, LONG_TAIL if language == "en" else SHORT_TAIL, num_posts))
                 for language in VOICES}
        counts = [next(tails[article.language]) for article in articles]
    step_ms = POSTS_SPAN_DAYS * 86_400_000 // max(num_posts, 1)
    plans = []
    for i, (article, count) in enumerate(zip(articles, counts)):
        age_ms = (num_posts - 1 - i) * step_ms + int(step_ms * (0.1 + 0.8 * rng.random())) + 3_600_000
        quiet_ms = int(age_ms * (0.15 + 0.55 * rng.random()))
        plans.append(_PostPlan(article=article, published=now - timedelta(milliseconds=age_ms),
                               count=count, end=now - timedelta(milliseconds=quiet_ms)))
    talked = [plan for plan in plans if plan.count]
    lively = talked[-LIVELY:] + sorted(talked, key=lambda plan: plan.count)[-1:]
    for plan in dict.fromkeys(lively):
        plan.end = now - timedelta(milliseconds=rng.randrange(60_000, 1_500_000))
        plan.recent = min(3, max(1, plan.count // 3))
    return plans


def seed(*, num_posts: int | None = None, comments_per_post: int | None = None, seed: int = 1) -> Seeded:
    """Create the demo authors, `num_posts` published posts (default: one per article)
    and their comments (`comments_per_post` each, or a long-tailed mix)."""
    rng = random.Random(seed)
    now = datetime.now(timezone.utc).replace(microsecond=0)
    users = {user.get_username(): user for user in _authors()}
    num_posts = len(ARTICLES) if num_posts is None else num_posts
    total_comments = 0
    for plan in _plan_posts(rng, num_posts, comments_per_post, now):
        article = plan.article
        author = summary_for(users[article.author])
        voice = VOICES[article.language]
        post = _create_post(
            title=article.title, slug=article.slug, content=article.body, excerpt=article.excerpt,
            author=author, tags=article.tags, status=posts.PUBLISHED, language=article.language,
            published=plan.published, created=plan.published,
        )
        total_comments += seed_comments(
            post=post, count=plan.count, rng=rng, start=plan.published + timedelta(minutes=5),
            end=plan.end, talk=article.talk, host=voice.host(name=author.name, user_id=author.id),
            recent=plan.recent, voice=voice,
        )
    return Seeded(authors=len(users), posts=num_posts, comments=total_comments)


# --- The texts, language by language (cms/demo_content) ---------------------------------

VOICES = {voice.language: voice for voice in (english.VOICE, vietnamese.VOICE, hindi.VOICE, indonesian.VOICE)}
ARTICLES: tuple[Article, ...] = (
    english.ARTICLES + vietnamese.ARTICLES + hindi.ARTICLES + indonesian.ARTICLES
)
