"""The pure parts of branch rules and follows: a full_slug's lineage, what the rules
above a comment do to a reply below it, and the queue's branch actions as the form
reads them."""

from __future__ import annotations

import pytest
from bson import ObjectId
from django import forms as django_forms

from comments import slugs
from comments.moderation.branches import Rule, effect
from comments.moderation.forms import BAD_CHOICE, BAD_SECONDS, ModerationForm, slow_seconds

DISCUSSION = ObjectId()
ROOT = "2026.01.01.00.00.00.000001:aaaaaaaa"
MIDDLE = f"{ROOT}/2026.01.01.00.00.01.000001:bbbbbbbb"
DEEP = f"{MIDDLE}/2026.01.01.00.00.02.000001:cccccccc"
# A sibling whose full_slug starts with the middle one's characters: not in its branch.
LOOKALIKE = f"{ROOT}/2026.01.01.00.00.01.000001:bbbbbbbbx"


def rule(full_slug: str, *, locked: bool = False, slow: int = 0) -> Rule:
    return Rule(discussion_id=DISCUSSION, full_slug=full_slug, locked=locked, slow_seconds=slow)


def test_a_lineage_is_every_anchored_prefix_root_first_then_itself():
    assert slugs.lineage_full_slugs(DEEP) == [ROOT, MIDDLE, DEEP]
    assert slugs.lineage_full_slugs(ROOT) == [ROOT]


def test_a_lock_reaches_its_comment_and_everything_below_it_and_nothing_else():
    rules = [rule(MIDDLE, locked=True)]
    assert effect(rules, MIDDLE).locked and effect(rules, DEEP).locked
    assert not effect(rules, ROOT).locked and not effect(rules, LOOKALIKE).locked


def test_the_strictest_slow_rule_above_a_comment_applies():
    rules = [rule(ROOT, slow=30), rule(MIDDLE, slow=120), rule(LOOKALIKE, slow=600)]
    found = effect(rules, DEEP)
    assert (found.slow_seconds, found.slow_rule) == (120, rules[1]) and not found.locked
    assert effect(rules, ROOT).slow_seconds == 30
    assert effect([], DEEP).slow_rule is None


@pytest.mark.parametrize("raw", ["0", "86401", "-5", "1.5", "abc", "", "٣", "{'$gt': 1}"])
def test_a_slow_wait_out_of_bounds_or_not_whole_seconds_is_refused(raw):
    with pytest.raises(django_forms.ValidationError) as refused:
        slow_seconds(raw)
    assert refused.value.message == BAD_SECONDS and refused.value.code == "bad_seconds"


@pytest.mark.parametrize("one,seconds,expected", [
    ("lock:{id}", "", ("lock", 0)),
    ("unlock:{id}", "", ("unlock", 0)),
    ("slow:{id}", " 90 ", ("slow", 90)),
    ("unslow:{id}", "90", ("unslow", 0)),
])
def test_the_queue_reads_a_branch_action_and_its_wait(one, seconds, expected):
    comment_id = ObjectId()
    form = ModerationForm({"one": one.format(id=comment_id), "seconds": seconds})
    assert form.is_valid(), form.errors
    data = form.cleaned_data
    assert (data["action"], data["seconds"]) == expected and data["ids"] == [comment_id]


@pytest.mark.parametrize("one,seconds,message", [
    ("slow:{id}", "", BAD_SECONDS), ("lock:not-an-id", "", BAD_CHOICE), ("freeze:{id}", "", BAD_CHOICE),
])
def test_a_bad_branch_action_is_refused_with_its_reason(one, seconds, message):
    form = ModerationForm({"one": one.format(id=ObjectId()), "seconds": seconds})
    assert not form.is_valid() and form.non_field_errors() == [message]
