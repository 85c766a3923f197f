"""Defences on posting: rate limits, and the verdict on what a new or edited comment
says and who wrote it (blocked words and domains, links, first-time commenters, the
pre-moderation setting). Plain functions; no request in sight.

The form's own defences (the signed token, the honeypot, the minimum fill time) are
in comments/posting/forms.py and comments/posting/tokens.py.
"""

from __future__ import annotations

import functools
import logging
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass

from bson import ObjectId
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext, gettext_noop
from pymongo.errors import PyMongoError

from comments import addresses, conf
from comments.internal import unicode_text
from comments.moderation.blocklist import Screening
from comments.posting import confirmed as confirmed_addresses, limits
from comments.records import APPROVED, PENDING, CommentAuthor, Viewer
from comments.stores import get_store
from infra import mongo
from infra.html_text import html_text

RATE_LIMITED = gettext_noop(
    "You are posting too often. Please wait a few minutes, then send it again: "
    "your text is kept below."
)
PREMODERATION_RULES = conf.PREMODERATION_RULES
BAD_MODERATION = conf.BAD_MODERATION
_WORD_CHARACTER = re.compile(r"\w")
LINK_RE = re.compile(r"https?://|\bwww\.|<a[\s>]", re.IGNORECASE)

# Tests replace this to move from one rate window to the next without waiting.
clock = time.time
# A window's counts are kept this many seconds past its end before MongoDB's TTL
# monitor may delete them (app servers' clocks may differ by up to this much).
EXPIRY_MARGIN = 300

log = logging.getLogger(__name__)


class RateLimited(Exception):
    def __init__(self, retry_after: int):
        super().__init__(gettext(RATE_LIMITED))
        self.retry_after = retry_after


def check_rate(*, action: str, ip: str | None, user_id: int | None) -> None:
    """Count one `action` (post, edit, flag) against the client's IP address and, when
    logged in, their user; RateLimited once either has made
    COMMENTS_RATE_PER_IP / COMMENTS_RATE_PER_USER in the current COMMENTS_RATE_WINDOW.

    Fixed windows, counted in MongoDB (comments/posting/limits.py), so every gunicorn worker
    and machine counts against the same numbers, exactly, and a restart forgets
    nothing. A limit of 0 turns that count off. With MongoDB unreachable the action
    is let through (logged): the write it guards needs MongoDB and fails anyway.
    """
    current = conf.get()
    window = current.rate_window
    now = clock()
    number = int(now // window)
    ends = (number + 1) * window
    over = False
    for kind, who, limit in (
        ("ip", ip, current.rate_per_ip),
        ("user", user_id, current.rate_per_user),
    ):
        if who in (None, "") or limit <= 0:
            continue
        key = f"{action}:{kind}:{who}"
        try:
            admitted = limits.take_slot(key=key, window=number, limit=limit, expires=ends + EXPIRY_MARGIN)
        except PyMongoError as exc:
            if not mongo.is_outage(exc):
                raise
            log.warning("rate limit not counted, MongoDB unreachable: %s", key)
            continue
        over = over or not admitted
    if over:
        raise RateLimited(retry_after=int(ends - now) + 1)


def check_writer_rate(*, action: str, ip: str | None, viewer: Viewer) -> None:
    """`check_rate` for this viewer's write; editors are exempt."""
    if not viewer.editor:
        check_rate(action=action, ip=ip, user_id=viewer.user_id)


def premoderation_rules() -> frozenset[str]:
    """The COMMENTS_MODERATION rules that hold comments back; empty for post-moderation."""
    rules = conf.get().moderation_rules
    for rule in rules:
        if rule not in PREMODERATION_RULES:
            raise ImproperlyConfigured(BAD_MODERATION.format(value=rule))
    return frozenset(rules)


def has_links(text: str, html: str) -> bool:
    """Whether a comment carries a link, written as Markdown, HTML or a bare address."""
    return "<a " in html or bool(LINK_RE.search(text))


def blocked_word(text: str, words: Iterable[str], *, html: str = "") -> str | None:
    """The first blocked word or phrase the text contains as whole words, however
    spelled: both are compared by their look-alike keys (comments/internal/unicode_text.py:
    case, full-width letters, invisible characters, look-alike letters of other
    scripts: "ｃａｓｉｎｏ", "cas\u200bino", "cаsino" with a Cyrillic а, "CASİNO",
    "ЅРАМ" in Cyrillic capitals), the text in each reading, each word in every case.
    With `html` (the text as rendered), also in what readers see of it
    (infra/html_text.py): markup inside a word ("sp**a**m", "sp<b>a</b>m",
    "sp&#97;m") hides it from the source, not from them."""
    by_key, pattern = _finder(tuple(words))
    if pattern is None:
        return None
    keys = unicode_text.text_keys(text)
    seen = html_text(html) if html else ""
    if seen and seen != " ".join(text.split()):  # else readers see the source's words
        keys |= unicode_text.text_keys(seen)
    for keyed in sorted(keys):
        start = 0
        while (found := pattern.search(keyed, start)) is not None:
            if found.start() == 0 or not _WORD_CHARACTER.match(keyed, found.start() - 1):
                return by_key[found.group(0)]
            start = found.start() + 1
    return None


@functools.lru_cache(maxsize=16)
def _finder(words: tuple[str, ...]) -> tuple[dict[str, str], re.Pattern | None]:
    """The blocked words by each of their keys, and the pattern that finds any of
    them (None for no words): made once for the blocklist each post reads."""
    by_key: dict[str, str] = {}
    for word in words:
        for key in sorted(unicode_text.text_keys(word, every_case=True)):
            by_key.setdefault(key, word)
    by_key.pop("", None)
    if not by_key:
        return by_key, None
    # One pass over each key of the text for every word (longest first, so a phrase wins
    # over its first word). The pattern starts with the words themselves, so the engine
    # skips to where one could start; a match inside a longer word is tried again one
    # further on.
    alternatives = "|".join(re.escape(key) for key in sorted(by_key, key=len, reverse=True))
    return by_key, re.compile(r"(?:" + alternatives + r")(?!\w)")


def blocked_domain(email: str, domains: Iterable[str]) -> str | None:
    """The blocked domain an e-mail address belongs to (the domain or a subdomain),
    both as mail is delivered to them (comments/addresses.py: "x@ｓpamco.test" is
    at spamco.test)."""
    domain = addresses.domain_of(email) if email else ""
    if not domain:
        return None
    for blocked in domains:
        normal = addresses.normalise_domain(blocked) if blocked else ""
        if normal and (domain == normal or domain.endswith("." + normal)):
            return blocked
    return None


@dataclass(frozen=True)
class Verdict:
    status: str
    # Why it is held for moderation (for the queue), or "" when approved.
    reason: str = ""


def is_known(author: CommentAuthor, *, vouching: Iterable[ObjectId] = (), confirmed: Iterable[str] = ()) -> bool:
    """Whether the "first" rule may let this commenter through: a member with an approved
    comment, or an anonymous commenter whose browser carries, in its signed cookies,
    a comment that was approved (`vouching`: the ids it lists) or the confirmation of
    the address they typed (`confirmed`: the addresses it confirmed by following their
    link, which the address must still be on record as). Never a typed e-mail address
    alone: anyone can type a known commenter's."""
    if author.id is not None:
        return get_store().has_approved_by(author_id=author.id)
    email = addresses.normalise(author.email) if author.email else ""
    if email and email in {addresses.normalise(a) for a in confirmed} and confirmed_addresses.is_confirmed(email):
        return True
    ids = list(vouching)
    return bool(ids) and any(comment.approved for comment in get_store().find_by_ids(ids=ids))


def judge(*, author: CommentAuthor, text: str, html: str, screening: Screening, trusted: bool,
          vouching: Iterable[ObjectId] = (), confirmed: Iterable[str] = ()) -> Verdict:
    """The status a new or edited comment gets: approved, or pending (held for an
    editor) for a blocked word or e-mail domain or a pre-moderation rule. Editors'
    own comments (`trusted`) are approved. `vouching`: the comments this commenter's
    browser wrote (see `is_known`)."""
    if trusted:
        return Verdict(APPROVED)
    if blocked_word(text, screening.words, html=html):
        return Verdict(PENDING, "blocked word")
    if blocked_domain(author.email, screening.domains):
        return Verdict(PENDING, "blocked e-mail domain")
    rules = premoderation_rules()
    if "all" in rules:
        return Verdict(PENDING, "pre-moderation")
    if "links" in rules and has_links(text, html):
        return Verdict(PENDING, "contains a link")
    if "first" in rules and not is_known(author, vouching=vouching, confirmed=confirmed):
        return Verdict(PENDING, "first comment")
    return Verdict(APPROVED)
