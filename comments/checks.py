"""The comments app's system checks, registered in `CommentsConfig.ready()`: a bad
value of one of its settings (comments/conf.py) stops `check`, and so the site's
start, with a message that names the setting and what it takes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django.core import checks

if TYPE_CHECKING:
    from django.apps import AppConfig

from comments import conf
from infra import conf as infra_conf

UNKNOWN_STORE = "COMMENTS_STORE is {name!r}; the comment stores are: {known}."
WRONG_TYPE = "{name} is {value!r}; it takes {kind}."
TOO_SMALL = "{name} is {value!r}; it takes {bound} or more."
TOO_LARGE = "{name} is {value!r}; comments go no further than {bound}, so {bound} is used."
MODERATION_HINT = "For example: COMMENTS_MODERATION=first,links."
NO_HOST = "COMMENTS_HOST is {path!r}, which cannot be loaded: {error}"
HOST_HINT = "Set COMMENTS_HOST to the dotted path of a subclass of comments.host.BaseHost."
NO_DISCUSSIONS = ("Neither COMMENTS_HOST nor COMMENTS_DISCUSSION_MODEL is set, or "
                  "COMMENTS_DISCUSSION_MODEL {model!r} names no installed model.")
DISCUSSIONS_HINT = 'Set COMMENTS_DISCUSSION_MODEL = "app_label.Model" (docs/use-in-your-project.md).'
HOST_LACKS = "COMMENTS_HOST {path!r} lacks what comments.host.BaseHost asks for: {missing}."
# What a check answers (django.core.checks).
Messages = list[checks.CheckMessage]
KINDS = {int: "a whole number", float: "a number", str: "a text", tuple: "a list of words"}


@checks.register()
def known_comment_store(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> Messages:
    """COMMENTS_STORE names one of the comment stores (comments/stores/), so a typo
    stops the site at start-up instead of failing every page of comments."""
    from comments.stores import STORES

    name = conf.get().store
    if name not in STORES:
        known = ", ".join(STORES)
        return [checks.Error(UNKNOWN_STORE.format(name=name, known=known),
                             hint=f"Set COMMENTS_STORE to one of: {known}.", id="comments.E001")]
    return []


@checks.register()
def loadable_host(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> Messages:
    """COMMENTS_HOST names a class with what comments.host.BaseHost asks a host to write
    (`missing_methods`), so a typo or an incomplete host stops the site at start-up,
    not at its first comment."""
    from django.conf import settings
    from django.utils.module_loading import import_string

    from comments.host import missing_methods

    path = getattr(settings, "COMMENTS_HOST", None)
    if not path:
        return _discussion_model()
    try:
        host = import_string(str(path))
    except ImportError as exc:
        return [checks.Error(NO_HOST.format(path=path, error=exc), hint=HOST_HINT, id="comments.E005")]
    missing = missing_methods(host)
    if missing:
        return [checks.Error(HOST_LACKS.format(path=path, missing=", ".join(missing)), hint=HOST_HINT,
                             id="comments.E006")]
    return []


def _discussion_model() -> Messages:
    """Without COMMENTS_HOST, COMMENTS_DISCUSSION_MODEL names an installed model."""
    from django.apps import apps

    model = conf.get().discussion_model
    try:
        apps.get_model(model)
    except (LookupError, ValueError):
        return [checks.Error(NO_DISCUSSIONS.format(model=model), hint=DISCUSSIONS_HINT, id="comments.E007")]
    return []


@checks.register()
def comment_settings_in_bounds(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> Messages:
    """Each comments setting has its type and lies within its bounds: a wrong type or a
    value too small (a negative time, no comments per page) is an error; a value past
    what comments support (indent, depth) is a warning, since the largest is used."""
    found = []
    for problem in conf.problems():
        if problem.kind == "type":
            kind = KINDS[type(problem.default)]
            found.append(checks.Error(WRONG_TYPE.format(name=problem.name, value=problem.value, kind=kind),
                                      hint=f"The default is {problem.default!r}.", id="comments.E002"))
        elif problem.kind == "minimum":
            message = TOO_SMALL.format(name=problem.name, value=problem.value, bound=problem.bound)
            found.append(checks.Error(message, id="comments.E003"))
        else:
            found.append(checks.Warning(TOO_LARGE.format(name=problem.name, value=problem.value,
                                                         bound=problem.bound), id="comments.W001"))
    return found


@checks.register()
def known_moderation_rules(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> Messages:
    """COMMENTS_MODERATION names only known rules, so a typo does not leave comments
    unmoderated (or every post failing) until someone notices."""
    unknown = sorted(conf.get().moderation_rules - set(conf.PREMODERATION_RULES))
    return [checks.Error(conf.BAD_MODERATION.format(value=rule), hint=MODERATION_HINT, id="comments.E004")
            for rule in unknown]


UNKNOWN_VIEW = "COMMENTS_DEFAULT_VIEW is {name!r}; the views are: {known}."


@checks.register()
def known_default_view(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> Messages:
    """COMMENTS_DEFAULT_VIEW names one of the views (comments.reading.listers.VIEWS); until
    it does, discussions open threaded."""
    from comments.reading.listers import VIEWS

    name = conf.get().default_view
    if name not in VIEWS:
        known = ", ".join(VIEWS)
        return [checks.Error(UNKNOWN_VIEW.format(name=name, known=known),
                             hint=f"Set COMMENTS_DEFAULT_VIEW to one of: {known}.", id="comments.E007")]
    return []


UNKNOWN_WHO = "COMMENTS_WHO_MAY_COMMENT is {value!r}; it takes one of: {known}."


@checks.register()
def known_who_may_comment(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> Messages:
    """COMMENTS_WHO_MAY_COMMENT is one of conf.WHO_MAY_COMMENT; until it is, only
    members may comment (the stricter reading of a mistyped setting)."""
    value = conf.get().who_may_comment
    if value not in conf.WHO_MAY_COMMENT:
        known = ", ".join(conf.WHO_MAY_COMMENT)
        return [checks.Error(UNKNOWN_WHO.format(value=value, known=known),
                             hint=f"Set COMMENTS_WHO_MAY_COMMENT to one of: {known}.", id="comments.E008")]
    return []


@checks.register()
def lookalike_check_installed(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> Messages:
    """Without the "icu" extra names and texts are compared without look-alike skeletons."""
    from comments.internal import unicode_text

    return [] if unicode_text.icu is not None else [checks.Warning(unicode_text.ICU_MISSING, id="comments.W040")]


@checks.register()
def mongodb_settings(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> Messages:
    """infra/conf.py's settings as the client would refuse them (before anything is written)."""
    return [checks.Error(problem, id="comments.E041") for problem in infra_conf.problems()]
