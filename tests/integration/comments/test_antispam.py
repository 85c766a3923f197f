"""comments/posting/antispam.py: rate limits counted in MongoDB (comments/posting/limits.py), and the
verdict on a comment's text and author (blocked words and domains, links,
pre-moderation rules)."""

import re
from datetime import UTC, datetime

import pytest
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured

from comments.moderation.blocklist import Screening
from comments.posting import antispam, limits
from comments.posting.antispam import RATE_LIMITED, RateLimited
from comments.records import APPROVED, PENDING, CommentAuthor
from tests.threads import at_once, split

pytestmark = pytest.mark.usefixtures("each_store")

NOTHING = Screening(words=(), domains=(), banned=False)
ROSA = CommentAuthor(id=None, name="Rosa", email="rosa@example.org")


def test_the_rate_limit_refuses_past_the_limit_and_recovers_in_the_next_window(rate_clock, settings):
    """COMMENTS_RATE_PER_IP attempts pass; the next is RateLimited with the time left; a new window passes."""
    settings.COMMENTS_RATE_WINDOW, settings.COMMENTS_RATE_PER_IP = 600, 3
    for _ in range(3):
        antispam.check_rate(action="post", ip="192.0.2.1", user_id=None)
    rate_clock.now += 100
    with pytest.raises(RateLimited, match=re.escape(RATE_LIMITED)) as caught:
        antispam.check_rate(action="post", ip="192.0.2.1", user_id=None)
    assert caught.value.retry_after == 501
    antispam.check_rate(action="post", ip="192.0.2.2", user_id=None)
    antispam.check_rate(action="flag", ip="192.0.2.1", user_id=None)
    rate_clock.now += 500
    antispam.check_rate(action="post", ip="192.0.2.1", user_id=None)


def test_the_user_limit_applies_whatever_the_address(rate_clock, settings):
    """A member's attempts count against COMMENTS_RATE_PER_USER across IP addresses."""
    settings.COMMENTS_RATE_PER_IP, settings.COMMENTS_RATE_PER_USER = 100, 2
    antispam.check_rate(action="post", ip="192.0.2.1", user_id=7)
    antispam.check_rate(action="post", ip="192.0.2.2", user_id=7)
    with pytest.raises(RateLimited):
        antispam.check_rate(action="post", ip="192.0.2.3", user_id=7)
    antispam.check_rate(action="post", ip="192.0.2.3", user_id=8)


def test_the_counts_are_kept_in_mongodb_not_in_the_process(rate_clock, settings, mongo_db):
    """Clearing this process's cache (a restart, another worker) forgets no count; the
    counts are MongoDB documents that expire after their window."""
    settings.COMMENTS_RATE_WINDOW, settings.COMMENTS_RATE_PER_IP = 600, 2
    for _ in range(2):
        antispam.check_rate(action="post", ip="192.0.2.1", user_id=None)
    cache.clear()
    with pytest.raises(RateLimited):
        antispam.check_rate(action="post", ip="192.0.2.1", user_id=None)
    slots = list(mongo_db.comment_rate_slots.find({}, {"_id": 0}).sort("slot", 1))
    start = rate_clock.now  # a window's start (tests/clocks.py)
    ends = datetime.fromtimestamp(start + 600 + antispam.EXPIRY_MARGIN, tz=UTC)
    assert slots == [{"key": "post:ip:192.0.2.1", "window": int(start // 600), "slot": n, "expires": ends}
                     for n in (1, 2)]
    indexes = mongo_db.comment_rate_slots.index_information()
    assert indexes["expires"]["expireAfterSeconds"] == 0


def test_racing_actions_admit_exactly_the_limit(rate_clock, settings):
    """Twenty-four attempts at once from one address, racing over the client's pool of
    connections: exactly COMMENTS_RATE_PER_IP pass (tests/integration/slugline/test_limits_http.py races
    worker processes)."""
    settings.COMMENTS_RATE_WINDOW, settings.COMMENTS_RATE_PER_IP = 600, 10
    outcomes = at_once([lambda: antispam.check_rate(action="post", ip="192.0.2.9", user_id=None)] * 24)
    passed, refused = split(outcomes)
    assert len(passed) == 10
    assert len(refused) == 14 and all(isinstance(exc, RateLimited) for exc in refused), refused


def test_slots_are_taken_one_above_another(mongo_db, rate_clock):
    """take_slot admits the first `limit` of a key's window and stores nothing past
    it; another key or the next window starts again at slot 1."""
    took = [limits.take_slot(key="post:ip:x", window=5, limit=3, expires=rate_clock.now) for _ in range(5)]
    assert took == [True, True, True, False, False]
    assert limits.take_slot(key="post:ip:y", window=5, limit=3, expires=rate_clock.now)
    assert limits.take_slot(key="post:ip:x", window=6, limit=3, expires=rate_clock.now)
    stored = sorted((doc["window"], doc["slot"]) for doc in mongo_db.comment_rate_slots.find({"key": "post:ip:x"}))
    assert stored == [(5, 1), (5, 2), (5, 3), (6, 1)]


def test_with_mongodb_unreachable_the_limit_lets_the_action_through(rate_clock, settings, mongodb_down):
    """An outage does not turn the limiter into an error page of its own: the write
    it guards reports the outage."""
    settings.COMMENTS_RATE_PER_IP = 1
    for _ in range(3):
        antispam.check_rate(action="post", ip="192.0.2.1", user_id=None)


def test_a_limit_of_zero_is_no_limit(rate_clock, settings):
    """COMMENTS_RATE_PER_IP=0 turns the count off."""
    settings.COMMENTS_RATE_PER_IP = 0
    for _ in range(50):
        antispam.check_rate(action="post", ip="192.0.2.1", user_id=None)


@pytest.mark.parametrize("text,html,expected", [
    ("plain words", "<p>plain words</p>", False),
    ("[x](https://a.example)", '<p><a href="https://a.example">x</a></p>', True),
    ("see http://a.example", "<p>see http://a.example</p>", True),
    ("see WWW.a.example", "<p>see WWW.a.example</p>", True),
    ("<a href=x>y</a>", "<p>y</p>", True),
    ("the www is old", "<p>the www is old</p>", False),
])
def test_has_links_finds_markdown_html_and_bare_addresses(text, html, expected):
    """Links written any way count; the bare word "www" does not."""
    assert antispam.has_links(text, html) is expected


def test_blocked_words_match_whole_words_in_any_case():
    """A word or phrase matches on word boundaries, ignoring case."""
    assert antispam.blocked_word("Best CHEAP pills!", ["cheap pills"]) == "cheap pills"
    assert antispam.blocked_word("cheapskate", ["cheap"]) is None
    assert antispam.blocked_word("a (cheap) one", ["cheap"]) == "cheap"


def test_blocked_domains_match_the_domain_and_its_subdomains():
    """spam.example blocks x@spam.example and x@mail.spam.example, not x@notspam.example."""
    assert antispam.blocked_domain("x@SPAM.example", ["spam.example"]) == "spam.example"
    assert antispam.blocked_domain("x@mail.spam.example", ["spam.example"]) == "spam.example"
    assert antispam.blocked_domain("x@notspam.example", ["spam.example"]) is None
    assert antispam.blocked_domain("", ["spam.example"]) is None


@pytest.mark.parametrize("rules,text,expected", [
    (["post"], "http://x.example", APPROVED),
    (["all"], "hello", PENDING),
    (["links"], "hello", APPROVED),
    (["links"], "http://x.example", PENDING),
    (["first", "links"], "http://x.example", PENDING),
])
def test_judge_applies_the_premoderation_rules(settings, rules, text, expected, mongo_db):
    """COMMENTS_MODERATION decides what waits for an editor."""
    settings.COMMENTS_MODERATION = rules
    verdict = antispam.judge(author=ROSA, text=text, html="", screening=NOTHING, trusted=False)
    assert verdict.status == expected


def test_judge_holds_blocked_words_and_domains_and_trusts_editors():
    """The blocklist holds a comment with a reason; trusted (editors') comments are approved."""
    screening = Screening(words=("casino",), domains=("example.org",), banned=False)
    assert antispam.judge(author=ROSA, text="casino", html="", screening=screening, trusted=False).reason == \
        "blocked word"
    assert antispam.judge(author=ROSA, text="hi", html="", screening=screening, trusted=False).reason == \
        "blocked e-mail domain"
    trusted = antispam.judge(author=ROSA, text="casino", html="", screening=screening, trusted=True)
    assert trusted.status == APPROVED


def test_an_unknown_moderation_rule_is_a_configuration_error(settings):
    """A rule outside post, all, first and links raises ImproperlyConfigured naming it."""
    settings.COMMENTS_MODERATION = ["links", "sometimes"]
    with pytest.raises(ImproperlyConfigured, match="sometimes"):
        antispam.premoderation_rules()
