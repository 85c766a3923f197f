"""The translation catalogs and the templates that feed them (issue 20): the site's
(locale/) and the comments app's own (comments/locale/, which its wheel carries to
other projects; `make messages` refreshes both). Every text the code and templates mark
is in its catalog (the app's texts in the app's, the rest in the site's), translated in every plural
form and not fuzzy; no template shows a literal text outside translate/blocktranslate;
and each translation keeps its msgid's placeholders (msgfmt --check). Each checker is
also shown failing on a small broken example, so none of them can pass vacuously."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.template.base import Lexer, TokenType

BASE = Path(settings.BASE_DIR)
LANGUAGES = [code for code, _name in settings.LANGUAGES if code != "en"]
CATALOGS = {code: BASE / "locale" / code / "LC_MESSAGES" / "django.po" for code in LANGUAGES}
APP_CATALOGS = {code: BASE / "comments" / "locale" / code / "LC_MESSAGES" / "django.po" for code in LANGUAGES}
# What makemessages reads (Makefile's `messages` target ignores the rest the same way).
SOURCES = ["slugline", "infra", "media", "cms", "comments", "dashboard", "api", "accounts", "webhooks", "templates",
           "manage.py"]
IGNORED = [".venv", "var", "tests", "bench", "tools", "docs", "static", "node_modules"]

needs_msgfmt = pytest.mark.skipif(shutil.which("msgfmt") is None,
                                  reason="msgfmt missing: install Debian's gettext package")


# --- Reading .po files ------------------------------------------------------------------


def _unquote(line: str) -> str:
    return ast.literal_eval(line.strip())


def read_po(text: str) -> dict[tuple[str | None, str], dict]:
    """The entries of a .po file by (context, msgid): their plural msgid, translations
    (one per plural form) and flags. Obsolete entries (#~) are left out."""
    entries = {}
    for block in re.split(r"\n\s*\n", text):
        lines = [line for line in block.splitlines() if line and not line.startswith("#~")]
        flags = {flag.strip() for line in lines if line.startswith("#,") for flag in line[2:].split(",")}
        fields: dict[str, str] = {}
        current = None
        for line in lines:
            if line.startswith("#"):
                continue
            match = re.match(r"(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?) (\".*\")$", line)
            if match:
                current = match.group(1)
                fields[current] = _unquote(match.group(2))
            elif line.startswith('"') and current:
                fields[current] += _unquote(line)
        if "msgid" not in fields or fields["msgid"] == "":
            continue
        translations = [value for key, value in sorted(fields.items()) if key.startswith("msgstr")]
        entries[(fields.get("msgctxt"), fields["msgid"])] = {
            "plural": fields.get("msgid_plural"), "msgstr": translations, "flags": flags,
        }
    return entries


def plural_count(text: str) -> int:
    return int(re.search(r"nplurals\s*=\s*(\d+)", text).group(1))


def catalog_gaps(catalog_text: str, wanted: set[tuple[str | None, str]]) -> list[str]:
    """What a catalog lacks for `wanted` msgids: missing, fuzzy, untranslated, or with a
    plural form left empty."""
    entries, forms = read_po(catalog_text), plural_count(catalog_text)
    gaps = []
    for key in sorted(wanted, key=lambda k: (k[0] or "", k[1])):
        entry = entries.get(key)
        name = f"{key[1]!r}" + (f" (context {key[0]!r})" if key[0] else "")
        if entry is None:
            gaps.append(f"missing: {name}")
        elif "fuzzy" in entry["flags"]:
            gaps.append(f"fuzzy: {name}")
        elif entry["plural"] is not None and (len(entry["msgstr"]) != forms or not all(entry["msgstr"])):
            gaps.append(f"plural forms incomplete ({forms} wanted): {name}")
        elif not all(entry["msgstr"]):
            gaps.append(f"untranslated: {name}")
    return gaps


def extracted_msgids(tmp_path: Path, *, app: bool = False) -> set[tuple[str | None, str]]:
    """What `makemessages` extracts from the code and templates as they are now, run on
    a copy (so the real catalogs are neither read nor written): the site's texts (all
    but comments/), or with `app` the comments app's (run inside it, as `make messages`)."""
    copy = tmp_path / "project"
    copy.mkdir(parents=True)
    for name in SOURCES:
        source = BASE / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__", "locale"))
        else:
            shutil.copy(source, copy / name)
    where = copy / "comments" if app else copy
    (where / "locale").mkdir()
    command = [sys.executable, str(copy / "manage.py"), "makemessages", "-l", "vi", "--no-location"]
    command += [arg for name in IGNORED + ([] if app else ["comments"]) for arg in ("-i", name)]
    subprocess.run(command, cwd=where, check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(copy)})
    return set(read_po((where / "locale/vi/LC_MESSAGES/django.po").read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> dict[str, set[tuple[str | None, str]]]:
    """`extracted_msgids` of the site ("site") and of the comments app ("app"), run once
    for the module: what makemessages extracts does not depend on the language asked for."""
    folder = tmp_path_factory.mktemp("extracted")
    return {"site": extracted_msgids(folder / "site"), "app": extracted_msgids(folder / "app", app=True)}


SMALL_CATALOG = '''msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\\n"

msgid "Comments"
msgstr "टिप्पणियाँ"

#, fuzzy
msgid "Log in"
msgstr "लॉग इन"

msgid "Log out"
msgstr ""

#, python-format
msgid "%(shown)s comment"
msgid_plural "%(shown)s comments"
msgstr[0] "%(shown)s टिप्पणी"
msgstr[1] ""

msgctxt "navigation"
msgid "Search"
msgstr "खोज"
'''


def test_the_completeness_check_names_every_kind_of_gap():
    """Missing, fuzzy, untranslated and half-translated plural entries are all caught;
    a complete entry (with or without context) is not."""
    wanted = {(None, "Comments"), (None, "Log in"), (None, "Log out"), (None, "%(shown)s comment"),
              ("navigation", "Search"), (None, "Posts")}
    assert catalog_gaps(SMALL_CATALOG, wanted) == [
        "plural forms incomplete (2 wanted): '%(shown)s comment'",
        "fuzzy: 'Log in'",
        "untranslated: 'Log out'",
        "missing: 'Posts'",
    ]
    assert catalog_gaps(SMALL_CATALOG, {(None, "Comments"), ("navigation", "Search")}) == []


@needs_msgfmt
def test_the_extraction_sees_a_new_text(extracted):
    """A text marked in the code is extracted (so a catalog without it would fail): the
    site's texts for the site, the comments app's for the app."""
    site = extracted["site"]
    assert (None, "Change language") in site and ("navigation", "Search") in site
    assert (None, "a minute ago") in site
    app = extracted["app"]
    assert (None, "%(shown)s comment") in app and (None, "Comments") in app
    assert (None, "Change language") not in app


@needs_msgfmt
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_text_is_in_every_catalog_translated(extracted, language):
    """Every msgid makemessages extracts now is in its catalog, translated, not fuzzy."""
    gaps = catalog_gaps(CATALOGS[language].read_text(encoding="utf-8"), extracted["site"])
    gaps += catalog_gaps(APP_CATALOGS[language].read_text(encoding="utf-8"), extracted["app"])
    assert gaps == [], f"{language}: {len(gaps)} gaps; run `make messages` and translate:\n" + "\n".join(gaps)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_proving_entries_are_translated_in_every_catalog(language):
    """The switcher, "Comments", a plural and the relative times Django lacks in Hindi
    are translated everywhere (what shows the machinery working)."""
    site = CATALOGS[language].read_text(encoding="utf-8")
    assert catalog_gaps(site, {(None, "Language"), (None, "Change language"), (None, "a minute ago"),
                               (None, "an hour ago")}) == []
    app = APP_CATALOGS[language].read_text(encoding="utf-8")
    assert catalog_gaps(app, {(None, "Comments"), (None, "%(shown)s comment")}) == []


# --- Placeholders (msgfmt --check) ------------------------------------------------------


def msgfmt_check(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["msgfmt", "--check", "-o", "/dev/null", str(path)], capture_output=True, text=True)


@needs_msgfmt
@pytest.mark.parametrize("language", LANGUAGES)
def test_each_catalog_keeps_its_placeholders(language):
    """msgfmt --check: headers, plural forms and every %(name)s / {name} of the msgid."""
    for catalog in (CATALOGS[language], APP_CATALOGS[language]):
        checked = msgfmt_check(catalog)
        assert checked.returncode == 0, checked.stderr


@needs_msgfmt
def test_msgfmt_refuses_a_lost_placeholder(tmp_path):
    """A translation that drops its msgid's placeholder fails the check."""
    broken = tmp_path / "django.po"
    broken.write_text(SMALL_CATALOG.replace('msgstr[0] "%(shown)s टिप्पणी"', 'msgstr[0] "टिप्पणी"')
                      .replace('msgstr[1] ""', 'msgstr[1] "टिप्पणियाँ"'), encoding="utf-8")
    checked = msgfmt_check(broken)
    assert checked.returncode != 0 and "shown" in checked.stderr


# --- Literal texts in templates --------------------------------------------------------

# Texts that stay as they are in every language, and why.
ALLOWED_LITERALS = {
    "Slugline",  # the site's name
    "Atom", "RSS",  # names of feed formats
}
# Pieces of text that are not words for readers: addresses shown as they are
# ("/authors/ada/") and CSS class names a block adds to a class attribute ("wrap-wide").
NOT_WORDS = re.compile(r"/\S*|[a-z0-9]+(?:-[a-z0-9]+)+")
# Whole templates that are not prose for readers, and why.
NOT_PROSE = {
    "cms/robots.txt",  # read by crawlers: directives in robots.txt's own syntax
}
# Attributes whose values people read (or hear).
SPOKEN_ATTRIBUTES = {"title", "alt", "aria-label", "placeholder", "label", "aria-description"}
HOLE = "\x00"  # where a template tag or variable was


class _TextFinder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skipping += 1
        for name, value in attrs:
            if name in SPOKEN_ATTRIBUTES and value:
                self._check(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skipping:
            self._skipping -= 1

    def handle_data(self, data):
        if not self._skipping:
            self._check(data)

    def _check(self, text):
        for piece in text.split(HOLE):
            words = " ".join(piece.split())
            if NOT_WORDS.fullmatch(words):
                continue
            rest = words
            for allowed in ALLOWED_LITERALS:
                rest = re.sub(rf"\b{re.escape(allowed)}\b", "", rest)
            if re.search(r"[^\W\d_]", rest):
                self.found.append(words)


def untranslated_literals(source: str) -> list[str]:
    """The texts with letters a template shows as they are: outside translate and
    blocktranslate, outside comments, in the page's text or in attributes people read."""
    skeleton, inside = [], None
    for token in Lexer(source).tokenize():
        if token.token_type == TokenType.COMMENT:
            continue
        if token.token_type == TokenType.BLOCK:
            name = token.contents.split()[0] if token.contents else ""
            if inside is None and name in ("blocktranslate", "blocktrans", "comment"):
                inside = "end" + name
            elif name == inside:
                inside = None
            skeleton.append(HOLE)
        elif token.token_type == TokenType.VAR:
            skeleton.append(HOLE)
        elif inside is None:
            skeleton.append(token.contents)
    finder = _TextFinder()
    finder.feed("".join(skeleton))
    finder.close()
    return finder.found


# The project's templates and those the apps ship.
TEMPLATE_ROOTS = [BASE / "templates", BASE / "comments" / "templates"]


def every_template() -> list[Path]:
    return sorted(path for root in TEMPLATE_ROOTS for path in root.rglob("*") if path.is_file()
                  and path.relative_to(root).as_posix() not in NOT_PROSE)


def test_the_literal_check_finds_bare_words():
    """A bare word in text or in a title is found; translated text, variables, tags,
    comments, class names and the allowed names are not."""
    source = (
        '{% load i18n %}<p class="intro">Hello {{ name }}</p>\n'
        '<a href="/" title="Home page">{% translate "Home" %}</a>\n'
        '<span aria-label="{% translate \'Pages\' %}">{% blocktranslate %}Page {{ n }}{% endblocktranslate %}</span>\n'
        '{# a note #}{% comment %}Also a note{% endcomment %}<b>Slugline · RSS</b>'
        '<main class="wrap{% block main_class %} wrap-wide{% endblock %}"><code>/feeds/{{ x }}/</code></main>'
        '<p>{{ count }} posts</p>'
    )
    assert untranslated_literals(source) == ["Hello", "Home page", "posts"]


@pytest.mark.parametrize("path", every_template(), ids=lambda p: p.relative_to(BASE).as_posix())
def test_no_template_shows_an_untranslated_literal(path):
    """Every text a template shows comes through translate or blocktranslate."""
    assert untranslated_literals(path.read_text(encoding="utf-8")) == []
