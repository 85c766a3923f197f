"""The comments app's scripts (comments/static/comments/js/) name no address of their
own: what they fetch or post to comes from the page (a data- attribute, a link's href,
a form's action), so they work wherever a host mounts the app's URLs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from comments.templatetags.comments import SCRIPTS

STATIC = Path(__file__).resolve().parents[2] / "comments" / "static"
# A string literal that is an address: from the root, or naming the app's own paths.
ADDRESS = re.compile(r"""(["'`])((?:/|[^"'`\n]*\b(?:comments|posts)/)[^"'`\n]*)\1""")


def code_of(path: Path) -> str:
    """The script without its comments (which may well name addresses)."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
    return re.sub(r"^\s*//.*$", "", text, flags=re.M)


def test_address_finds_what_a_script_could_hard_code():
    found = [m.group(2) for m in ADDRESS.finditer('a("/comments/"); b("comments/votes/"); c("text/html")')]
    assert found == ["/comments/", "comments/votes/"]


@pytest.mark.parametrize("name", SCRIPTS)
def test_the_script_takes_every_address_from_the_page(name):
    assert [m.group(2) for m in ADDRESS.finditer(code_of(STATIC / name))] == []
