"""comments/antispam.py: rate limits in Django's cache, and the verdict on a comment's
text and author (blocked words and domains, links, pre-moderation rules)."""

import re

import pytest
from django.core.exceptions import ImproperlyConfigured

from comments import antispam
from comments.antispam import RATE_LIMITED, RateLimited
from comments.blocklist import Screening
from comments.store import APPROVED, PENDING, CommentAuthor

pytestmark = pytest.mark.usefixtures("each_store")

NOTHING = Screening(words=(), domains=(), banned=False)
ROSA = CommentAuthor(id=None, name="Rosa", email="rosa@example.org")
START = 1_800_000_000.0  # a window boundary for windows of 600 and 60 seconds


@pytest.fixture
def clock(monkeypatch):
    """The rate limiter's clock, set by the test."""
    now = [START]
    monkeypatch.setattr(antispam, "clock", lambda: now[0])
    return now


def test_the_rate_limit_refuses_past_the_limit_and_recovers_in_the_next_window(clock, settings):
    """COMMENTS_RATE_PER_IP attempts pass; the next is RateLimited with the time left; a new window passes."""
    settings.COMMENTS_RATE_WINDOW, settings.COMMENTS_RATE_PER_IP = 600, 3
    for _ in range(3):
        antispam.check_rate(action="post", ip="192.0.2.1", user_id=None)
    clock[0] += 100
    with pytest.raises(RateLimited, match=re.escape(RATE_LIMITED)) as caught:
        antispam.check_rate(action="post", ip="192.0.2.1", user_id=None)
    assert caught.value.retry_after == 501
    antispam.check_rate(action="post", ip="192.0.2.2", user_id=None)
    antispam.check_rate(action="flag", ip="192.0.2.1", user_id=None)
    clock[0] += 500
    antispam.check_rate(action="post", ip="192.0.2.1", user_id=None)


def test_the_user_limit_applies_whatever_the_address(clock, settings):
    """A member's attempts count against COMMENTS_RATE_PER_USER across IP addresses."""
    settings.COMMENTS_RATE_PER_IP, settings.COMMENTS_RATE_PER_USER = 100, 2
    antispam.check_rate(action="post", ip="192.0.2.1", user_id=7)
    antispam.check_rate(action="post", ip="192.0.2.2", user_id=7)
    with pytest.raises(RateLimited):
        antispam.check_rate(action="post", ip="192.0.2.3", user_id=7)
    antispam.check_rate(action="post", ip="192.0.2.3", user_id=8)


def test_a_limit_of_zero_is_no_limit(clock, settings):
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
