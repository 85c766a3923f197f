"""The comments app's settings (comments/conf.py) and the system checks that report
bad values (comments/checks.py). Pure: no database (only Django's `settings` fixture).
"""

from __future__ import annotations

from dataclasses import fields

import pytest

from comments import checks, conf

NAMES = {spec.metadata["name"]: spec for spec in fields(conf.CommentsSettings)}


def test_the_projects_settings_pass_every_check():
    assert conf.problems() == []
    assert checks.comment_settings_in_bounds(None) == []
    assert checks.known_moderation_rules(None) == []


@pytest.mark.parametrize("name", sorted(NAMES))
def test_a_missing_setting_takes_its_documented_default(settings, name):
    delattr(settings, name)
    assert getattr(conf.get(), NAMES[name].name) == NAMES[name].default
    assert conf.problems() == []


def test_valid_values_are_used_as_given(settings):
    settings.COMMENTS_PER_PAGE = 7
    settings.COMMENTS_INDENT_LIMIT = 8
    settings.COMMENTS_MAX_DEPTH = 0
    settings.COMMENTS_STORE_RECHECK_SECONDS = 2
    settings.COMMENTS_MODERATION = ["First", " links "]
    current = conf.get()
    assert (current.per_page, current.indent_limit, current.max_depth) == (7, 8, 0)
    assert current.store_recheck_seconds == 2.0 and isinstance(current.store_recheck_seconds, float)
    assert current.moderation_rules == {"first", "links"}


def test_a_setting_change_is_seen_at_once(settings):
    """Read on each call, never kept from import time."""
    settings.COMMENTS_CACHE_SECONDS = 11
    assert conf.get().cache_seconds == 11
    settings.COMMENTS_CACHE_SECONDS = 0
    assert conf.get().cache_seconds == 0


@pytest.mark.parametrize("name,value", [
    ("COMMENTS_PER_PAGE", "50"),
    ("COMMENTS_PER_PAGE", 2.5),
    ("COMMENTS_EDIT_WINDOW", True),
    ("COMMENTS_STORE", 3),
    ("COMMENTS_MODERATION", "first,links"),
    ("COMMENTS_MODERATION", ["first", 1]),
    ("COMMENTS_STORE_RECHECK_SECONDS", None),
    ("NOTIFICATIONS_BATCH_SECONDS", "120"),
])
def test_a_value_of_the_wrong_type_is_an_error_and_the_default_is_used(settings, name, value):
    setattr(settings, name, value)
    [error] = checks.comment_settings_in_bounds(None)
    assert error.id == "comments.E002" and error.level == checks.checks.ERROR
    kind = checks.KINDS[type(NAMES[name].default)]
    assert error.msg == checks.WRONG_TYPE.format(name=name, value=value, kind=kind)
    assert getattr(conf.get(), NAMES[name].name) == NAMES[name].default


@pytest.mark.parametrize("name,value,used", [
    ("COMMENTS_PER_PAGE", 0, 1),
    ("COMMENTS_QUEUE_PER_PAGE", -5, 1),
    ("COMMENTS_EDIT_WINDOW", -1, 0),
    ("COMMENTS_CACHE_SECONDS", -300, 0),
    ("COMMENTS_RATE_WINDOW", 0, 1),
    ("COMMENTS_RATE_PER_IP", -1, 0),
    ("COMMENTS_EMBEDDED_MAX_BYTES", -1, 0),
    ("COMMENTS_STORE_RECHECK_SECONDS", -0.5, 0.0),
    ("NOTIFICATIONS_CONFIRM_WINDOW", 0, 1),
    ("COMMENTS_FORM_MAX_AGE", -1, 0),
])
def test_a_value_too_small_is_an_error_and_the_smallest_is_used(settings, name, value, used):
    setattr(settings, name, value)
    [error] = checks.comment_settings_in_bounds(None)
    assert error.id == "comments.E003" and error.level == checks.checks.ERROR
    assert error.msg == checks.TOO_SMALL.format(name=name, value=value, bound=NAMES[name].metadata["minimum"])
    assert getattr(conf.get(), NAMES[name].name) == used


@pytest.mark.parametrize("name,value,used", [
    ("COMMENTS_INDENT_LIMIT", 12, conf.INDENT_CEILING),
    ("COMMENTS_MAX_DEPTH", 40, conf.MAX_DEPTH_CEILING),
])
def test_a_value_past_what_comments_support_is_a_warning_and_the_largest_is_used(settings, name, value, used):
    setattr(settings, name, value)
    [warning] = checks.comment_settings_in_bounds(None)
    assert warning.id == "comments.W001" and warning.level == checks.checks.WARNING
    assert warning.msg == checks.TOO_LARGE.format(name=name, value=value, bound=used)
    assert getattr(conf.get(), NAMES[name].name) == used


def test_the_deepest_reply_level_is_one_above_the_slugs_ceiling():
    from comments import slugs

    assert conf.MAX_DEPTH_CEILING == slugs.DEPTH_CEILING - 1 == 19


def test_an_unknown_moderation_rule_is_an_error_naming_it(settings):
    settings.COMMENTS_MODERATION = ["links", "Sometimes", "post"]
    [error] = checks.known_moderation_rules(None)
    assert error.id == "comments.E004"
    assert error.msg == conf.BAD_MODERATION.format(value="sometimes")


@pytest.mark.parametrize("rules", [["post"], [], ["all"], ["first", "links"], ["POST", ""]])
def test_known_moderation_rules_pass(settings, rules):
    settings.COMMENTS_MODERATION = rules
    assert checks.known_moderation_rules(None) == []


def test_a_store_of_the_wrong_type_is_reported_once(settings):
    """The type check reports it; the store check sees the default and stays quiet."""
    settings.COMMENTS_STORE = ["documents"]
    assert [e.id for e in checks.comment_settings_in_bounds(None)] == ["comments.E002"]
    assert checks.known_comment_store(None) == []


class HalfAHost:
    """A host that forgot most of comments.host.BaseHost (and does not subclass it)."""

    def get(self, discussion_id):
        return None


@pytest.mark.parametrize("path,code", [
    ("cms.comments_host.NoSuchHost", "comments.E005"),
    ("nowhere.at.all", "comments.E005"),
    (f"{__name__}.HalfAHost", "comments.E006"),
])
def test_a_host_that_cannot_serve_is_an_error_at_start_up(settings, path, code):
    """COMMENTS_HOST must load and have every method of the Host interface."""
    settings.COMMENTS_HOST = path
    [error] = checks.loadable_host(None)
    assert error.id == code and path in error.msg


def test_the_blog_is_a_whole_host(settings):
    assert checks.loadable_host(None) == []


def test_the_settings_are_read_once_until_a_request_starts_or_a_setting_changes(settings):
    """A page asks for them once per comment: it reads them once. A setting changed
    (override_settings, the `settings` fixture) or a new request reads them again."""
    from django.conf import settings as django_settings
    from django.core.signals import request_started

    first = conf.get()
    assert conf.get() is first
    settings.COMMENTS_PER_PAGE = 7
    assert conf.get().per_page == 7
    changed = conf.get()
    # A change no signal announces is read when the next request starts.
    django_settings.COMMENTS_PER_PAGE = 9
    assert conf.get() is changed
    # (send_robust: Django's own receiver of the signal would reach for the database.)
    answers = dict(request_started.send_robust(sender=None))
    assert answers[conf.forget] is None
    assert conf.get().per_page == 9
