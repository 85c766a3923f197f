"""The comments app's templates load only tag libraries that every project has: the
app's own (comments/templatetags/) and Django's that need no app installed. A library
of an app the five lines leave out (django.contrib.humanize) is a 500 on that page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[2] / "comments"
DJANGO_OWN = {"i18n", "l10n", "static", "tz", "cache"}
AVAILABLE = DJANGO_OWN | {path.stem for path in (APP / "templatetags").glob("*.py") if path.stem != "__init__"}


def loaded(path: Path) -> set[str]:
    """The libraries `{% load … %}` names in a template (not `{% load x from y %}` forms)."""
    return {name for tag in re.findall(r"\{%\s*load\s+([^%]+?)\s*%\}", path.read_text(encoding="utf-8"))
            for name in tag.split()}


def test_loaded_reads_every_library_of_a_tag():
    sample = APP.parent / "templates" / "base.html"
    assert {"static", "i18n", "comments"} <= loaded(sample)


@pytest.mark.parametrize("path", sorted((APP / "templates").rglob("*.html")),
                         ids=lambda p: p.relative_to(APP).as_posix())
def test_the_template_loads_only_libraries_every_project_has(path):
    assert loaded(path) - AVAILABLE == set()
