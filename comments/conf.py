"""The comments app's settings, read in one place: `conf.get()` gives them typed, with
their documented defaults (a setting missing from the project's settings takes its
default here, the one place defaults are written) and within the bounds the app works in.

Never read at import time: `get()` reads them when first asked after a request
starts or a setting changes (Django's `request_started` and `setting_changed`
signals, or new settings in place: `override_settings` puts them there), and gives
the same object until then, so a page reads its settings once however many comments
ask (about 40 lookups each time), and tests that change a setting
(`override_settings`, pytest-django's `settings`) see it at once. A value of the wrong type, or out of its bounds, is reported by the system
checks (comments/checks.py, `comment_settings_in_bounds`) when the site starts; until it is fixed
the app uses the default for a wrong type and the nearest bound for a value out of
bounds, as each module did before it read its settings from here.
"""

from __future__ import annotations

from dataclasses import Field, dataclass, field, fields
from typing import Any

from django.conf import settings as django_settings
from django.core.signals import request_started, setting_changed

from comments import slugs

# COMMENTS_MODERATION: "post" (nothing held back), or any of these rules.
PREMODERATION_RULES = ("all", "first", "links")
BAD_MODERATION = "COMMENTS_MODERATION takes post, or any of all, first and links; not {value!r}."
# COMMENTS_WHO_MAY_COMMENT's values (comments/posting/members.py).
WHO_MAY_COMMENT = ("anyone", "members", "anonymous")
# The stylesheet has indent classes up to this many levels.
INDENT_CEILING = 8
# The deepest reply level slugs allow: full_slug stays well under 1 KB.
MAX_DEPTH_CEILING = slugs.DEPTH_CEILING - 1


def _setting(name: str, default: Any, *, minimum: float | None = None, ceiling: float | None = None) -> Any:
    """A field read from the Django setting `name`: below `minimum` is an error,
    above `ceiling` is used as `ceiling` (a warning)."""
    return field(default=default, metadata={"name": name, "minimum": minimum, "ceiling": ceiling})


@dataclass(frozen=True)
class CommentsSettings:
    """Every setting of the comments app, with its default: the one place defaults are
    written (slugline/settings.py sets only what the environment gives). docs/reference.md,
    "Settings", says what each does."""

    # Which comment store: "documents", "embedded" or "buckets" (comments/stores/).
    store: str = _setting("COMMENTS_STORE", "documents")
    # How often each process rereads which store comments_migrate switched to (seconds).
    store_recheck_seconds: float = _setting("COMMENTS_STORE_RECHECK_SECONDS", 5.0, minimum=0)
    # The largest discussion document the embedded store writes (0: the server's limit).
    embedded_max_bytes: int = _setting("COMMENTS_EMBEDDED_MAX_BYTES", 0, minimum=0)
    per_page: int = _setting("COMMENTS_PER_PAGE", 50, minimum=1)
    # The deepest reply level (top-level comments are level 0).
    max_depth: int = _setting("COMMENTS_MAX_DEPTH", 8, minimum=0, ceiling=MAX_DEPTH_CEILING)
    # Levels indented on a page before "Continue this thread".
    indent_limit: int = _setting("COMMENTS_INDENT_LIMIT", 5, minimum=0, ceiling=INDENT_CEILING)
    max_length: int = _setting("COMMENTS_MAX_LENGTH", 10_000, minimum=1)
    # How long a rendered comment form may be used to post (seconds; 0: not at all).
    form_max_age: int = _setting("COMMENTS_FORM_MAX_AGE", 2 * 24 * 3600, minimum=0)
    # "post", or any of PREMODERATION_RULES (read by `moderation_rules`).
    moderation: tuple[str, ...] = _setting("COMMENTS_MODERATION", ("post",))
    # Seconds an author may edit or delete their own comment.
    edit_window: int = _setting("COMMENTS_EDIT_WINDOW", 15 * 60, minimum=0)
    # Readers' flags that send an approved comment to pending (0: never).
    flags_to_hold: int = _setting("COMMENTS_FLAGS_TO_HOLD", 3, minimum=0)
    # Seconds an anonymous reader's form must be open before posting (0: off).
    min_fill_seconds: int = _setting("COMMENTS_MIN_FILL_SECONDS", 0, minimum=0)
    # Posts, edits and flags per rate window, per IP address and per member (0: no limit).
    rate_window: int = _setting("COMMENTS_RATE_WINDOW", 600, minimum=1)
    rate_per_ip: int = _setting("COMMENTS_RATE_PER_IP", 20, minimum=0)
    rate_per_user: int = _setting("COMMENTS_RATE_PER_USER", 30, minimum=0)
    # The same text by the same author in the same place within this many seconds (0: off).
    duplicate_window: int = _setting("COMMENTS_DUPLICATE_WINDOW", 600, minimum=0)
    # Who may comment: "anyone" (strangers, with a name, and signed-in members),
    # "members" (signed-in members only) or "anonymous" (strangers only): WHO_MAY_COMMENT.
    who_may_comment: str = _setting("COMMENTS_WHO_MAY_COMMENT", "anyone")
    # Discussions close this many days after the post was published (0: never).
    close_after_days: int = _setting("COMMENTS_CLOSE_AFTER_DAYS", 0, minimum=0)
    queue_per_page: int = _setting("COMMENTS_QUEUE_PER_PAGE", 50, minimum=1)
    # Votes one IP address may send on one comment, and on all comments, per minute (0: no limit).
    votes_per_ip_per_comment: int = _setting("COMMENTS_VOTES_PER_IP_PER_COMMENT", 10, minimum=0)
    votes_per_ip: int = _setting("COMMENTS_VOTES_PER_IP", 60, minimum=0)
    # The view a discussion opens on: threaded, newest, chronological, best or top.
    default_view: str = _setting("COMMENTS_DEFAULT_VIEW", "threaded")
    # Fold comments whose net score is this low or lower (0: fold none).
    fold_score: int = _setting("COMMENTS_FOLD_SCORE", 0)
    # Editors' picks a discussion shows at most (featuring one more is refused).
    max_picks: int = _setting("COMMENTS_MAX_PICKS", 3, minimum=0)
    # Seconds a rendered page of comments stays cached for readers (0: off).
    cache_seconds: int = _setting("COMMENTS_CACHE_SECONDS", 300, minimum=0)
    # Replies within this many seconds go out as one mail (0: each at once).
    notifications_batch_seconds: int = _setting("NOTIFICATIONS_BATCH_SECONDS", 120, minimum=0)
    # One digest each at most every this many minutes (0: no such mail).
    notifications_author_digest_minutes: int = _setting("NOTIFICATIONS_AUTHOR_DIGEST_MINUTES", 0, minimum=0)
    notifications_queue_digest_minutes: int = _setting("NOTIFICATIONS_QUEUE_DIGEST_MINUTES", 0, minimum=0)
    # How long an address confirmation link works (seconds; 0: not at all).
    notifications_confirm_max_age: int = _setting("NOTIFICATIONS_CONFIRM_MAX_AGE", 3 * 24 * 3600, minimum=0)
    # How long a "manage your subscriptions" link works (seconds): a forwarded or
    # leaked mail stops showing an address's subscriptions after this.
    notifications_manage_max_age: int = _setting("NOTIFICATIONS_MANAGE_MAX_AGE", 7 * 24 * 3600, minimum=0)
    # How long the Approve, Spam and Delete links in the editors' queue mail work
    # (seconds; 0: the mail carries none).
    notifications_moderation_link_max_age: int = _setting(
        "NOTIFICATIONS_MODERATION_LINK_MAX_AGE", 7 * 24 * 3600, minimum=0
    )
    # Confirmation and "manage" mails per address and per client in each window (0: no limit).
    notifications_confirm_window: int = _setting("NOTIFICATIONS_CONFIRM_WINDOW", 3600, minimum=1)
    notifications_confirm_per_address: int = _setting("NOTIFICATIONS_CONFIRM_PER_ADDRESS", 2, minimum=0)
    notifications_confirm_per_client: int = _setting("NOTIFICATIONS_CONFIRM_PER_CLIENT", 10, minimum=0)
    # The layout the app's own pages extend (its templates: comments/templates/comments/).
    base_template: str = _setting("COMMENTS_BASE_TEMPLATE", "comments/base.html")
    # The model whose every instance is a discussion ("app_label.Model"; comments/model_host.py),
    # read when COMMENTS_HOST is unset; and the field its URLs' `discussion` is.
    discussion_model: str = _setting("COMMENTS_DISCUSSION_MODEL", "")
    discussion_slug_field: str = _setting("COMMENTS_DISCUSSION_SLUG_FIELD", "slug")
    # The site's name the app's page titles end with ("": the Sites framework's, if installed).
    site_name: str = _setting("COMMENTS_SITE_NAME", "")
    # The layout the moderation pages extend (blocks `moderation_title` and `moderation`).
    moderation_base_template: str = _setting(
        "COMMENTS_MODERATION_BASE_TEMPLATE", "comments/moderation/base.html"
    )

    @property
    def moderation_rules(self) -> frozenset[str]:
        """The COMMENTS_MODERATION rules that hold comments back, lower case; empty for
        post-moderation. May hold unknown rules (the checks report them)."""
        return frozenset(rule.strip().lower() for rule in self.moderation) - {"", "post"}


def _type_ok(default: Any, value: Any) -> bool:
    """Whether `value` has the type of the setting whose default is `default`."""
    if isinstance(default, tuple):
        return isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value)
    if isinstance(value, bool):
        return False
    if isinstance(default, float):
        return isinstance(value, (int, float))
    return isinstance(value, type(default))


@dataclass(frozen=True)
class Problem:
    """A setting's value the app cannot use as given: `kind` is "type", "minimum" or
    "ceiling" (the system checks word it)."""

    name: str
    value: Any
    kind: str
    bound: Any = None
    default: Any = None


def _read(spec: Field[Any]) -> tuple[Any, Problem | None]:
    """The value one field takes from the project's settings, and what is wrong with it."""
    name, minimum, ceiling = spec.metadata["name"], spec.metadata["minimum"], spec.metadata["ceiling"]
    default: Any = spec.default  # every field has one (`_setting`)
    value = getattr(django_settings, name, default)
    if not _type_ok(default, value):
        return default, Problem(name, value, "type", default=default)
    if isinstance(default, tuple):
        return tuple(value), None
    if isinstance(default, float):
        value = float(value)
    if minimum is not None and value < minimum:
        return type(default)(minimum), Problem(name, value, "minimum", bound=minimum)
    if ceiling is not None and value > ceiling:
        return type(default)(ceiling), Problem(name, value, "ceiling", bound=ceiling)
    return value, None


def problems() -> list[Problem]:
    """What is wrong with the comments app's settings as the project gives them."""
    return [problem for spec in fields(CommentsSettings) if (problem := _read(spec)[1]) is not None]


# The settings as last read, and the settings object they were read from (None: read
# them again on the next `get`).
_current: tuple[object, CommentsSettings] | None = None


def get() -> CommentsSettings:
    """The comments app's settings now (see the module's docstring for bad values)."""
    global _current
    current, source = _current, django_settings._wrapped
    if current is None or current[0] is not source:
        values = {spec.name: _read(spec)[0] for spec in fields(CommentsSettings)}
        current = _current = (source, CommentsSettings(**values))
    return current[1]


def forget(**kwargs: Any) -> None:
    """Read the settings again on the next `get` (a request starts, a setting changed)."""
    global _current
    _current = None


request_started.connect(forget, dispatch_uid="comments.conf.forget_on_request")
setting_changed.connect(forget, dispatch_uid="comments.conf.forget_on_setting")
