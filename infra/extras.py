"""The distribution's optional parts (pyproject.toml's extras): a module that needs one
imports it through `require`, so a project without it gets a sentence naming the extra
to install, not an ImportError."""

from __future__ import annotations

import importlib
from types import ModuleType

from django.core.exceptions import ImproperlyConfigured

MISSING = '{feature} needs the "{extra}" extra: pip install "slugline-comments[{extra}]"'


class MissingExtra(ImproperlyConfigured):
    """A feature was used whose extra is not installed."""


def require(module: str, *, extra: str, feature: str) -> ModuleType:
    """The module `module`, or MissingExtra naming `extra` when it cannot be imported."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(MISSING.format(feature=feature, extra=extra)) from None


def available(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True
